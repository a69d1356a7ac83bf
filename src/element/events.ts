/**
 * The events <skinned-mesh-viewer> dispatches, as CustomEvents with typed details. None
 * bubbles (like a media element's): listen on the element itself.
 */
import type { GltfWarning } from '../gltf/errors.ts';

/**
 * The detail of `progress`: bytes received of the model and its external files, and model-viewer's 0…1
 * progress.
 */
export interface ViewerProgressDetail {
  /** Bytes received so far, over the model file and its external resources. */
  readonly loaded: number;
  /** Announced size in bytes (Content-Length); 0 while unknown. */
  readonly total: number;
  /** model-viewer's: 0…1 (loaded / total; 0 while the size is unknown; 1 once the model is on the GPU). */
  readonly totalProgress: number;
  /** model-viewer's: what progresses (`model-load`). */
  readonly reason: 'model-load';
}

/** The detail of `load`: which source loaded, and what the loader repaired or ignored on the way. */
export interface ViewerLoadDetail {
  /** The source that loaded: the `src` value, or `builtin:NAME`. */
  readonly src: string;
  /** model-viewer's name for `src`. */
  readonly url: string;
  /**
   * What the loader repaired or ignored (the model's `warnings`), each naming its glTF JSON path;
   * empty for a clean file. The element also logs them, once per load, with console.warn.
   */
  readonly warnings: readonly GltfWarning[];
}

/**
 * What an `error` event is about: no WebGPU here, a source that could not be fetched or parsed, or a failed
 * upload or frame.
 */
export type ViewerErrorKind = 'webgpu-unsupported' | 'load' | 'gpu';

/**
 * The detail of `error`: the message the element also shows, its kind, the source and the thrown value (with
 * model-viewer's names for them).
 */
export interface ViewerErrorDetail {
  /**
   * What went wrong, in the loader's words (a GltfError's message starts with the JSON path
   * at fault); the element shows the same text.
   */
  readonly message: string;
  /** `webgpu-unsupported`: no WebGPU here; `load`: the source could not be fetched or parsed; `gpu`: upload or rendering failed. */
  readonly kind: ViewerErrorKind;
  /** The source being loaded, when the error is about one. */
  readonly src: string | undefined;
  /** The thrown value (GltfError, SourceError, WebGpuUnsupportedError, …). */
  readonly error: unknown;
  /** model-viewer's: `loadfailure` (for every kind: the model could not be shown). */
  readonly type: 'loadfailure';
  /** model-viewer's name for `error`. */
  readonly sourceError: unknown;
}

/** The detail of `finished` and `animationend`: the clip whose last pass ended. */
export interface ViewerAnimationEndDetail {
  /** Index of the clip that reached its end. */
  readonly index: number;
  readonly name: string | undefined;
}

/** The detail of `variant-applied`: the material variant now drawn. */
export interface ViewerVariantDetail {
  /** The `variant-name` value the shown materials follow now (null: the file's own). */
  readonly name: string | null;
}

/** The detail of `loop`: the passes completed and the clip's name. */
export interface ViewerLoopDetail {
  /** Passes of the clip completed since play(). */
  readonly count: number;
  /** The clip's name (model-viewer 4.4's detail has it too). */
  readonly name: string | undefined;
}

/** The detail of `camera-change`: what moved the camera. */
export interface ViewerCameraChangeDetail {
  /** `user-interaction`: camera controls; `automatic`: auto-rotate; `none`: an attribute or a method. */
  readonly source: 'user-interaction' | 'none' | 'automatic';
}

/** The detail of `model-visibility`: whether the model can be seen now. */
export interface ViewerVisibilityDetail {
  /** The model is drawn, not behind the poster, and the element on screen. */
  readonly visible: boolean;
}

/** The detail of `environment-change`: the environment and skybox now shown. */
export interface ViewerEnvironmentDetail {
  /** The `environment-image` value now shown (null: the default, `neutral`). */
  readonly environmentImage: string | null;
  /** The `skybox-image` value now shown (null: none). */
  readonly skyboxImage: string | null;
}

/** The detail of `append-animation` and `detach-animation`: the clip appended or detached. */
export interface ViewerAnimationLayerDetail {
  /** The clip appended or detached (model-viewer's events carry no detail; the name is ours). */
  readonly name: string;
}

/** Event types of <skinned-mesh-viewer> whose detail differs from HTMLElementEventMap's. */
export interface SkinnedMeshViewerCustomEvents {
  progress: CustomEvent<ViewerProgressDetail>;
  load: CustomEvent<ViewerLoadDetail>;
  error: CustomEvent<ViewerErrorDetail>;
  animationend: CustomEvent<ViewerAnimationEndDetail>;
  /** After a change of `variant-name` shows (as model-viewer's event of that name). */
  'variant-applied': CustomEvent<ViewerVariantDetail>;
  /** The clip started another pass (`play({repetitions})`, `loop`): `count` passes are done. */
  loop: CustomEvent<ViewerLoopDetail>;
  /** play() started playback (model-viewer's event). */
  play: CustomEvent<Record<string, never>>;
  /** pause() stopped it (model-viewer's event). */
  pause: CustomEvent<Record<string, never>>;
  /** appendAnimation() layered a clip (model-viewer 4.4's event). */
  'append-animation': CustomEvent<ViewerAnimationLayerDetail>;
  /** detachAnimation() took an appended clip off, or started fading it out (model-viewer 4.4's event). */
  'detach-animation': CustomEvent<ViewerAnimationLayerDetail>;
  /**
   * A model was loaded and framed and its first frame is about to be drawn: once per load, before
   * `load` (model-viewer 4.4's event, for pages that change the model before anyone sees it).
   */
  'before-render': CustomEvent<Record<string, never>>;
  /** A scripted gesture (interact()) ended: played to its end (`automatic`), or stopped by the user or by a camera change. */
  'interact-stopped': CustomEvent<ViewerCameraChangeDetail>;
  /** The last pass ended (with `animationend`); model-viewer's event. */
  finished: CustomEvent<Record<string, never>>;
  /** The camera moved this frame (model-viewer's event; one event object per source, reused). */
  'camera-change': CustomEvent<ViewerCameraChangeDetail>;
  /** The poster came down (model-viewer's event). */
  'poster-dismissed': CustomEvent<Record<string, never>>;
  /** The model became visible to the user, or stopped being (model-viewer's event). */
  'model-visibility': CustomEvent<ViewerVisibilityDetail>;
  /** A new `environment-image` / `skybox-image` shows (as model-viewer's event of that name). */
  'environment-change': CustomEvent<ViewerEnvironmentDetail>;
}

/** Every event a <skinned-mesh-viewer> can dispatch, for typed addEventListener. */
export type SkinnedMeshViewerEventMap = Omit<HTMLElementEventMap, keyof SkinnedMeshViewerCustomEvents> & SkinnedMeshViewerCustomEvents;

/** Dispatches one of the element's own events on `target`, with its typed detail (not bubbling, as every event of the element). */
export function emitViewerEvent<K extends keyof SkinnedMeshViewerCustomEvents>(
  target: EventTarget, type: K, detail: SkinnedMeshViewerCustomEvents[K] extends CustomEvent<infer D> ? D : never,
): void {
  target.dispatchEvent(new CustomEvent(type, { detail }));
}
