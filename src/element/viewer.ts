import { AnimationPlayer } from '../anim/player.ts';
import { DEFAULT_SKINNING } from '../anim/skinning-method.ts';
import type { Model } from '../gltf/model.ts';
import type { Bounds } from '../gpu/bounds.ts';
import { parseDebugViews } from '../gpu/debug-views.ts';
import { createOffscreenTarget, readTexturePixels } from '../gpu/readback.ts';
import {
  formatCameraOrbit, parseCameraOrbit, parseCssColor, parseNumber, parseSkinning, TRANSPARENT, type Rgba,
} from './attributes.ts';
import { encodeImage, unpremultiply } from './capture.ts';
import { CameraControls } from './controls.ts';
import type {
  SkinnedMeshViewerCustomEvents, SkinnedMeshViewerEventMap, ViewerErrorKind,
} from './events.ts';
import { FrameLoop, type ViewerStats } from './frame-loop.ts';
import { animatedBounds, AUTO_ORBIT, ViewerCamera } from './framing.ts';
import { GpuSession, type GpuState } from './gpu-session.ts';
import { ModelLoader } from './model-loader.ts';
import {
  defineReflectedProperties, REFLECTED_ATTRIBUTES, reflectedAttribute, type ReflectedProperties,
} from './reflected-attributes.ts';
import { loadModelSource } from './source.ts';
import { variantIndex } from './variants.ts';
import { DEFAULT_CROWD_EVALUATOR, parseCrowdEvaluator, ViewerStage } from './stage.ts';
import { ViewerShadow } from './template.ts';

export const TAG_NAME = 'skinned-mesh-viewer';

/** The current camera orbit, as model-viewer's `getCameraOrbit()` returns it. */
export interface ViewerCameraOrbit {
  /** Azimuth about +Y, radians (0: looking at the model's front). */
  readonly theta: number;
  /** Polar angle from +Y, radians (π/2: level). */
  readonly phi: number;
  /** Distance from the target, metres (model units). */
  readonly radius: number;
  /** `30deg 75deg 2.5m`: a valid `camera-orbit` value. */
  toString(): string;
}

// In Node (the library's loader and player are usable there) there is no HTMLElement;
// the class must still be definable so importing the library does not throw.
const HTMLElementBase: typeof HTMLElement = typeof HTMLElement === 'undefined'
  ? (class {} as unknown as typeof HTMLElement)
  : HTMLElement;

let nextViewerId = 1;
const warned = new Set<string>();

/** Attribute mistakes are reported once per page, not once per frame or per element. */
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(`<${TAG_NAME}> ${message}`);
}

function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** `https://host/dir/Model%201.glb?x` → `Model 1.glb`, for messages. */
function displayName(source: string): string {
  const path = source.split(/[?#]/)[0];
  const last = path.slice(path.lastIndexOf('/') + 1) || source;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * `<skinned-mesh-viewer>`: shows a skinned glTF model and plays its animations with
 * WebGPU, following <model-viewer>'s conventions for attributes, methods and events.
 *
 * Life cycle: while in the page it holds a canvas configured on the page's shared
 * GPUDevice, a Renderer with the model uploaded, a ResizeObserver, an
 * IntersectionObserver and at most one pending animation frame. Removal frees all of
 * them (the parsed Model stays, so re-insertion only re-uploads). Frames are drawn only
 * while the element is on screen, and only when something changed or an animation plays.
 *
 * The class wires attributes, events and its shadow DOM to three parts of one concern each:
 * GpuSession (device, renderer, uploads), ModelLoader (which model is shown, which load
 * may still commit) and FrameLoop (when and what a frame draws). Attributes and their
 * properties are the table in reflected-attributes.ts.
 */
export class SkinnedMeshViewerElement extends HTMLElementBase {
  static readonly observedAttributes = REFLECTED_ATTRIBUTES.map((row) => row.attribute);

  // The properties of ReflectedProperties, declared on the interface below.
  static {
    defineReflectedProperties(this.prototype);
  }

  private readonly viewerId = nextViewerId++;
  private readonly shadow: ViewerShadow;
  private readonly canvas: HTMLCanvasElement;
  private readonly view = new ViewerCamera();
  private readonly controls: CameraControls;
  private readonly resizeObserver: ResizeObserver;
  private readonly intersectionObserver: IntersectionObserver;

  // Connection to the page.
  private attached = false;
  private addedTabIndex = false;
  private readonly session: GpuSession;
  private readonly frames: FrameLoop;

  // The model: the loader's, shown by a player and the stage around it.
  private readonly loader: ModelLoader<GpuState>;
  private animPlayer: AnimationPlayer | undefined;
  /** Root motion and crowds around the player (see ViewerStage); one per loaded model. */
  private stage: ViewerStage | undefined;
  private bounds: Bounds | undefined;
  private playRequested = false;
  /** Set while crossfadeTo writes the `animation` attribute, which must not start a second transition. */
  private reflectingAnimation = false;

  // Settings, parsed once per attribute change.
  private clearColor: Rgba = TRANSPARENT;
  private debugMask = 0;

  constructor() {
    super();
    this.shadow = new ViewerShadow(this.attachShadow({ mode: 'open' }));
    this.canvas = this.shadow.canvas;
    this.controls = new CameraControls(this, this.canvas, {
      orbit: (deltaYaw, deltaPitch) => {
        this.view.orbitBy(deltaYaw, deltaPitch);
        this.frames.invalidate();
      },
      zoom: (factor) => {
        this.view.zoomBy(factor);
        this.frames.invalidate();
      },
    });
    this.session = new GpuSession(this.canvas, `<${TAG_NAME}> #${this.viewerId}`, {
      model: () => this.loader.model,
      settings: () => ({
        exposure: this.exposure,
        clearColor: this.clearColor,
        debugMask: this.debugMask,
        skinning: parseSkinning(this.getAttribute('skinning')) ?? DEFAULT_SKINNING,
        shadows: this.shadows,
      }),
      variant: (model) => variantIndex(model, this.variantName, warnOnce),
      variantApplied: () => this.emit('variant-applied', { name: this.variantName }),
      invalidate: () => this.frames.invalidate(),
      deviceFailed: (error, unsupported) => {
        // Nothing could be shown: stop fetching.
        this.loader.cancel();
        this.fail(unsupported ? 'webgpu-unsupported' : 'gpu', error, undefined);
      },
      uploadFailed: (error) => this.fail('gpu', error, this.loader.source),
      settingFailed: (attribute, error) => {
        warnOnce(`${attribute}="${this.getAttribute(attribute)}" could not be drawn: ${(error as Error).message}`);
      },
    });
    this.loader = new ModelLoader<GpuState>({
      fetch: (source, signal, onProgress) => loadModelSource(source, { baseUrl: document.baseURI, signal, onProgress }),
      gpu: () => this.session.ready!,
      upload: (gpu, model) => this.session.upload(gpu, model),
      unsupportedMessage: () => this.session.unsupportedMessage,
      loadStarted: () => this.shadow.setProgress(0, 0),
      loadProgress: (loaded, total) => {
        this.shadow.setProgress(loaded, total);
        this.emit('progress', { loaded, total });
      },
      loadStopped: () => this.shadow.hideProgress(),
      message: (text) => this.shadow.showMessage(text),
      committed: (source, model) => this.showLoaded(source, model),
      cleared: () => this.clearModel(),
      failed: (phase, error, source) => this.fail(phase, error, source),
    });
    this.frames = new FrameLoop(this.canvas, this.session, this.view, {
      player: () => this.animPlayer,
      stage: () => this.stage,
      beforeRender: () => this.beforeRender,
      animationEnded: (player) => this.emit('animationend', { index: player.clip, name: player.model.animations[player.clip].name }),
    });
    this.resizeObserver = new ResizeObserver((entries) => this.frames.resized(entries[entries.length - 1]));
    this.intersectionObserver = new IntersectionObserver((entries) => this.frames.setVisible(entries[entries.length - 1].isIntersecting));
  }

  // ---------------------------------------------------------------- playback and state

  /** The loaded model (kept across removal from the page). */
  get model(): Model | undefined { return this.loader.model; }

  /** True once the model of the current source is loaded and on the GPU; false while a new source loads. */
  get loaded(): boolean { return this.loader.loaded; }

  /** Clip names in file order; an unnamed clip is listed by its index. */
  get animations(): string[] {
    const model = this.loader.model;
    return model ? model.animations.map((clip, i) => clip.name ?? String(i)) : [];
  }

  /** The model's KHR_materials_variants names, for `variant-name` (empty without a model or variants). */
  get availableVariants(): string[] { return [...(this.loader.model?.variants ?? [])]; }

  get paused(): boolean {
    return !(this.animPlayer ? this.animPlayer.playing : this.playRequested);
  }

  /** Seconds of the current clip (0 for none). */
  get duration(): number { return this.animPlayer?.duration ?? 0; }

  /** Seconds into the current clip; setting seeks (wrapped when looping, else clamped). */
  get currentTime(): number { return this.animPlayer?.time ?? 0; }
  set currentTime(value: number) {
    if (!this.animPlayer || !Number.isFinite(value)) return;
    this.animPlayer.seek(value);
    this.frames.invalidate();
  }

  play(): void {
    const player = this.animPlayer;
    if (!player) {
      this.playRequested = true;
      return;
    }
    player.play();
    this.frames.invalidate();
  }

  pause(): void {
    this.playRequested = false;
    this.animPlayer?.pause();
  }

  /**
   * Blends to another clip over `seconds` (default `crossfadeDuration`) while playing;
   * when paused, cuts to it. The `animation` attribute follows.
   */
  crossfadeTo(nameOrIndex: string | number, seconds: number = this.crossfadeDuration): void {
    const player = this.animPlayer;
    if (!player) throw new Error(`<${TAG_NAME}>.crossfadeTo: no model is loaded yet`);
    const clip = player.findClip(nameOrIndex);
    if (clip < 0) throw new RangeError(`<${TAG_NAME}>.crossfadeTo: no animation ${JSON.stringify(nameOrIndex)}; available: ${this.animations.join(', ') || 'none'}`);
    this.switchClip(player, clip, seconds);
    this.reflectingAnimation = true;
    try {
      this.setAttribute('animation', this.animations[clip]);
    } finally {
      this.reflectingAnimation = false;
    }
  }

  /** Where the camera is now (after any user interaction). */
  getCameraOrbit(): ViewerCameraOrbit {
    const { yaw, pitch, distance } = this.view.camera;
    const theta = yaw, phi = Math.PI / 2 - pitch, radius = distance;
    return { theta, phi, radius, toString: () => formatCameraOrbit(theta, phi, radius) };
  }

  /**
   * The frame as currently shown, at the canvas's pixel size, as an image file (PNG by
   * default; `image/jpeg` and `image/webp` take a quality 0…1). Rendered again into an
   * offscreen texture and read back, so it works whatever the canvas compositing does.
   */
  async capture(type = 'image/png', quality?: number): Promise<Blob> {
    const gpu = this.session.gpu, player = this.animPlayer;
    if (!gpu || !player || gpu.uploaded !== player.model) {
      throw new Error(`<${TAG_NAME}>.capture: nothing is shown yet (wait for "load" while the element is in the page)`);
    }
    const { width, height } = this.canvas;
    const target = createOffscreenTarget(gpu.device, width, height, gpu.renderer.format, `<${TAG_NAME}> #${this.viewerId} capture`);
    let pixels: Uint8Array;
    try {
      this.frames.draw(gpu, target, player, this.stage);
      pixels = await readTexturePixels(gpu.device, target);
    } finally {
      target.destroy();
    }
    const rgba = new Uint8ClampedArray(pixels.buffer as ArrayBuffer, pixels.byteOffset, pixels.byteLength);
    unpremultiply(rgba);
    return encodeImage(rgba, width, height, type, quality);
  }

  // ---------------------------------------------------------------- custom element callbacks

  connectedCallback(): void {
    this.upgradeProperties();
    // Moved within one task (disconnected then connected again): nothing was torn down.
    if (!this.attached) this.setUp();
  }

  disconnectedCallback(): void {
    // Deferred so that moving the element (remove + insert in one task) keeps its GPU state.
    queueMicrotask(() => {
      if (!this.isConnected && this.attached) this.tearDown();
    });
  }

  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue) return;
    const reaction = reflectedAttribute(name)?.reaction;
    switch (reaction) {
      case 'reload':
        if (this.attached) this.loader.sourceChanged(this.source);
        break;
      case 'clip':
        if (!this.reflectingAnimation && this.animPlayer) this.applyAnimation(this.animPlayer);
        break;
      case 'autoplay':
        if (this.autoplay && this.animPlayer && !this.animPlayer.playing && !prefersReducedMotion()) this.play();
        break;
      case 'loop':
        if (this.animPlayer) this.animPlayer.loop = this.loop;
        break;
      case 'speed':
        if (this.animPlayer) this.animPlayer.speed = this.speed;
        break;
      case 'controls':
        this.controls.setEnabled(this.cameraControls);
        this.syncTabIndex();
        break;
      case 'frame':
        this.frameModel();
        break;
      case 'settings':
        this.applySettings();
        break;
      case 'background':
        this.parseBackground();
        this.applySettings();
        break;
      case 'debug':
        this.parseDebug();
        this.applySettings();
        break;
      case 'skinning':
        if (parseSkinning(newValue) === undefined) warnOnce(`skinning="${newValue}" is not supported; using ${DEFAULT_SKINNING}`);
        this.applySettings();
        break;
      case 'label':
        this.canvas.setAttribute('aria-label', newValue ?? '3D model');
        break;
      case 'crowd':
        if (name === 'instances' && parseNumber(newValue) === undefined && newValue !== null) warnOnce(`instances="${newValue}" is not a number; drawing 1`);
        if (name === 'crowd-evaluator' && newValue !== null && parseCrowdEvaluator(newValue) === undefined) {
          warnOnce(`crowd-evaluator="${newValue}" is not cpu, gpu or auto; using ${DEFAULT_CROWD_EVALUATOR}`);
        }
        if (this.stage && this.animPlayer) {
          this.configureStage(this.stage);
          this.stage.setInstances(this.instances, this.animPlayer);
          this.reframe();
        }
        break;
      case 'root-motion':
        if (this.stage && this.animPlayer) {
          this.stage.setRootMotion(this.rootMotion, this.animPlayer);
          this.reframe();
        }
        break;
      case 'variant':
        this.session.applyVariant();
        break;
      case 'none':
      case undefined:
        break;
    }
  }

  // ---------------------------------------------------------------- connection

  private setUp(): void {
    this.attached = true;
    this.syncTabIndex();
    try {
      this.resizeObserver.observe(this.canvas, { box: 'device-pixel-content-box' });
    } catch {
      // Safari before 15.4 has no device-pixel-content-box.
      this.resizeObserver.observe(this.canvas, { box: 'content-box' });
    }
    this.intersectionObserver.observe(this);
    this.session.open();
    // Without navigator.gpu nothing can be shown: the session reports it; fetch nothing.
    if (typeof navigator === 'undefined' || !navigator.gpu) return;
    this.loader.connected(this.source);
  }

  private tearDown(): void {
    this.attached = false;
    this.resizeObserver.disconnect();
    this.intersectionObserver.disconnect();
    this.frames.stop();
    // A load in flight restarts on re-insertion; nothing of it is kept.
    this.loader.cancel();
    this.session.close();
    // A drag in progress ends with the element; its pointer capture is already gone.
    this.controls.cancelGestures();
  }

  // ---------------------------------------------------------------- loading

  /** `src`, else `builtin:NAME` from the builtin attribute, else undefined. */
  private get source(): string | undefined {
    const src = this.getAttribute('src');
    if (src !== null && src.trim() !== '') return src.trim();
    const builtin = this.getAttribute('builtin');
    if (builtin !== null && builtin.trim() !== '') return `builtin:${builtin.trim()}`;
    return undefined;
  }

  /** The crowd's evaluator (`crowd-evaluator`) and the device a GPU one runs on. */
  private configureStage(stage: ViewerStage): void {
    stage.evaluator = parseCrowdEvaluator(this.crowdEvaluator) ?? DEFAULT_CROWD_EVALUATOR;
    stage.device = this.session.gpu?.device;
  }

  /** The loader committed `model`: play it, frame it, draw it. */
  private showLoaded(source: string, model: Model): void {
    const player = new AnimationPlayer(model);
    player.loop = this.loop;
    player.speed = this.speed;
    this.animPlayer = player;
    const clip = this.resolveClip(player);
    if (clip >= 0 && clip !== player.clip) player.setClip(clip);
    const stage = new ViewerStage(model);
    this.stage = stage;
    stage.fadeSeconds = this.crossfadeDuration;
    stage.setBaseBounds(animatedBounds(player, (p) => stage.lockRoot(p)));
    stage.setRootMotion(this.rootMotion, player);
    this.configureStage(stage);
    stage.setInstances(this.instances, player);
    this.bounds = stage.framingBounds();
    this.frameModel();
    this.shadow.hideProgress();
    this.canvas.classList.remove('empty');
    if (this.playRequested || (this.autoplay && !prefersReducedMotion())) player.play();
    this.playRequested = false;
    this.session.ensureUploaded();
    this.emit('load', { src: source });
    this.frames.invalidate();
  }

  private clearModel(): void {
    this.animPlayer = undefined;
    this.stage = undefined;
    this.bounds = undefined;
    this.canvas.classList.add('empty');
    this.frames.cancel();
  }

  private fail(kind: ViewerErrorKind, error: unknown, src: string | undefined): void {
    const message = error instanceof Error ? error.message : String(error);
    this.shadow.hideProgress();
    // Which file, then the loader's words (which name the glTF path at fault).
    this.shadow.showMessage(src === undefined ? message : `Could not show ${displayName(src)}\n${message}`);
    this.emit('error', { message, kind, src, error });
  }

  // ---------------------------------------------------------------- animation

  /** The clip the `animation` attribute names (unset: the first); -1 when the model has none. */
  private resolveClip(player: AnimationPlayer): number {
    if (player.model.animations.length === 0) return -1;
    const wanted = this.getAttribute('animation');
    if (wanted === null || wanted.trim() === '') return 0;
    const clip = player.findClip(wanted.trim());
    if (clip < 0) warnOnce(`animation="${wanted}" is not in ${player.model.name} (${this.animations.join(', ')}); playing the first clip`);
    return clip < 0 ? 0 : clip;
  }

  private applyAnimation(player: AnimationPlayer): void {
    const clip = this.resolveClip(player);
    if (clip >= 0 && clip !== player.clip) this.switchClip(player, clip, this.crossfadeDuration);
  }

  private switchClip(player: AnimationPlayer, clip: number, seconds: number): void {
    if (this.stage) this.stage.fadeSeconds = seconds;
    // A crossfade advances with playback; a paused player would stay on the old pose.
    if (player.playing && seconds > 0) player.crossfadeTo(clip, seconds);
    else player.setClip(clip);
    this.frames.invalidate();
  }

  // ---------------------------------------------------------------- camera

  /** The crowd or the walking area changed: frame what is drawn now. */
  private reframe(): void {
    if (!this.stage) return;
    this.bounds = this.stage.framingBounds();
    this.frameModel();
  }

  /** Puts the camera where `camera-orbit` says and frames the model; forgets user orbit and zoom. */
  private frameModel(): void {
    const text = this.getAttribute('camera-orbit');
    const orbit = parseCameraOrbit(text);
    if (!orbit) warnOnce(`camera-orbit="${text}" is not "$theta $phi $radius" (e.g. "30deg 75deg 2.5m"); using auto`);
    this.view.reset(orbit ?? AUTO_ORBIT, this.bounds, this.frames.aspect);
    this.frames.invalidate();
  }

  // ---------------------------------------------------------------- settings

  private parseBackground(): void {
    const text = this.getAttribute('background');
    if (text === null || text.trim() === '') {
      this.clearColor = TRANSPARENT;
      return;
    }
    const color = parseCssColor(text);
    if (!color) warnOnce(`background="${text}" is not a CSS colour; using transparent`);
    this.clearColor = color ?? TRANSPARENT;
  }

  private parseDebug(): void {
    const { mask, unknown } = parseDebugViews(this.getAttribute('debug'));
    if (unknown.length > 0) warnOnce(`debug="${this.getAttribute('debug')}": unknown view(s) ${unknown.join(', ')} (skeleton normals tangents weights wireframe bounds)`);
    this.debugMask = mask;
  }

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
  get player(): AnimationPlayer | undefined { return this.animPlayer; }

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
  requestRender(): void {
    this.frames.invalidate();
  }

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

  // ---------------------------------------------------------------- DOM helpers

  private emit<K extends keyof SkinnedMeshViewerCustomEvents>(
    type: K, detail: SkinnedMeshViewerCustomEvents[K] extends CustomEvent<infer D> ? D : never,
  ): void {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Keyboard control needs focus: give the element a tab stop unless the page chose one. */
  private syncTabIndex(): void {
    if (!this.isConnected) return;
    if (this.cameraControls && !this.hasAttribute('tabindex')) {
      this.setAttribute('tabindex', '0');
      this.addedTabIndex = true;
    } else if (!this.cameraControls && this.addedTabIndex) {
      this.removeAttribute('tabindex');
      this.addedTabIndex = false;
    }
  }

  /**
   * A property a page set before the element was defined (lazy loading) shadows the
   * accessor; move it through the setter.
   */
  private upgradeProperties(): void {
    for (const { property: name } of REFLECTED_ATTRIBUTES) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const self = this as unknown as Record<string, unknown>;
        const value = self[name];
        delete self[name];
        self[name] = value;
      }
    }
  }
}

/** The reflected properties (typed by ReflectedProperties), and typed listeners for the element's own events. */
export interface SkinnedMeshViewerElement extends ReflectedProperties {
  addEventListener<K extends keyof SkinnedMeshViewerEventMap>(
    type: K, listener: (this: SkinnedMeshViewerElement, event: SkinnedMeshViewerEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof SkinnedMeshViewerEventMap>(
    type: K, listener: (this: SkinnedMeshViewerElement, event: SkinnedMeshViewerEventMap[K]) => unknown, options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}
