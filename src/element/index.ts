/**
 * `skinned-mesh-webgpu/element`: the `<skinned-mesh-viewer>` and `<extra-model>` elements and
 * their API and types, what a page that only embeds models imports. Importing it registers
 * both tags. Also part of the full API (`.`).
 *
 * @module skinned-mesh-webgpu/element
 */
import { defineExtraModel, ExtraModelElement } from './extra-model.ts';
import { SkinnedMeshViewerElement, TAG_NAME } from './viewer.ts';

/**
 * <skinned-mesh-viewer>, for a page:
 *
 *   <script type="module" src="skinned-mesh-webgpu.min.js"></script>
 *   <skinned-mesh-viewer src="robot.glb" animation="Walk" autoplay loop camera-controls></skinned-mesh-viewer>
 *   <skinned-mesh-viewer builtin="character" autoplay loop></skinned-mesh-viewer>
 *
 * Importing this module registers <skinned-mesh-viewer>. Guarded, because a page can end
 * up importing the library twice (two bundles, or a script tag plus a bundle): the first
 * definition wins, and a different class under the same tag is reported, not thrown.
 */
if (typeof customElements !== 'undefined') {
  // model-viewer's <extra-model> children (first, so the viewer's upgrade sees them defined).
  defineExtraModel();
  const existing = customElements.get(TAG_NAME);
  if (!existing) {
    customElements.define(TAG_NAME, SkinnedMeshViewerElement);
  } else if (existing !== SkinnedMeshViewerElement) {
    console.warn(`<${TAG_NAME}> is already defined by another copy of the library; this copy's element is not registered`);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'skinned-mesh-viewer': SkinnedMeshViewerElement;
    'extra-model': ExtraModelElement;
  }
}

export { SkinnedMeshViewerElement, TAG_NAME } from './viewer.ts';
export { EXTRA_MODEL_TAG, ExtraModelElement, type ExtraModelChangeDetail } from './extra-model.ts';
export type { ViewerCameraOrbit, ViewerVector3 } from './camera/camera-api.ts';
export type { SphericalPosition, Vector2D, Vector3D } from './vector3d.ts';
export type { Finger, Keyframe, Path } from './interact.ts';
export type { ViewerStats } from './frame-loop.ts';
export type { HotspotQuery, HotspotVector2, HotspotVector3, SurfacePoint } from './hotspots/hotspots.ts';
export { DEFAULT_CROSSFADE, DEFAULT_EXPOSURE, DEFAULT_SPEED } from './reflected-attributes.ts';
export type {
  SkinnedMeshViewerCustomEvents, SkinnedMeshViewerEventMap, ViewerAnimationEndDetail, ViewerEnvironmentDetail, ViewerErrorDetail,
  ViewerErrorKind, ViewerLoadDetail, ViewerProgressDetail, ViewerVariantDetail, ViewerCameraChangeDetail, ViewerVisibilityDetail,
  ViewerLoopDetail, ViewerAnimationLayerDetail,
} from './events.ts';
export { parseCameraOrbit, type CameraOrbit, type OrbitRadius } from './attributes.ts';
export type { ToBlobOptions } from './capture.ts';
export type { ExtraModelAttributes, NumberAttribute, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';
export type { AppendAnimationOptions, DetachAnimationOptions, PlayOptions } from './animation-api.ts';
export { loadModelSource, SourceError, type LoadSourceOptions } from './loading/source.ts';
