/**
 * Constants shared by the TypeScript side and the WGSL: vertex attribute locations,
 * bind group indices (ordered by update rate), binding numbers, flag bits and buffer
 * strides. The WGSL sources spell these values as literals; test/gpu/layouts/bindings.test.ts
 * checks that the shader text agrees with this table, so a number is never typed
 * twice without a test watching both.
 */

/** `@location(N)` of each glTF vertex attribute. */
export const VertexLocation = {
  POSITION: 0,
  NORMAL: 1,
  TANGENT: 2,
  TEXCOORD_0: 3,
  TEXCOORD_1: 4,
  COLOR_0: 5,
  JOINTS_0: 6,
  WEIGHTS_0: 7,
  JOINTS_1: 8,
  WEIGHTS_1: 9,
} as const;

/** Bind groups by update rate: per frame, per skinned object/draw, per material. */
export const BindGroup = {
  FRAME: 0,
  SKIN: 1,
  MATERIAL: 2,
  /** Pipelines of materials with KHR_materials_transmission: the transmitted scene (draw/transmission-pass.ts). */
  TRANSMISSION: 3,
} as const;

/** Bindings of group 0. */
export const FrameBinding = {
  UNIFORMS: 0,
  /** texture_depth_2d: the directional light's shadow map (a 1×1 texture while shadows are off). */
  SHADOW_MAP: 1,
  /** sampler_comparison (linear: 2×2 PCF per tap). */
  SHADOW_SAMPLER: 2,
  /** texture_cube: the environment's GGX specular chain (shaders/environment-lighting.wgsl; a black 1×1 cube without one). */
  ENVIRONMENT_SPECULAR: 3,
  /** sampler: trilinear, for the environment and the BRDF table. */
  ENVIRONMENT_SAMPLER: 4,
  /** texture_2d: the split-sum BRDF table (made once per device while renderers with an environment use it). */
  BRDF_LUT: 5,
  /** texture_cube: the environment's radiance cube, drawn by the skybox. */
  ENVIRONMENT_BACKGROUND: 6,
} as const;

/**
 * Bindings of group 1: every palette back to back, one record per draw, and the morph
 * target deltas of every morphed primitive of the model (src/gpu/model/morph-targets.ts).
 */
export const SkinBinding = {
  PALETTE: 0,
  DRAWS: 1,
  MORPH_DELTAS: 2,
  /** The compute path's skinned vertices (src/gpu/draw/preskin.ts), read by vsPreskinned. */
  SKINNED_VERTICES: 3,
  /** Every skinned primitive's centres of rotation (src/gpu/model/center-buffer.ts), read by centre-of-rotation pipelines. */
  CENTERS: 4,
} as const;

/** Bindings of group 2: the material's uniforms, then a texture and its sampler per glTF texture slot. */
export const MaterialBinding = {
  UNIFORMS: 0,
  BASE_COLOR_TEXTURE: 1,
  BASE_COLOR_SAMPLER: 2,
  METALLIC_ROUGHNESS_TEXTURE: 3,
  METALLIC_ROUGHNESS_SAMPLER: 4,
  NORMAL_TEXTURE: 5,
  NORMAL_SAMPLER: 6,
  OCCLUSION_TEXTURE: 7,
  OCCLUSION_SAMPLER: 8,
  EMISSIVE_TEXTURE: 9,
  EMISSIVE_SAMPLER: 10,
} as const;

/** Bits of `DrawRecord.flags` (shaders/mesh.wgsl `DRAW_*`). */
export const DrawFlag = {
  /** Skin normals by the cofactor of the blended matrix (exact) instead of the matrix itself. */
  EXACT_NORMALS: 1,
  /** The primitive has no NORMAL: shade with flat face normals from screen-space derivatives (glTF §3.7.2.1). */
  FLAT_NORMALS: 2,
  /** The primitive has TANGENT (and NORMAL): normal maps use the skinned tangent frame, else a derivative frame. */
  HAS_TANGENTS: 4,
  /**
   * Morph targets are active this frame and their deltas hold POSITION / NORMAL / TANGENT
   * (shaders/morph.wgsl); set per frame, only while some target's weight is non-zero.
   */
  MORPH_POSITIONS: 8,
  MORPH_NORMALS: 16,
  MORPH_TANGENTS: 32,
} as const;

/** Bits of `MaterialUniforms.flags` (shaders/mesh.wgsl `MATERIAL_*`). */
export const MaterialFlag = {
  HAS_NORMAL_TEXTURE: 1,
  DOUBLE_SIDED: 2,
} as const;

/**
 * Bits of a material's own textures (GpuMaterial.textures, the mesh pipeline's
 * `MATERIAL_TEXTURES` override, shaders/mesh.wgsl `TEXTURE_*`): slots without their bit
 * are not sampled; the shader uses the value of the default texture bound there instead.
 */
export const MaterialTexture = {
  BASE_COLOR: 1,
  METALLIC_ROUGHNESS: 2,
  NORMAL: 4,
  OCCLUSION: 8,
  EMISSIVE: 16,
} as const;
/** Every MaterialTexture bit: what an unspecialised pipeline samples. */
export const ALL_MATERIAL_TEXTURES = 31;

/** The mesh pipeline's `MATERIAL_SHADING` override by MaterialShading (shaders/mesh.wgsl `SHADING_*`). */
export const MaterialShadingCode = {
  PBR: 0,
  PBR_GLOSSINESS: 1,
  UNLIT: 2,
} as const;

/** `MaterialUniforms.alphaMode` values (shaders/mesh.wgsl `ALPHA_*`). */
export const AlphaModeCode = {
  OPAQUE: 0,
  MASK: 1,
  BLEND: 2,
} as const;

/** `FrameUniforms.toneMapping` values (shaders/pbr.wgsl `TONE_MAP_*`). */
export const ToneMapping = {
  /** Clamp only. */
  NONE: 0,
  /** Khronos PBR Neutral: keeps base colours recognisable up to ~0.8, compresses highlights. */
  PBR_NEUTRAL: 1,
  /** ACES filmic (Narkowicz's fit of the RRT+ODT). */
  ACES: 2,
  /** AgX (Troy Sobotka's, in Benjamin Wrensch's minimal fit): desaturates bright colours towards white. */
  AGX: 3,
} as const;
export type ToneMapping = (typeof ToneMapping)[keyof typeof ToneMapping];

/** One joint matrix in the palette storage buffer: mat4x4f, column-major. */
export const PALETTE_MATRIX_FLOATS = 16;
export const PALETTE_MATRIX_BYTES = PALETTE_MATRIX_FLOATS * 4;

/** Every draw is multisampled this many times and resolved into the target. */
export const MSAA_SAMPLE_COUNT = 4;
export const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus';
/**
 * The transmission pass's copy of the opaque scene (draw/transmission-pass.ts): linear radiance
 * with headroom above 1 (what a highlight behind glass is), filterable for its blurred mips.
 */
export const TRANSMISSION_FORMAT: GPUTextureFormat = 'rgba16float';
