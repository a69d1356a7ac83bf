/**
 * What a Renderer is made with (RendererOptions), what may change between its frames
 * (RenderSettings) and what it reports of the last frame (RenderStats).
 */
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import type { GltfWarning } from '../../gltf/errors.ts';
import { ToneMapping } from '../layouts/bindings.ts';
import type { AllocationLimits } from '../device/limits.ts';
import { DEFAULT_SHADOW_MAP_SIZE } from './shadow-map.ts';
import type { ImageDecoder } from '../textures/textures.ts';

/** How skinned vertices reach the passes: skinned in each pass's vertex stage, or once by compute (preskin.ts). */
export type SkinningPath = 'vertex' | 'compute';

/**
 * How the vertex stage skins normals (shaders/skinning.wgsl `skinFrame`'s `exactNormals`; skin-normals.ts).
 *
 * - 'exact': always the cofactor of the blended matrix (det · M⁻ᵀ), which is what the CPU
 *   reference (src/skin/cpu-skin.ts) does. The default.
 * - 'fast-when-uniform': the blended 3×3 itself when every joint matrix of the skin is a
 *   rotation times a uniform scale, the cofactor otherwise. Cheaper, but a weighted sum of
 *   two different rotations is not a rotation, so blended vertices' normals tilt away from
 *   the reference (by degrees on real assets: test/gpu/normal-paths.test.ts measures it).
 */
export type SkinnedNormalMode = 'exact' | 'fast-when-uniform';

/**
 * Options of `new Renderer`: the target format, the image decoder, a label, GPU timing, lowered limits and
 * where load warnings go.
 */
export interface RendererOptions {
  /**
   * Format of the views rendered into. An `-srgb` format lets the hardware encode (and
   * blend and resolve in linear light); for a plain `…unorm` format the shader encodes.
   * For a canvas use `configureCanvas(...).viewFormat`, or let `createCanvasRenderer` make the Renderer.
   */
  readonly format: GPUTextureFormat;
  /** Decodes glTF images; default `createImageBitmap` (browser). */
  readonly imageDecoder?: ImageDecoder;
  readonly label?: string;
  /**
   * Measure the frame pass on the GPU (`stats.gpuMs`) when the device has
   * 'timestamp-query'; default true. Costs one query pair, a resolve and a small
   * readback per measured frame.
   */
  readonly gpuTiming?: boolean;
  /**
   * Allocate as if the device's limits were no higher than these (src/gpu/device/limits.ts): a
   * memory budget, and how tests drive the fallbacks (instances drawn in chunks, packed
   * vertex buffers, downscaled textures) on any device. Default: the device's limits.
   */
  readonly limits?: Partial<AllocationLimits>;
  /** What `setModel` had to change to fit the device (a texture downscaled); default console.warn. */
  readonly onWarning?: (warning: GltfWarning) => void;
}

/** Lighting and output settings; change them between frames. Colours are linear RGB. */
export interface RenderSettings {
  /** Multiplies the scene's linear radiance before tone mapping. */
  exposure: number;
  toneMapping: ToneMapping;
  /**
   * Unit vector towards the key light, in view space (x right, y up, z towards the viewer) or
   * world space. The key light, hemisphere and their colours below light the scene only while
   * the renderer has no environment (`renderer.setEnvironment`); with one, it lights the
   * scene alone and casts the shadow from its dominant direction.
   */
  readonly lightDirection: Float32Array;
  lightSpace: 'view' | 'world';
  readonly lightColor: Float32Array;
  lightIntensity: number;
  /** Hemispherical ambient: radiance from above (+Y) and below. */
  readonly skyColor: Float32Array;
  readonly groundColor: Float32Array;
  /** Background, display-referred (sRGB-encoded) RGBA with straight alpha. */
  readonly clearColor: Float32Array;
  /** See SkinnedNormalMode; 'exact' matches the CPU reference. */
  normals: SkinnedNormalMode;
  /**
   * DebugView bits (debug/views.ts; `parseDebugViews` reads the element's attribute): 0
   * draws the model alone. A view's pipelines and buffers are built the first time it is
   * asked for, asynchronously: it appears a few frames later, or right away after
   * `await renderer.prepareDebugViews()`.
   */
  debug: number;
  /** Length of the NORMALS/TANGENTS lines in world units; 0 (default): 5% of the model's rest radius. */
  debugLineLength: number;
  /**
   * How skinned vertices blend their joints: 'linear' (default, LBS), 'dual-quaternion'
   * (DQS: no candy-wrapper collapse under twist) or 'center-of-rotation' (Le & Hodgins 2016:
   * neither the collapse nor DQS's bulge at bent joints). The instance palettes stay
   * matrices; for the last two the renderer converts them into DqJoint entries as it uploads
   * them. A method is made ready the first time a frame asks for it, asynchronously — its
   * pipelines built and, for centres of rotation, the model's centres computed off the
   * page's thread (or read from the file) and uploaded: until then frames keep the previous
   * method (`renderer.skinning` says which ran), or await `renderer.prepareSkinning()`; a
   * model set with it waits, as for its pipelines. Anything but the three counts as linear.
   */
  skinning: SkinningMethod;
  /**
   * The key light casts shadows (shadow-map.ts): a depth pass from the light before the
   * lit pass, 3×3 PCF in the lit shader. Off by default, as in three.js; the light is
   * `lightDirection` (best in 'world' space: a 'view' light turns with the camera, and its
   * shadows with it). Pipelines are built the first time a frame asks: frames draw without
   * shadows until then (`renderer.shadowsReady`), or await `renderer.prepareShadows()`.
   */
  shadows: boolean;
  /** Shadow map width and height in texels; default 2048. */
  shadowMapSize: number;
  /** How dark the shadow is, 0…1 (1, the default: the key light fully blocked; with an environment, the ground fully dark). */
  shadowIntensity: number;
  /** 0…1: the shadow's edge from sharp (0, the default: about four texels) to soft (1: eight times wider). */
  shadowSoftness: number;
  /**
   * Draw the environment (`renderer.setEnvironment`) behind the model instead of the clear
   * colour; off by default, and nothing without an environment. Built on first use (or
   * `await renderer.prepareSkybox()`).
   */
  skybox: boolean;
  /**
   * A matte ground disc under the model at its rest pose's lowest point (ground.ts), which
   * receives the shadow. Off by default; built on first use (or `await renderer.prepareGround()`).
   */
  ground: boolean;
  /**
   * Where skinned vertices are computed (preskin.ts). 'vertex': in the vertex stage of
   * every pass that draws them (the lit pass, and the shadow pass when shadows are on).
   * 'compute': once per frame by a compute pass into a storage buffer both passes read;
   * it also keeps the previous frame's skinned vertices (`renderer.skinnedVertices`).
   * 'auto' (default): the rule measured in bench/gpu/skin-paths.ts (`chooseSkinningPath`:
   * compute from two passes, i.e. with shadows on; vertex for the lit pass alone). Same
   * image either way.
   * The compute path's pipelines are built when a frame first wants it: until then frames
   * take the vertex path (`renderer.skinningPath` says which ran), or await
   * `renderer.prepareComputeSkinning()`.
   */
  skinningPath: 'auto' | SkinningPath;
  /**
   * Frustum-cull instances by their skinned bounds (src/gpu/draw/cpu-culling.ts) and draw the rest
   * nearest first; default true. `stats.culled` counts what was dropped.
   */
  culling: boolean;
  /**
   * Draw MToon materials (VRMC_materials_mtoon, and VRM 0.x MToon converted to it) with the
   * MToon path (shaders/mtoon.wgsl); false draws their glTF fallback instead (PBR or unlit).
   * Default true. Read when a model is set (`setModel`): change it, then set the model again.
   */
  mtoon: boolean;
  /**
   * Multiplies every MToon outline's width: 1 (default) as the file says, 0.5 half as wide,
   * 0 none (the outline draws are then skipped). Read every frame.
   */
  outlineWidth: number;
}

/** A fresh copy of the settings a new Renderer starts with (`renderer.settings`). */
export function defaultRenderSettings(): RenderSettings {
  return {
    exposure: 1,
    toneMapping: ToneMapping.PBR_NEUTRAL,
    lightDirection: Float32Array.of(0.45, 0.75, 0.5),
    lightSpace: 'view',
    lightColor: Float32Array.of(1, 0.98, 0.95),
    lightIntensity: 3,
    skyColor: Float32Array.of(0.42, 0.45, 0.5),
    groundColor: Float32Array.of(0.16, 0.14, 0.12),
    clearColor: Float32Array.of(0.16, 0.17, 0.19, 1),
    normals: 'exact',
    debug: 0,
    debugLineLength: 0,
    skinning: 'linear',
    shadows: false,
    shadowMapSize: DEFAULT_SHADOW_MAP_SIZE,
    shadowIntensity: 1,
    shadowSoftness: 0,
    skybox: false,
    ground: false,
    skinningPath: 'auto',
    culling: true,
    mtoon: true,
    outlineWidth: 1,
  };
}

/**
 * What the last frame cost, for a stats panel. The Renderer updates the fields of one
 * object in place every frame (read them, do not keep the object as a snapshot).
 */
export interface RenderStats {
  /** Frames rendered by this renderer. */
  frames: number;
  /** Draw calls of the last frame, debug overlays included. */
  drawCalls: number;
  /**
   * Model instances drawn (after culling). With GPU culling (a GpuPaletteSource frame) the
   * GPU's count read back a frame or two late, for display only.
   */
  instances: number;
  /** Model instances frustum culling dropped in the last frame (GPU culling: as `instances`, late). */
  culled: number;
  /** Mesh vertices the surface draws transformed (each instance counted). */
  vertices: number;
  /** Triangles of the surface draws (each instance counted). */
  triangles: number;
  /** Joint matrices uploaded (every instance's palettes). */
  joints: number;
  /** Bytes the last frame wrote to the GPU: every `queue.writeBuffer` of the render call (exact). */
  bytesUploaded: number;
  /** CPU milliseconds of the last render call: uniforms, draw records, palette upload, encoding and submit. */
  encodeMs: number;
  /**
   * GPU milliseconds of the frame pass of a recent frame (timestamp queries, read back a
   * frame or two late); undefined without 'timestamp-query' or before the first result.
   */
  gpuMs: number | undefined;
}

/** Stats before the first frame. */
export function createRenderStats(): RenderStats {
  return { frames: 0, drawCalls: 0, instances: 0, culled: 0, vertices: 0, triangles: 0, joints: 0, bytesUploaded: 0, encodeMs: 0, gpuMs: undefined };
}
