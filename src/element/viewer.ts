import type { AnimationPlayer } from '../anim/player.ts';
import { DEFAULT_SKINNING } from '../anim/skinning-method.ts';
import { setIdentity } from '../math/trs.ts';
import type { Model } from '../gltf/model.ts';
import type { Bounds } from '../gpu/frame/bounds.ts';
import type { AppendAnimationOptions, DetachAnimationOptions, PlayOptions } from './animation-api.ts';
import { CameraApi, type ViewerCameraOrbit, type ViewerVector3 } from './camera/camera-api.ts';
import { vector3d } from './vector3d.ts';
import { readModelMatrix } from './model-transform.ts';
import { ViewerImages, type ToBlobOptions } from './capture.ts';
import { emitViewerEvent, type SkinnedMeshViewerEventMap, type ViewerErrorKind } from './events.ts';
import { FrameLoop, type ViewerStats } from './frame-loop.ts';
import { animatedBounds, ViewerCamera } from './camera/framing.ts';
import { GpuSession, readViewerSettings, type GpuState } from './gpu-session.ts';
import { ViewerHotspots, type HotspotQuery, type SurfacePoint } from './hotspots/hotspots.ts';
import { ViewerLighting } from './lighting.ts';
import { ModelLoader } from './loading/model-loader.ts';
import {
  defineReflectedProperties, REFLECTED_ATTRIBUTES, reflectedAttribute, type ReflectedProperties,
} from './reflected-attributes.ts';
import { PosterView } from './loading/poster.ts';
import { elementSource, loadModelSource } from './loading/source.ts';
import { addAnimationSources } from './loading/animation-sources.ts';
import { variantIndex } from './variants.ts';
import { checkCrowdAttribute, DEFAULT_CROWD_EVALUATOR, loadCrowdCode, parseCrowdEvaluator, ViewerStage } from './stage.ts';
import { clipNames, ViewerPlayback } from './playback.ts';
import { ViewerShadow } from './template.ts';
import { ViewerA11y } from './a11y.ts';
import { ViewerExtraModels } from './extra-model.ts';
import type { Finger } from './interact.ts';
import { displayName, HTMLElementBase, TAG_NAME, upgradeProperties, warnOnce } from './page.ts';
import { logLoadWarnings } from './loading/load-warnings.ts';
import { attachVrm, defineVrmApi, type VrmElementApi } from './vrm-api.ts';

export { TAG_NAME } from './page.ts';

let nextViewerId = 1;
/** Share of model-viewer's `totalProgress` the download counts for; the GPU upload is the rest. */
const PROGRESS_BEFORE_UPLOAD = 0.95;

/**
 * `<skinned-mesh-viewer>`: shows a skinned glTF model and plays its animations with
 * WebGPU, following <model-viewer>'s conventions for attributes, methods and events.
 *
 * Life cycle: while in the page it holds a canvas configured on the page's shared
 * GPUDevice, a Renderer with the model uploaded, a ResizeObserver, an
 * IntersectionObserver and at most one pending animation frame. Removal frees all of
 * them (the parsed Model stays, so re-insertion only re-uploads). It animates only while
 * on screen, and draws only when something changed, the camera moves or a clip plays.
 *
 * The class wires attributes, events and its shadow DOM to parts of one concern each:
 * GpuSession (device, renderer, uploads), ModelLoader (which model is shown, which load
 * may still commit), FrameLoop (when and what a frame draws), PosterView (poster, loading,
 * reveal), CameraApi + ViewerCamera (camera attributes, goal and easing) and ViewerPlayback
 * (the player, play/pause, clips, passes and appended clips). Attributes and their properties are the table in
 * reflected-attributes.ts.
 */
export class SkinnedMeshViewerElement extends HTMLElementBase {
  /** The table's attributes, and model-viewer's `a11y` (its property also takes an object). */
  static readonly observedAttributes = [...REFLECTED_ATTRIBUTES.map((row) => row.attribute), 'a11y'];

  // The properties of ReflectedProperties, declared on the interface below.
  static {
    defineReflectedProperties(this.prototype);
    defineVrmApi(this.prototype);
  }

  private readonly viewerId = nextViewerId++;
  private readonly vrm = attachVrm(this, { getAttribute: (n) => this.getAttribute(n), hasAttribute: (n) => this.hasAttribute(n), placement: () => this.stage?.singlePlacement() ?? null, eye: () => this.view.camera.eye, warn: warnOnce, invalidate: () => this.frames.invalidate() });
  private readonly shadow: ViewerShadow;
  private readonly canvas: HTMLCanvasElement;
  private readonly view = new ViewerCamera();
  private readonly resizeObserver: ResizeObserver;
  private readonly intersectionObserver: IntersectionObserver;
  /** The poster, and when the model may load and must show (`poster`, `loading`, `reveal`). */
  private readonly posterView: PosterView;
  /** Camera attributes, getters and the interaction prompt. */
  private readonly cameraApi: CameraApi;
  /** The canvas's label, the element's tab stop and the live region (`alt`, `a11y`). */
  private readonly accessibility: ViewerA11y;
  /** capture(), toBlob(), toDataURL(). */
  private readonly images: ViewerImages;
  /** `<extra-model>` children, loaded and composed with the element's own source. */
  private readonly extraModels: ViewerExtraModels;

  // Connection to the page.
  private attached = false;
  private readonly session: GpuSession;
  private readonly frames: FrameLoop;
  private readonly hotspots: ViewerHotspots;

  // The model: the loader's, shown by a player and the stage around it.
  private readonly loader: ModelLoader<GpuState>;
  private readonly playback: ViewerPlayback;
  /** Root motion and crowds around the player (see ViewerStage); one per loaded model. */
  private stage: ViewerStage | undefined;
  private bounds: Bounds | undefined;
  /** Bytes the current load has received (the final `progress` event repeats them). */
  private loaderBytes = 0;

  /** environment-image, skybox-image, tone-mapping, shadow-intensity, shadow-softness. */
  private readonly lighting: ViewerLighting;

  /** `orientation` and `scale`, parsed once per attribute change. */
  private readonly modelMatrix = setIdentity(new Float64Array(16));

  constructor() {
    super();
    this.shadow = new ViewerShadow(this.attachShadow({ mode: 'open' }));
    this.canvas = this.shadow.canvas;
    this.playback = new ViewerPlayback(this, {
      emit: (type, detail) => emitViewerEvent(this, type, detail),
      layerChanged: (type, name) => emitViewerEvent(this, type, { name }),
      looped: (count) => emitViewerEvent(this, 'loop', { count, name: this.animations[this.playback.player?.clip ?? -1] }),
      stage: () => this.stage,
      invalidate: () => this.frames.invalidate(),
    });
    this.cameraApi = new CameraApi(this, this.view, this.shadow, warnOnce, () => this.frames.invalidate());
    this.accessibility = new ViewerA11y({ element: this, image: this.canvas, status: this.shadow.status, warn: warnOnce });
    this.images = new ViewerImages({
      canvas: this.canvas, label: `<${TAG_NAME}> #${this.viewerId}`, idealAspect: () => (this.bounds ? this.view.idealAspect : undefined),
      frameSource: () => {
        const gpu = this.session.gpu, player = this.playback.player;
        return gpu && player && gpu.uploaded === player.model ? { gpu, player, stage: this.stage, draw: (g, t, p, stage) => this.frames.draw(g, t, p, stage) } : undefined;
      },
    });
    this.extraModels = new ViewerExtraModels({
      element: this, warn: warnOnce, shownModel: () => this.loader.model, placed: () => this.partMoved(),
      reload: () => { if (this.attached && this.posterView.state.mayLoad()) this.loader.start(this.source); },
    });
    this.lighting = new ViewerLighting({
      getAttribute: (name) => this.getAttribute(name),
      baseUrl: () => document.baseURI,
      invalidate: () => this.frames.invalidate(),
      environmentChanged: () => emitViewerEvent(this, 'environment-change', { environmentImage: this.environmentImage, skyboxImage: this.skyboxImage }),
      warn: warnOnce,
      failed: (attribute, error) => warnOnce(`${attribute}="${this.getAttribute(attribute)}" could not be used: ${(error as Error).message}`),
    });
    this.session = new GpuSession(this.canvas, `<${TAG_NAME}> #${this.viewerId}`, {
      model: () => this.loader.model,
      settings: () => readViewerSettings(this, this.lighting.shadowIntensity, warnOnce),
      configure: (gpu) => this.lighting.apply(gpu.renderer, gpu.device, this.shadows),
      variant: (model) => variantIndex(model, this.variantName, warnOnce),
      variantApplied: () => emitViewerEvent(this, 'variant-applied', { name: this.variantName }),
      invalidate: () => this.frames.invalidate(),
      deviceFailed: (error, unsupported) => {
        // Nothing could be shown: stop fetching.
        this.loader.cancel();
        this.fail(unsupported ? 'webgpu-unsupported' : 'gpu', error, undefined);
      },
      uploadFailed: (error) => this.fail('gpu', error, this.loader.source),
      settingFailed: (attribute, error) => warnOnce(`${attribute}="${this.getAttribute(attribute)}" could not be drawn: ${(error as Error).message}`),
    });
    this.loader = new ModelLoader<GpuState>({
      fetch: async (source, signal, onProgress) => {
        // Fetched beside the model, so the crowd is drawn from the first frame (else: one character, then the crowd).
        const crowdCode = this.instances > 1 ? loadCrowdCode().catch(() => undefined) : undefined;
        const model = await addAnimationSources(
          await this.extraModels.load(elementSource(this), source, (src, progress) => loadModelSource(src, {
            baseUrl: document.baseURI, signal, onProgress: progress, credentials: this.withCredentials ? 'include' : undefined, onShape: (shape) => this.session.forecast(shape),
          }), onProgress),
          this.getAttribute('animation-src'), { baseUrl: document.baseURI, signal, warn: warnOnce },
        );
        return crowdCode ? crowdCode.then(() => model) : model;
      },
      gpu: () => this.session.ready!,
      // The model shows under its environment from the first frame; its pipelines compile while that is prefiltered.
      upload: async (gpu, model) => void await Promise.all([this.lighting.ready(), this.session.upload(gpu, model), this.hotspots.ready()]),
      unsupportedMessage: () => this.session.unsupportedMessage,
      loadStarted: () => {
        this.loaderBytes = 0;
        this.shadow.setProgress(0, 0);
        this.accessibility.loading();
        // model-viewer's first progress event of a load is 0: a page's own bar shows from the start.
        emitViewerEvent(this, 'progress', { loaded: 0, total: 0, totalProgress: 0, reason: 'model-load' });
      },
      loadProgress: (loaded, total) => {
        this.loaderBytes = loaded;
        this.shadow.setProgress(loaded, total);
        emitViewerEvent(this, 'progress', { loaded, total, totalProgress: total > 0 ? Math.min(1, loaded / total) * PROGRESS_BEFORE_UPLOAD : 0, reason: 'model-load' });
      },
      loadStopped: () => this.shadow.hideProgress(),
      message: (text) => this.shadow.showMessage(text),
      committed: (source, model) => this.showLoaded(source, model),
      cleared: () => this.clearModel(),
      failed: (phase, error, source) => this.fail(phase, error, source),
    });
    this.frames = new FrameLoop(this.canvas, this.session, this.view, {
      player: () => this.playback.player,
      stage: () => this.stage,
      beforeRender: () => this.beforeRender,
      animationEnded: (player) => {
        emitViewerEvent(this, 'animationend', { index: player.clip, name: player.model.animations[player.clip].name });
        emitViewerEvent(this, 'finished', {});
      },
      advance: (player, dt) => this.playback.api.advance(player, dt),
      vrm: (player, elapsed, changed) => this.vrm.frame(player, elapsed, changed),
      frameDrawn: () => {
        this.posterView.frameDrawn();
        this.hotspots.drawn();
      },
      cameraChanged: () => {
        this.cameraApi.dispatchChange();
        this.accessibility.cameraMoved(this.view.theta, this.view.phi);
      },
    });
    this.posterView = new PosterView(this, this.shadow.posterContainer, this.shadow.defaultPoster, this.shadow.container, {
      loadAllowed: () => { if (this.attached) this.loader.connected(this.source); },
      dismissed: () => emitViewerEvent(this, 'poster-dismissed', {}),
      visibilityChanged: (visible) => {
        this.cameraApi.modelVisible(visible);
        emitViewerEvent(this, 'model-visibility', { visible });
      },
    });
    this.hotspots = new ViewerHotspots(this, this.shadowRoot!.querySelector<HTMLElement>('.container')!, {
      camera: () => this.view.camera,
      instance: () => (this.stage && this.stage.instances > 1 ? undefined : this.playback.player?.instance),
      placement: () => this.stage?.singlePlacement() ?? null,
      skinning: () => this.session.gpu?.renderer.skinning ?? DEFAULT_SKINNING,
      invalidate: () => this.frames.invalidate(),
    }, warnOnce);
    this.resizeObserver = new ResizeObserver((entries) => this.frames.resized(entries[entries.length - 1]));
    this.intersectionObserver = new IntersectionObserver((entries) => {
      const onScreen = entries[entries.length - 1].isIntersecting;
      this.frames.setVisible(onScreen);
      this.posterView.setOnScreen(onScreen);
    });
  }

  // ---------------------------------------------------------------- playback and state

  /**
   * model-viewer's `a11y`: the words the live region says for each side the camera views the
   * model from (`front`, `upper-left`, …) and `interaction-prompt`, as an object or a JSON string
   * (the attribute); null: model-viewer's defaults ("View from stage front").
   */
  get a11y(): unknown { return this.accessibility.a11y; }
  set a11y(value: unknown) { this.accessibility.a11y = value; }

  /** The loaded model (kept across removal from the page). */
  get model(): Model | undefined { return this.loader.model; }

  /** True once the model of the current source is loaded and on the GPU; false while a new source loads. */
  get loaded(): boolean { return this.loader.loaded; }

  /** Clip names in file order; an unnamed clip is listed by its index. */
  get animations(): string[] { return clipNames(this.loader.model); }

  /** model-viewer's name for `animations`. */
  get availableAnimations(): string[] { return this.animations; }

  /** model-viewer's name for `speed` (the playback rate; negative plays backwards). */
  get timeScale(): number { return this.speed; }
  set timeScale(value: number) { this.speed = value; }

  /** The model's KHR_materials_variants names, for `variant-name` (empty without a model or variants). */
  get availableVariants(): string[] { return [...(this.loader.model?.variants ?? [])]; }

  get paused(): boolean { return this.playback.paused; }

  /** Seconds of the current clip (0 for none). */
  get duration(): number { return this.playback.player?.duration ?? 0; }

  /** Seconds into the current clip; setting seeks (wrapped when looping, else clamped). */
  get currentTime(): number { return this.playback.player?.time ?? 0; }
  set currentTime(value: number) {
    if (!this.playback.player || !Number.isFinite(value)) return;
    this.playback.player.seek(value);
    this.frames.invalidate();
  }

  /**
   * Plays the clip (model-viewer's `play`): `repetitions` passes (by default Infinity: for
   * ever, as 4.4's), alternating direction with `pingpong`. Fires `play` when playback starts.
   */
  play(options?: PlayOptions): void { this.playback.play(options); }

  /** Fires `pause` when it stops playback. */
  pause(): void { this.playback.pause(); }

  /**
   * Layers clip `name` over the playing one (model-viewer's `appendAnimation`): an override
   * layer of the player's LayerStack with its own weight, rate, fade-in and warp; appending
   * a name again replaces it.
   */
  appendAnimation(name: string, options: AppendAnimationOptions = {}): void { this.playback.appendAnimation(name, options); }

  /** Removes an appended clip, fading it out (by default over the crossfade duration). */
  detachAnimation(name: string, options: DetachAnimationOptions = {}): void { this.playback.detachAnimation(name, options); }

  /** The appended clips' names, in the order they apply. */
  get appendedAnimations(): string[] { return this.playback.api.names; }

  /**
   * Blends to another clip over `seconds` (default `crossfadeDuration`) while playing;
   * when paused, cuts to it. The `animation` attribute follows.
   */
  crossfadeTo(nameOrIndex: string | number, seconds: number = this.playback.crossfadeSeconds()): void {
    this.playback.crossfadeTo(nameOrIndex, seconds);
  }

  /** Where the camera is now (easing towards its goal, after any user interaction). */
  getCameraOrbit(): ViewerCameraOrbit { return this.cameraApi.getCameraOrbit(); }

  /** What the camera looks at now, metres. */
  getCameraTarget(): ViewerVector3 { return this.cameraApi.getCameraTarget(); }

  /** The vertical field of view now, degrees. */
  getFieldOfView(): number { return this.cameraApi.getFieldOfView(); }

  /** The field-of-view limits, degrees (`min-`/`max-field-of-view`). */
  getMinimumFieldOfView(): number { return this.cameraApi.getFieldOfViewLimits()[0]; }
  /** The largest field of view allowed now, degrees (`max-field-of-view`, widened for a narrow element). */
  getMaximumFieldOfView(): number { return this.cameraApi.getFieldOfViewLimits()[1]; }

  /** Width over height the framed model needs (what `toBlob({idealAspect: true})` uses). */
  getIdealAspect(): number { return this.bounds ? this.view.idealAspect : 1; }

  /** The angle `auto-rotate` has turned the model by, radians about +Y (model-viewer 4.4's `turntableRotation`). */
  get turntableRotation(): number { return this.view.turntable; }
  /** The same angle as `turntableRotation`, radians (model-viewer 4.4's method form). */
  getTurntableRotation(): number { return this.view.turntable; }

  /** model-viewer's `zoom(keyPresses)`: zooms in (positive) or out as that many wheel steps would, with camera controls. */
  zoom(keyPresses: number): void { this.cameraApi.controls.zoomSteps(keyPresses); }

  /** model-viewer's `interact(duration, finger0, finger1?)`: a scripted touch gesture for the camera controls (interact.ts). */
  interact(duration: number, finger0: Finger, finger1?: Finger): void { this.cameraApi.interact(duration, finger0, finger1); }

  /** Turns the model back to `theta` radians (default 0). */
  resetTurntableRotation(theta = 0): void {
    this.view.turntable = theta;
    this.frames.invalidate();
  }

  /** The interaction prompt may show again, as if nobody had interacted. */
  resetInteractionPrompt(): void { this.cameraApi.resetPrompt(this.modelIsVisible); }

  /** Ends the easing: the camera is at its goal in the next frame. */
  jumpCameraToGoal(): void {
    this.view.jumpToGoal();
    this.frames.invalidate();
  }

  /** Frames the current pose's sweep again (after the page changed the model's motion or size). */
  async updateFraming(): Promise<void> {
    const player = this.playback.player, stage = this.stage;
    if (!player || !stage) return;
    stage.setBaseBounds(animatedBounds(player, (p) => stage.lockRoot(p)));
    this.bounds = stage.framingBounds();
    this.view.setBounds(this.bounds);
    this.frames.invalidate();
  }

  /**
   * The frame as currently shown, at the canvas's pixel size, as an image file (PNG by
   * default; `image/jpeg` and `image/webp` take a quality 0…1). Rendered again into an
   * offscreen texture and read back, so it works whatever the canvas compositing does.
   */
  capture(type = 'image/png', quality?: number): Promise<Blob> { return this.images.capture(type, quality); }

  /** model-viewer's `toBlob`: as capture(), or with `idealAspect` as wide as the framed model needs. */
  toBlob(options: ToBlobOptions = {}): Promise<Blob> { return this.images.toBlob(options); }

  /** model-viewer's `toDataURL`: synchronous, a frame drawn now and encoded by the canvas. */
  toDataURL(type = 'image/png', encoderOptions?: number): string { return this.images.toDataURL(type, encoderOptions); }

  /** The model's box size after `orientation` and `scale`, metres (its clip's sweep, in place). */
  getDimensions(): ViewerVector3 {
    const b = this.stage?.modelBounds();
    return b ? vector3d(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) : vector3d(0, 0, 0);
  }

  /** The centre of that box, metres. */
  getBoundingBoxCenter(): ViewerVector3 {
    const c = this.stage?.modelBounds().center;
    return c ? vector3d(c[0], c[1], c[2]) : vector3d(0, 0, 0);
  }

  /**
   * Takes the poster down (`reveal="manual"`): now if the model is drawn, else with its
   * first frame, starting the load if it was waiting for this. Fires `poster-dismissed`.
   */
  dismissPoster(): void {
    this.posterView.dismiss();
  }

  /** Puts the poster back up over the model, until the next `dismissPoster()`. */
  showPoster(): void {
    this.posterView.show();
  }

  /** The model is drawn, not behind the poster, and the element is on screen. */
  get modelIsVisible(): boolean {
    return this.posterView.state.modelVisible(this.frames.onScreen);
  }

  /**
   * The point of the model under CSS pixel (x, y) of the element (from its top-left), on the
   * skinned surface as drawn this frame, in model coordinates (ready for `data-position` /
   * `data-normal`); null when that pixel shows no model. As model-viewer's.
   */
  positionAndNormalFromPoint(x: number, y: number): SurfacePoint | null {
    return this.hotspots.positionAndNormalFromPoint(x, y);
  }

  /** model-viewer's `surfaceFromPoint(x, y)`: a `data-surface` value for the point under the pixel, or null. */
  surfaceFromPoint(x: number, y: number): string | null {
    return this.hotspots.surfaceFromPoint(x, y);
  }

  /** model-viewer's `updateHotspot({name, position, normal})` (hotspots.ts). */
  updateHotspot(config: { name: string; position?: string; normal?: string }): void {
    this.hotspots.updateHotspot(config);
  }

  /** model-viewer's `queryHotspot(name)`: where the hotspot was last drawn, or null. */
  queryHotspot(name: string): HotspotQuery | null {
    return this.hotspots.queryHotspot(name);
  }

  // ---------------------------------------------------------------- custom element callbacks

  /** Custom-element callback (the browser calls it): sets up the canvas, GPU session and load. */
  connectedCallback(): void {
    upgradeProperties(this, [...REFLECTED_ATTRIBUTES, { property: 'a11y' }]);
    // Moved within one task (disconnected then connected again): nothing was torn down.
    if (!this.attached) this.setUp();
  }

  /** Custom-element callback: releases the GPU session (not when the element only moves within one task). */
  disconnectedCallback(): void {
    // Deferred so that moving the element (remove + insert in one task) keeps its GPU state.
    queueMicrotask(() => {
      if (!this.isConnected && this.attached) this.tearDown();
    });
  }

  /** Custom-element callback: applies a changed attribute (see the attribute table in docs/element.md). */
  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue) return;
    if (name === 'a11y') this.a11y = newValue;
    const reaction = reflectedAttribute(name)?.reaction;
    switch (reaction) {
      case 'reload':
        if (this.attached && this.posterView.state.mayLoad()) this.loader.sourceChanged(this.source);
        break;
      case 'animation-src':
        if (this.attached && this.source !== undefined) this.loader.start(this.source);
        break;
      case 'poster':
        this.posterView.setImage(newValue);
        break;
      case 'reveal':
        this.posterView.readModes(this.getAttribute('loading'), this.getAttribute('reveal'), warnOnce);
        break;
      case 'clip': case 'autoplay': case 'loop': case 'speed':
        this.playback.attributeChanged(reaction);
        break;
      case 'controls':
        this.cameraApi.controls.setEnabled(this.cameraControls);
        this.accessibility.updateLabel();
        break;
      case 'frame': case 'camera-target': case 'field-of-view': case 'field-of-view-limits': case 'orbit-limits': case 'camera-motion':
      case 'interaction':
        this.cameraApi.attributeChanged(reaction);
        this.frames.invalidate();
        break;
      case 'settings': case 'background': case 'debug': case 'skinning': case 'lighting':
        this.applySettings();
        break;
      case 'label':
        this.accessibility.updateLabel();
        break;
      case 'crowd':
        checkCrowdAttribute(name, newValue, warnOnce);
        if (this.stage && this.playback.player) {
          this.configureStage(this.stage, this.playback.player);
          this.stage.setInstances(this.instances, this.playback.player);
          this.reframe();
        }
        break;
      case 'root-motion':
        if (this.stage && this.playback.player) {
          this.stage.setRootMotion(this.rootMotion, this.playback.player);
          this.reframe();
        }
        break;
      case 'variant':
        this.session.applyVariant();
        break;
      case 'model-transform':
        readModelMatrix(this.getAttribute('orientation'), this.getAttribute('scale'), warnOnce, this.modelMatrix);
        this.stage?.setModelMatrix(this.modelMatrix);
        this.frames.invalidate();
        break;
      case 'vrm': this.vrm.attributesChanged(); this.stage?.setVrm0Turn(this.getAttribute('vrm0-turn') !== 'off'); this.frames.invalidate(); break;
      case 'none': case undefined: break;
    }
  }

  // ---------------------------------------------------------------- connection

  private setUp(): void {
    this.attached = true;
    this.accessibility.connect();
    try {
      this.resizeObserver.observe(this.canvas, { box: 'device-pixel-content-box' });
    } catch {
      // Safari before 15.4 has no device-pixel-content-box.
      this.resizeObserver.observe(this.canvas, { box: 'content-box' });
    }
    this.intersectionObserver.observe(this);
    this.hotspots.connect();
    this.extraModels.connect();
    // Without navigator.gpu nothing can be shown: the session reports it; fetch nothing.
    if (typeof navigator === 'undefined' || !navigator.gpu) return this.session.open();
    this.posterView.attach();
    // The device is asked for now; it is taken up, and `neutral`'s CPU prefilter starts, once the model's fetch is out (or the load waits for the viewport): PosterView.observed.
    const observed = this.posterView.observed();
    this.session.open(observed);
    this.lighting.prefilterAhead(observed);
    if (this.posterView.state.mayLoad()) this.loader.connected(this.source);
  }

  private tearDown(): void {
    this.attached = false;
    this.resizeObserver.disconnect();
    this.intersectionObserver.disconnect();
    this.hotspots.disconnect();
    this.extraModels.disconnect();
    this.accessibility.disconnect();
    this.posterView.detach();
    this.cameraApi.stop();
    this.frames.stop();
    // A load in flight restarts on re-insertion; nothing of it is kept.
    this.loader.cancel();
    this.session.close();
    this.lighting.release();
    // A drag in progress ends with the element; its pointer capture is already gone.
    this.cameraApi.controls.cancelGestures();
  }

  // ---------------------------------------------------------------- loading

  /** What loads: the element's own source (`src`, `builtin`), else (model-viewer's hero) its first `<extra-model>`'s. */
  private get source(): string | undefined {
    return elementSource(this) ?? this.extraModels.firstSource();
  }

  /** An `<extra-model>` moved: the pose starts from its new place; bounds and a crowd follow. */
  private partMoved(): void {
    const player = this.playback.player, stage = this.stage;
    if (!player || !stage) return;
    player.evaluate();
    stage.restChanged(player, () => animatedBounds(player, (p) => stage.lockRoot(p)));
    this.frames.invalidate();
  }

  /** The crowd's evaluator (`crowd-evaluator`) and the device a GPU one runs on. */
  private configureStage(stage: ViewerStage, player: AnimationPlayer): void {
    stage.evaluator = parseCrowdEvaluator(this.crowdEvaluator) ?? DEFAULT_CROWD_EVALUATOR;
    stage.useDevice(this.session.gpu?.device, player);
  }

  /** The loader committed `model`: play it, frame it, draw it. */
  private showLoaded(source: string, model: Model): void {
    const player = this.playback.modelLoaded(model);
    const stage = new ViewerStage(model);
    this.stage?.retire();
    this.stage = stage;
    stage.crowdBuilt = () => this.reframe();
    stage.setModelMatrix(this.modelMatrix);
    stage.setVrm0Turn(this.getAttribute('vrm0-turn') !== 'off');
    stage.fadeSeconds = this.playback.crossfadeSeconds();
    const base = animatedBounds(player, (p) => stage.lockRoot(p));
    stage.setBaseBounds(base);
    this.hotspots.modelChanged(model, base.radius);
    stage.setRootMotion(this.rootMotion, player);
    this.configureStage(stage, player);
    stage.setInstances(this.instances, player);
    this.bounds = stage.framingBounds();
    this.frames.sizeFromLayout();
    this.frameModel();
    this.shadow.hideProgress();
    this.canvas.classList.remove('empty');
    this.posterView.modelChanged();
    this.cameraApi.modelChanged();
    this.playback.start();
    this.session.ensureUploaded();
    emitViewerEvent(this, 'progress', { loaded: this.loaderBytes, total: this.loaderBytes, totalProgress: 1, reason: 'model-load' });
    // model-viewer 4.4's: the page may change the model before its first frame (drawn at the next animation frame).
    emitViewerEvent(this, 'before-render', {});
    logLoadWarnings(`<${TAG_NAME}>`, displayName(source), model.warnings);
    emitViewerEvent(this, 'load', { src: source, url: source, warnings: model.warnings });
    this.frames.invalidate();
  }

  private clearModel(): void {
    this.playback.modelCleared();
    this.stage?.retire();
    this.stage = undefined;
    this.bounds = undefined;
    this.hotspots.modelChanged(undefined, 1);
    this.canvas.classList.add('empty');
    this.posterView.modelCleared();
    this.frames.cancel();
  }

  private fail(kind: ViewerErrorKind, error: unknown, src: string | undefined): void {
    const message = error instanceof Error ? error.message : String(error);
    this.shadow.hideProgress();
    // Which file, then the loader's words (which name the glTF path at fault).
    this.shadow.showMessage(src === undefined ? message : `Could not show ${displayName(src)}\n${message}`);
    emitViewerEvent(this, 'error', { message, kind, src, error, type: 'loadfailure', sourceError: error });
  }

  // ---------------------------------------------------------------- camera

  /** The crowd or the walking area changed: frame what is drawn now. */
  private reframe(): void {
    if (!this.stage) return;
    this.bounds = this.stage.framingBounds();
    this.frameModel();
  }

  /** Puts the camera where `camera-orbit` says and frames the model, at once; forgets user orbit, zoom and pan. */
  private frameModel(): void {
    this.cameraApi.readOrbit();
    this.view.reset(this.view.settings.orbit, this.bounds, this.frames.aspect);
    this.frames.invalidate();
  }

  // ---------------------------------------------------------------- settings

  private applySettings(): void {
    this.session.applySettings();
    this.frames.invalidate();
  }

  // ---------------------------------------------------------------- advanced use

  /**
   * The animation player of the shown model (undefined until one is loaded, and replaced
   * by every load): its `layers` take override and additive clip layers, its `instance`
   * holds the pose that is drawn. Changing it while paused needs `requestRender()`.
   */
  get player(): AnimationPlayer | undefined { return this.playback.player; }

  /**
   * Called every frame after the player has evaluated the pose (sampled, blended, layered;
   * `dt` seconds, 0 while paused) and before palettes go to the GPU. It may change
   * `player.instance.pose` — run `AimJob`, `TwoBoneIKJob` on `player.instance.nodeMatrices` —
   * and must then call `updateMatricesAndPalettes(player.instance)`. While it is set, a paused
   * viewer re-evaluates the clip before each frame, so the hook always starts from the clip's
   * pose. It should allocate nothing; null (the default) costs nothing.
   */
  beforeRender: ((player: AnimationPlayer, dt: number) => void) | null = null;

  /** Draws one more frame (if on screen): for pages that changed the pose or hook state while paused. */
  requestRender(): void { this.frames.invalidate(); }

  /** Resolves once every pipeline its frames ask for has arrived or failed (docs/element.md "Waiting for background builds"). */
  buildsSettled(): Promise<void> { return this.frames.buildsSettled(); }

  /**
   * What the last frame cost, for a stats panel: the renderer's counters (draw calls,
   * vertices, joints, CPU encode ms, GPU ms when timestamp queries exist) plus the CPU
   * time of pose evaluation. One object, updated in place every frame; undefined
   * until a model is on the GPU.
   */
  get stats(): ViewerStats | undefined { return this.frames.stats(); }

  /**
   * Shows a model that is already loaded (e.g. with `loadGltf` from files a user
   * picked), in place of `src`/`builtin`, which are removed. Fires `load` like `src` does.
   */
  showModel(model: Model): void {
    if (!this.attached) throw new Error('showModel: the element must be in the page');
    this.removeAttribute('src');
    this.removeAttribute('builtin');
    this.loader.show(model);
  }
}

/** The reflected properties (typed by ReflectedProperties), and typed listeners for the element's own events. */
export interface SkinnedMeshViewerElement extends ReflectedProperties, VrmElementApi {
  /** Listens for one of the element's own events, typed by `SkinnedMeshViewerEventMap`. */
  addEventListener<K extends keyof SkinnedMeshViewerEventMap>(
    type: K, listener: (this: SkinnedMeshViewerElement, event: SkinnedMeshViewerEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions,
  ): void;
  /** Listens for any other event, as on every element. */
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  /** Removes a listener added for one of the element's own events. */
  removeEventListener<K extends keyof SkinnedMeshViewerEventMap>(
    type: K, listener: (this: SkinnedMeshViewerElement, event: SkinnedMeshViewerEventMap[K]) => unknown, options?: boolean | EventListenerOptions,
  ): void;
  /** Removes a listener for any other event. */
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}
