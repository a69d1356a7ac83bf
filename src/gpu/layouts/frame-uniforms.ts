/**
 * Byte layout of `struct FrameUniforms` (shaders/mesh.wgsl), group 0 binding 0: what
 * changes once per frame. One ArrayBuffer, typed-array views at the offsets WGSL
 * dictates (a vec3f aligns to 16), written to the GPU with one `writeBuffer`.
 * test/gpu/layouts/bindings.test.ts checks every offset against the WGSL declaration.
 */
export const FrameUniformsOffset = {
  /** mat4x4f: projection · view. */
  VIEW_PROJECTION: 0,
  /** mat4x4f: world → view. */
  VIEW: 64,
  /** mat4x4f: view → clip (WebGPU depth range 0..1). */
  PROJECTION: 128,
  /** vec3f: eye position in world units. */
  CAMERA_POSITION: 192,
  /** f32: linear multiplier applied before tone mapping. */
  EXPOSURE: 204,
  /** vec3f: unit vector from the surface towards the key light (world space). */
  LIGHT_DIRECTION: 208,
  /** u32: a `ToneMapping` value. */
  TONE_MAPPING: 220,
  /** vec3f: key light colour × intensity, linear RGB. */
  LIGHT_COLOR: 224,
  /** vec3f: hemispherical ambient from above, linear RGB. */
  SKY_COLOR: 240,
  /** vec3f: hemispherical ambient from below, linear RGB. */
  GROUND_COLOR: 256,
  /** vec2f: size of the render target in pixels (screen-space widths of debug lines). */
  VIEWPORT_SIZE: 272,
  /** f32: length of the NORMALS/TANGENTS debug lines, world units. */
  DEBUG_LINE_LENGTH: 280,
  /** f32: half width of SKELETON bones in pixels (joint discs are larger). */
  DEBUG_LINE_WIDTH: 284,
  /** mat4x4f: camera-relative world → shadow-map clip space (src/gpu/frame/shadow-map.ts). */
  LIGHT_VIEW_PROJECTION: 288,
  /** f32: 0 no shadow (off, or not ready), 1 the key light fully blocked in shadow. */
  SHADOW_STRENGTH: 352,
  /** f32: world units a receiver moves along its normal before the lookup. */
  SHADOW_NORMAL_OFFSET: 356,
  /** f32: shadow-map depth units subtracted from the receiver's depth. */
  SHADOW_DEPTH_BIAS: 360,
  /** f32: 1 / shadow map size (one texel in uv). */
  SHADOW_TEXEL_SIZE: 364,
  /** vec3f: centre of the ground disc, camera-relative (src/gpu/frame/ground.ts). */
  GROUND_CENTER: 368,
  /** f32: its radius in world units; 0 draws none. */
  GROUND_RADIUS: 380,
  /**
   * f32: mip levels of the environment's specular chain; 0 without an environment, which
   * lights with the key light and the hemisphere (shaders/environment-lighting.wgsl).
   */
  ENVIRONMENT_LEVELS: 384,
  /** f32: the shadow lookup's tap spacing in texels (1 sharp … larger softer; RenderSettings.shadowSoftness). */
  SHADOW_SPREAD: 388,
  /** f32: multiplies every MToon outline width (RenderSettings.outlineWidth): 1 as authored, 0 none. */
  OUTLINE_WIDTH_SCALE: 392,
  /** array<vec4f, 9>: the environment's SH9 irradiance / π, rgb per coefficient (Environment.irradianceCoefficients). */
  ENVIRONMENT_IRRADIANCE: 400,
} as const;

export const FRAME_UNIFORMS_SIZE = 544;

/** The CPU copy of the frame uniforms. Allocate once; fill the views each frame. */
export class FrameUniformsData {
  readonly buffer = new ArrayBuffer(FRAME_UNIFORMS_SIZE);
  readonly viewProjection = new Float32Array(this.buffer, FrameUniformsOffset.VIEW_PROJECTION, 16);
  readonly view = new Float32Array(this.buffer, FrameUniformsOffset.VIEW, 16);
  readonly projection = new Float32Array(this.buffer, FrameUniformsOffset.PROJECTION, 16);
  readonly cameraPosition = new Float32Array(this.buffer, FrameUniformsOffset.CAMERA_POSITION, 3);
  readonly exposure = new Float32Array(this.buffer, FrameUniformsOffset.EXPOSURE, 1);
  readonly lightDirection = new Float32Array(this.buffer, FrameUniformsOffset.LIGHT_DIRECTION, 3);
  readonly toneMapping = new Uint32Array(this.buffer, FrameUniformsOffset.TONE_MAPPING, 1);
  readonly lightColor = new Float32Array(this.buffer, FrameUniformsOffset.LIGHT_COLOR, 3);
  readonly skyColor = new Float32Array(this.buffer, FrameUniformsOffset.SKY_COLOR, 3);
  readonly groundColor = new Float32Array(this.buffer, FrameUniformsOffset.GROUND_COLOR, 3);
  readonly viewportSize = new Float32Array(this.buffer, FrameUniformsOffset.VIEWPORT_SIZE, 2);
  readonly debugLineLength = new Float32Array(this.buffer, FrameUniformsOffset.DEBUG_LINE_LENGTH, 1);
  readonly debugLineWidth = new Float32Array(this.buffer, FrameUniformsOffset.DEBUG_LINE_WIDTH, 1);
  readonly lightViewProjection = new Float32Array(this.buffer, FrameUniformsOffset.LIGHT_VIEW_PROJECTION, 16);
  readonly shadowStrength = new Float32Array(this.buffer, FrameUniformsOffset.SHADOW_STRENGTH, 1);
  readonly shadowNormalOffset = new Float32Array(this.buffer, FrameUniformsOffset.SHADOW_NORMAL_OFFSET, 1);
  readonly shadowDepthBias = new Float32Array(this.buffer, FrameUniformsOffset.SHADOW_DEPTH_BIAS, 1);
  readonly shadowTexelSize = new Float32Array(this.buffer, FrameUniformsOffset.SHADOW_TEXEL_SIZE, 1);
  readonly groundCenter = new Float32Array(this.buffer, FrameUniformsOffset.GROUND_CENTER, 3);
  readonly groundRadius = new Float32Array(this.buffer, FrameUniformsOffset.GROUND_RADIUS, 1);
  readonly environmentLevels = new Float32Array(this.buffer, FrameUniformsOffset.ENVIRONMENT_LEVELS, 1);
  readonly shadowSpread = new Float32Array(this.buffer, FrameUniformsOffset.SHADOW_SPREAD, 1);
  readonly outlineWidthScale = new Float32Array(this.buffer, FrameUniformsOffset.OUTLINE_WIDTH_SCALE, 1);
  readonly environmentIrradiance = new Float32Array(this.buffer, FrameUniformsOffset.ENVIRONMENT_IRRADIANCE, 36);
}
