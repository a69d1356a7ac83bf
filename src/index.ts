/// <reference types="@webgpu/types" preserve="true" />
/**
 * The library's public API. Importing it registers <skinned-mesh-viewer>; everything
 * else is the pieces the element is built from, for pages that drive the renderer
 * themselves. Re-exports only: each concern lives in its folder.
 */

// The embeddable element (registers itself on import).
export * from './element/index.ts';

// glTF bytes → immutable model.
export { loadGltf, type LoadOptions } from './gltf/load.ts';
export { GltfError, type GltfWarning } from './gltf/errors.ts';
export type {
  Channel, Clip, Hierarchy, Image, Material, Mesh, MeshNode, Model, MorphTarget, NodeInfo, Primitive, Sampler, Skin,
  Texture, TextureInfo, TextureSampler,
} from './gltf/model.ts';

// Animation: the CPU pose evaluator and its player.
export { AnimationPlayer } from './anim/player.ts';
export { createModelInstance, updateMatricesAndPalettes, updateModelInstance, type ModelInstance } from './anim/instance.ts';
export {
  createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, updateInstanceBatch, type InstanceBatch, type InstanceBatchOptions,
} from './anim/batch.ts';
export { BlendingJob } from './anim/blend.ts';
export { Crowd, findRootMotion, type CrowdRootMotion } from './anim/crowd.ts';

// WebGPU: device, renderer, camera.
export {
  canvasPixelSize, configureCanvas, observeCanvasSize, requestWebGpuDevice, srgbViewFormat, WebGpuUnsupportedError,
  type ConfigureCanvasOptions, type ConfiguredCanvas, type PixelSize, type RequestDeviceOptions,
} from './gpu/device.ts';
export { Renderer } from './gpu/renderer.ts';
export { defaultRenderSettings, type RendererOptions, type RenderSettings } from './gpu/render-settings.ts';
export { GpuLimitError, type AllocationLimits } from './gpu/limits.ts';
export { OrbitCamera, type Camera } from './gpu/camera.ts';
export { renderCrowd } from './gpu/render-crowd.ts';
export { computeInstanceBounds, type Bounds } from './gpu/bounds.ts';
export { createOffscreenTarget, readTexturePixels } from './gpu/readback.ts';
export { ToneMapping } from './gpu/layouts.ts';
export { DEBUG_VIEW_NAMES, DebugView, debugViewNames, parseDebugViews, type DebugViewName } from './gpu/debug-views.ts';
export type { SkinnedNormalMode } from './gpu/skin-normals.ts';
export { browserImageDecoder, type DecodedExternalImage, type DecodedImage, type DecodedPixels, type ImageDecoder } from './gpu/textures.ts';

// Posing on the CPU: reference skinning and the bake (posed mesh export).
export { createSkinnedVertices, skinPrimitive, type SkinnedVertices } from './skin/cpu-skin.ts';
export { bakeModel, resolveAnimation, type BakedPrimitive, type BakeOptions, type BakeResult } from './bake/bake.ts';
export { bakeToGlb } from './bake/glb.ts';
export { bakeToJson } from './bake/json.ts';
export { bakeToObj } from './bake/obj.ts';

// Procedural models that need no files.
export { buildBuiltinGlb, builtinModelNames, DEFAULT_BUILTIN_MODEL } from './builtin/index.ts';
