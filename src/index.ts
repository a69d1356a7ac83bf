/// <reference types="@webgpu/types" preserve="true" />
/**
 * The library's public API. Importing it registers <skinned-mesh-viewer>. Grouped by tier:
 * tiers 1–3 go from the least code to the most control, each built on the next, and tier 4
 * is tier 3 for many characters of one model at once; loading, bake and the built-in models
 * serve every tier. docs/how-it-works.md ("Four tiers") says when to use which; test/index.test.ts
 * pins the list. Re-exports only: each concern lives in its folder. The optional parts also
 * have subpaths of their own, so a page pays only for what it imports (package.json
 * `exports`): `/element`, `/crowd`, `/retarget`, `/environment`, `/bake`; and the element's typings
 * for frameworks are types-only subpaths: `/react`, `/preact`, `/solid`, `/vue`, `/svelte`.
 *
 * @module skinned-mesh-webgpu
 */

// ── Tier 1: the element. One tag per model; registers itself on import (importing any name of it does). Also `/element`. ──
export {
  DEFAULT_CROSSFADE, DEFAULT_EXPOSURE, DEFAULT_SPEED, EXTRA_MODEL_TAG, ExtraModelElement, loadModelSource, parseCameraOrbit, SkinnedMeshViewerElement,
  SourceError, TAG_NAME,
  type AppendAnimationOptions, type CameraOrbit, type DetachAnimationOptions, type ExtraModelAttributes, type ExtraModelChangeDetail, type Finger,
  type HotspotQuery, type HotspotVector2, type HotspotVector3, type Keyframe, type LoadSourceOptions, type NumberAttribute, type OrbitRadius,
  type Path, type PlayOptions,
  type SkinnedMeshViewerAttributes, type SkinnedMeshViewerCustomEvents, type SkinnedMeshViewerEventMap, type SphericalPosition, type SurfacePoint,
  type ToBlobOptions, type Vector2D, type Vector3D, type ViewerAnimationEndDetail, type ViewerAnimationLayerDetail, type ViewerCameraChangeDetail,
  type ViewerCameraOrbit, type ViewerEnvironmentDetail, type ViewerErrorDetail, type ViewerErrorKind, type ViewerLoadDetail,
  type ViewerLoopDetail, type ViewerProgressDetail, type ViewerStats, type ViewerVariantDetail, type ViewerVector3,
  type ViewerVisibilityDetail,
} from './element/index.ts';

// ── Tier 2: renderer + player, camera and canvas. One model on a canvas the page owns. ──
export { Renderer } from './gpu/renderer.ts';
export { createCanvasRenderer, type CanvasRenderer, type CanvasRendererOptions } from './gpu/canvas-renderer.ts';
export {
  defaultRenderSettings, type RendererOptions, type RenderSettings, type RenderStats, type SkinnedNormalMode, type SkinningPath,
} from './gpu/frame/render-settings.ts';
export { ToneMapping } from './gpu/layouts/bindings.ts';
export { AnimationPlayer } from './anim/player.ts';
export type { ClipLayer, LayerStack } from './anim/layer-stack.ts';
export { OrbitCamera, type Camera } from './gpu/frame/camera.ts';
export { computeInstanceBounds, type Bounds } from './gpu/frame/bounds.ts';
export {
  canvasPixelSize, configureCanvas, observeCanvasSize, requestWebGpuDevice, srgbViewFormat, WebGpuUnsupportedError,
  type ConfigureCanvasOptions, type ConfiguredCanvas, type PixelSize, type RequestDeviceOptions,
} from './gpu/device/device.ts';
export { createOffscreenTarget, readTexturePixels } from './gpu/device/readback.ts';
export { GpuLimitError, type AllocationLimits } from './gpu/device/limits.ts';
export { browserImageDecoder, type DecodedExternalImage, type DecodedImage, type DecodedPixels, type ImageDecoder } from './gpu/textures/textures.ts';

// ── Debug views for tier 2 (RenderSettings.debug): skeleton, wireframe, normals, weights, bounds. ──
export { DEBUG_VIEW_NAMES, DebugView, debugViewNames, parseDebugViews, type DebugViewName } from './gpu/debug/views.ts';

// ── Tier 3: instance + jobs. The pose of one character, step by step, editable between steps. ──
// updateModelInstance is the whole step (pose at a clip time, then matrices and palettes);
// updateMatricesAndPalettes is its second half alone, for a pose the caller edited in between.
export { createModelInstance, updateMatricesAndPalettes, updateModelInstance, type ModelInstance } from './anim/instance.ts';
export { createPose, setRestPose, type Pose } from './anim/pose.ts';
export { createClipCursor, sampleClip, type ClipCursor, type ClipTracks } from './anim/sample.ts';
export { localToModel } from './anim/local-to-model.ts';
export { skinPalette } from './anim/palette.ts';
export { BlendingJob } from './anim/blend.ts';
export { LayerBlendingJob, type BlendLayer } from './anim/blend-layers.ts';
export { findSlot, subtreeMask } from './anim/mask.ts';
export { AdditiveJob, makeAdditiveClip, setIdentityPose } from './anim/additive.ts';
export { TwoBoneIKJob } from './anim/ik.ts';
export { AimJob } from './anim/aim.ts';
export {
  accumulateRootMotion, createRootMotionTrack, lockRootInPlace, RootMotionJob, rootMotionMatrix, type RootMotionTrack,
} from './anim/root-motion.ts';
export { editBindPose } from './anim/bind-pose.ts';
export {
  createSkinnedBounds, SkinnedBoundsJob, type CentersOfPrimitive, type MeshSkinBounds, type SkinnedBounds,
} from './anim/skinned-bounds.ts';
export type { SkinningMethod } from './anim/skinning-method.ts';
export type { MaterialAnimation, MaterialOverlay } from './anim/material-tracks.ts';
export type { NumArray } from './math/types.ts';
export { centerOfRotationBounds } from './skin/centers-of-rotation/bounds.ts';
export { createRayHit, SkinnedRaycaster, type RayHit } from './skin/raycast.ts';
// VRM avatars: the steps `ModelInstance.vrm` runs between the pose and the palettes, usable one by one.
export { MAX_FIXED_STEPS, VrmRuntime, type SpringStepMode } from './anim/vrm/vrm-runtime.ts';
export { loadVrmRuntime } from './anim/vrm/runtime-loader.ts';
export { SpringBoneJob } from './anim/vrm/spring-bones.ts';
export { ExpressionJob } from './anim/vrm/expressions.ts';
export { LookAtJob } from './anim/vrm/look-at.ts';
export { NodeConstraintJob } from './anim/vrm/node-constraints.ts';
export { rotateVrm0 } from './anim/vrm/rotate-vrm0.ts';

// ── Tier 4: batch / crowd. Many characters of one model, one upload and one draw per primitive. ──
// Also `skinned-mesh-webgpu/crowd`.
export * from './crowd/index.ts';

// ── Environments: image-based lighting from .hdr, .exr and 8-bit images. Also `skinned-mesh-webgpu/environment`. ──
export * from './gpu/environment/index.ts';

// ── Loading: glTF bytes → immutable model (every tier starts from a Model). ──
export { loadGltf, type LoadOptions } from './gltf/load.ts';
export { GltfError, type GltfWarning } from './gltf/errors.ts';
export { resolveGltfUri, type UriPolicy } from './gltf/uri.ts';
export type {
  Channel, Clip, ExpressionTrack, Hierarchy, Image, Material, MaterialShading, MaterialTrack, Mesh, MeshNode, Model, MorphTarget, NodeInfo, Primitive,
  QuantizedAttributes, Sampler, Skin, Texture, TextureInfo, TextureSampler, TextureSource,
} from './gltf/model.ts';
export type { AccessorData, AccessorFormat, ComponentArray } from './gltf/accessors.ts';
export type { DrawShape, ModelShape, PrimitiveShape } from './gltf/model-shape.ts';
export type { BudgetState } from './gltf/budget.ts';
export type { ComponentType, Interpolation, TargetPath } from './gltf/constants.ts';
export type { TextureTransform } from './gltf/texture-info.ts';
export type {
  AnisotropyExtension, ClearcoatExtension, DiffuseTransmissionExtension, IridescenceExtension, SheenExtension, SpecularExtension,
  Rgb, TransmissionExtension, VolumeExtension,
} from './gltf/pbr-extensions-model.ts';
export type { MToonMaterial, MToonOutlineWidthMode } from './gltf/mtoon-model.ts';
export type {
  Vrm, Vrm0MaterialProperties, VrmConstraintType, VrmExpression, VrmLookAt, VrmMaterialColorBind, VrmMaterialColorType, VrmMeta, VrmMorphBind, VrmNodeConstraint,
  VrmOverride, VrmRangeMap, VrmSpring, VrmSpringBones, VrmTextureTransformBind,
} from './gltf/vrm-model.ts';

// ── Animation library: clips from other files, retargeted between skeletons (baked into ordinary clips). ──
// Also `skinned-mesh-webgpu/retarget`.
export * from './anim/retarget/index.ts';

// ── Bake: the posed mesh on the CPU (reference skinning) and its writers. Also `skinned-mesh-webgpu/bake`. ──
export * from './bake/index.ts';

// ── Built-in models: procedural, rigged and animated, no files needed. ──
export { buildBuiltinGlb, builtinModelNames, DEFAULT_BUILTIN_MODEL } from './builtin/index.ts';
