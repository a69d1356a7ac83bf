import { parseCameraOrbit, parseNumber } from '../attributes.ts';
import {
  DEFAULT_AUTO_ROTATE_DELAY, DEFAULT_FIELD_OF_VIEW, DEFAULT_INTERPOLATION_DECAY, DEFAULT_MAX_FIELD_OF_VIEW, DEFAULT_MIN_FIELD_OF_VIEW,
  DEFAULT_ROTATION_PER_SECOND, parseAngleOr, parseCameraTarget, parseMilliseconds, parseOrbitLimits, parseRotationRate,
} from './camera-goal.ts';
import { CameraControls } from './controls.ts';
import { AUTO_ORBIT, type CameraChangeSource, type ViewerCamera } from './framing.ts';
import { sphericalPosition, vector3d, type SphericalPosition, type Vector3D } from '../vector3d.ts';
import { ScriptedGestures, type Finger } from '../interact.ts';
import type { ViewerShadow } from '../template.ts';

/**
 * The camera half of <skinned-mesh-viewer>'s model-viewer API: the camera attributes
 * parsed into ViewerCamera's settings and CameraControls' options, what
 * `getCameraOrbit()`, `getCameraTarget()` and `getFieldOfView()` return, and the
 * interaction prompt. The element forwards attribute changes and calls here.
 */

/** The current camera orbit, as model-viewer's `getCameraOrbit()` returns it (radians, metres; a live `toString()`). */
export type ViewerCameraOrbit = SphericalPosition;

/** A point, as model-viewer's `getCameraTarget()` returns it (metres; a live `toString()`). */
export type ViewerVector3 = Vector3D;

/** `interaction-prompt-threshold` default, ms (model-viewer's). */
export const DEFAULT_PROMPT_THRESHOLD_MS = 3000;

export class CameraApi {
  /** `camera-controls`: pointer, wheel and keys, moving the view's goal. */
  readonly controls: CameraControls;
  private readonly canvas: HTMLCanvasElement;
  /** The interaction prompt's container. */
  private readonly prompt: HTMLElement;
  /** interact(): scripted touches for the controls. */
  private readonly gestures: ScriptedGestures;
  private promptTimer: ReturnType<typeof setTimeout> | undefined;
  /** The user has interacted since the model loaded: the prompt does not come back. */
  private interactedOnce = false;
  /** `camera-change`, one event object per source, dispatched again each time (no allocation per frame). */
  private readonly changeEvents: Record<CameraChangeSource, CustomEvent>;

  constructor(
    private readonly element: HTMLElement,
    private readonly view: ViewerCamera,
    /** The canvas the controls listen on; the interaction prompt, the pan target and the finger slots' containers. */
    shadow: Pick<ViewerShadow, 'canvas' | 'interactionPrompt' | 'panTarget' | 'fingers'>,
    private readonly warn: (message: string) => void,
    /** The goal moved: a frame is due. */
    private readonly invalidate: () => void,
  ) {
    const { canvas, interactionPrompt, panTarget, fingers } = shadow;
    this.canvas = canvas;
    this.prompt = interactionPrompt;
    // A scripted gesture's moves (interact()) are 'automatic' and do not count as the user's.
    const interacted = (automatic = false): void => {
      if (!automatic) this.interacted();
      this.invalidate();
    };
    const source = (automatic = false): CameraChangeSource => (automatic ? 'automatic' : 'user-interaction');
    this.controls = new CameraControls(element, canvas, {
      orbit: (deltaYaw, deltaPitch, automatic) => { view.orbitBy(deltaYaw, deltaPitch, source(automatic)); interacted(automatic); },
      zoom: (factor, automatic) => { view.zoomBy(factor, source(automatic)); interacted(automatic); },
      pan: (dx, dy, automatic) => { view.panBy(dx, dy, source(automatic)); interacted(automatic); },
      recenter: () => { view.setTargetGoal('user-interaction'); interacted(); },
      panning: (active) => { panTarget.classList.toggle('panning', active); },
    });
    this.gestures = new ScriptedGestures({ element, surface: canvas, fingers, warn });
    const event = (source: CameraChangeSource) => new CustomEvent('camera-change', { detail: { source } });
    this.changeEvents = { 'user-interaction': event('user-interaction'), none: event('none'), automatic: event('automatic') };
  }

  /** The camera moved in the frame just drawn: `camera-change`, with why. Allocates nothing. */
  dispatchChange(): void {
    this.element.dispatchEvent(this.changeEvents[this.view.source]);
  }

  /**
   * A camera attribute changed (its reaction in reflected-attributes.ts): parse it and move the goal.
   * A new limit puts the camera inside it at once, as model-viewer 4.4's do (its tests read the
   * camera in the same task).
   */
  attributeChanged(
    reaction: 'frame' | 'camera-target' | 'field-of-view' | 'field-of-view-limits' | 'orbit-limits' | 'camera-motion' | 'interaction',
  ): void {
    // The camera is set from elsewhere: a scripted gesture stops, as model-viewer's does.
    if (reaction !== 'camera-motion' && reaction !== 'interaction') this.gestures.stop('none');
    switch (reaction) {
      case 'frame': this.readOrbit(); this.view.setOrbitGoal(); break;
      case 'camera-target': this.readTarget(); this.view.setTargetGoal(); break;
      case 'field-of-view': this.readFieldOfView(); this.view.setFieldOfViewGoal(); break;
      case 'field-of-view-limits': this.readFieldOfView(); this.view.setFieldOfViewGoal(); this.view.jumpToGoal(); break;
      case 'orbit-limits': this.readLimits(); this.view.applyLimits(); this.view.jumpToGoal(); break;
      case 'camera-motion': this.readMotion(); break;
      case 'interaction': this.readInteraction(); break;
    }
  }

  private attr(name: string): string | null {
    return this.element.getAttribute(name);
  }

  /** `camera-orbit` (into the settings; the caller frames or sets the goal). */
  readOrbit(): void {
    const text = this.attr('camera-orbit');
    const orbit = parseCameraOrbit(text);
    if (!orbit) this.warn(`camera-orbit="${text}" is not "$theta $phi $radius" (e.g. "30deg 75deg 2.5m"); using auto`);
    this.view.settings.orbit = orbit ?? AUTO_ORBIT;
  }

  readTarget(): void {
    const text = this.attr('camera-target');
    const target = parseCameraTarget(text);
    if (!target) this.warn(`camera-target="${text}" is not "$x $y $z" (e.g. "0m 1m 0m"); using auto`);
    this.view.settings.target = target ?? { x: undefined, y: undefined, z: undefined };
  }

  readFieldOfView(): void {
    const s = this.view.settings;
    s.fieldOfView = this.angle('field-of-view', DEFAULT_FIELD_OF_VIEW);
    s.minFieldOfView = this.angle('min-field-of-view', DEFAULT_MIN_FIELD_OF_VIEW);
    s.maxFieldOfView = this.angle('max-field-of-view', DEFAULT_MAX_FIELD_OF_VIEW);
  }

  readLimits(): void {
    const bad = parseOrbitLimits(this.attr('min-camera-orbit'), this.attr('max-camera-orbit'), this.view.settings.limits);
    if (bad) this.warn(`${bad}="${this.attr(bad)}" is not "$theta $phi $radius"; using auto`);
  }

  /** interpolation-decay, auto-rotate, auto-rotate-delay, rotation-per-second. */
  readMotion(): void {
    const s = this.view.settings;
    s.decay = this.milliseconds('interpolation-decay', DEFAULT_INTERPOLATION_DECAY);
    s.autoRotate = this.element.hasAttribute('auto-rotate');
    s.autoRotateDelay = this.milliseconds('auto-rotate-delay', DEFAULT_AUTO_ROTATE_DELAY);
    const rate = parseRotationRate(this.attr('rotation-per-second'));
    if (rate === undefined) this.warn(`rotation-per-second="${this.attr('rotation-per-second')}" is not an angle or a percentage (e.g. "30deg", "-100%"); using auto`);
    s.rotationPerSecond = rate ?? DEFAULT_ROTATION_PER_SECOND;
  }

  /** disable-*, *-sensitivity and touch-action. */
  readInteraction(): void {
    const o = this.controls.options;
    o.disableZoom = this.element.hasAttribute('disable-zoom');
    o.disablePan = this.element.hasAttribute('disable-pan');
    o.disableTap = this.element.hasAttribute('disable-tap');
    o.orbitSensitivity = this.sensitivity('orbit-sensitivity');
    o.zoomSensitivity = this.sensitivity('zoom-sensitivity');
    o.panSensitivity = this.sensitivity('pan-sensitivity');
    // model-viewer 4.4's default is none (every touch is the viewer's); with pan-y a vertical swipe scrolls the page.
    const touch = (this.attr('touch-action') ?? 'none').trim().toLowerCase();
    if (touch !== 'pan-y' && touch !== 'pan-x' && touch !== 'none') this.warn(`touch-action="${touch}" is not pan-y, pan-x or none; using none`);
    this.canvas.style.touchAction = touch === 'pan-x' || touch === 'pan-y' ? touch : 'none';
  }

  getCameraOrbit(): ViewerCameraOrbit {
    const v = this.view;
    return sphericalPosition(v.theta, v.phi, v.radius);
  }

  getCameraTarget(): ViewerVector3 {
    const t = this.view.camera.target;
    return vector3d(t[0], t[1], t[2]);
  }

  /** Degrees, as model-viewer's getFieldOfView(). */
  getFieldOfView(): number {
    return (this.view.camera.fovY * 180) / Math.PI;
  }

  /** The field-of-view limits now, degrees (the maximum widened for a narrow element, as the field of view is). */
  getFieldOfViewLimits(): [number, number] {
    const s = this.view.settings;
    return [(s.minFieldOfView * 180) / Math.PI, (this.view.maxFieldOfView * 180) / Math.PI];
  }

  // ---------------------------------------------------------------- interaction prompt

  /** resetInteractionPrompt(): as if nobody had interacted; the prompt comes back after the threshold. */
  resetPrompt(visible: boolean): void {
    this.interactedOnce = false;
    this.modelVisible(visible);
  }

  /**
   * The model became visible (or not): with camera controls and `interaction-prompt="auto"`,
   * the prompt appears after `interaction-prompt-threshold` ms unless the user interacts first.
   */
  modelVisible(visible: boolean): void {
    this.clearPromptTimer();
    if (!visible) {
      this.prompt.hidden = true;
      return;
    }
    if (this.interactedOnce || !this.element.hasAttribute('camera-controls')) return;
    const mode = (this.attr('interaction-prompt') ?? 'auto').trim().toLowerCase();
    if (mode === 'none') return;
    if (mode !== 'auto') this.warn(`interaction-prompt="${mode}" is not auto or none; using auto`);
    const threshold = parseNumber(this.attr('interaction-prompt-threshold')) ?? DEFAULT_PROMPT_THRESHOLD_MS;
    this.promptTimer = setTimeout(() => {
      this.promptTimer = undefined;
      this.prompt.hidden = false;
    }, Math.max(0, threshold));
  }

  /** The user orbited, zoomed or panned: the prompt goes, for good. */
  interacted(): void {
    this.gestures.stop('user-interaction');
    this.interactedOnce = true;
    this.clearPromptTimer();
    this.prompt.hidden = true;
  }

  /** A new model: the prompt may show again. */
  modelChanged(): void {
    this.interactedOnce = false;
  }

  /** model-viewer's `interact(duration, finger0, finger1?)` (interact.ts). */
  interact(duration: number, finger0: Finger, finger1?: Finger): void {
    this.gestures.start(duration, finger0, finger1);
  }

  stop(): void {
    this.gestures.stop('none');
    this.clearPromptTimer();
    this.prompt.hidden = true;
  }

  private clearPromptTimer(): void {
    if (this.promptTimer !== undefined) clearTimeout(this.promptTimer);
    this.promptTimer = undefined;
  }

  private angle(name: string, fallback: number): number {
    const value = parseAngleOr(this.attr(name), fallback);
    if (value === undefined || value < 0) this.warn(`${name}="${this.attr(name)}" is not an angle (e.g. "30deg"); using auto`);
    return value === undefined || value < 0 ? fallback : value;
  }

  private milliseconds(name: string, fallback: number): number {
    const value = parseMilliseconds(this.attr(name), fallback);
    if (value === undefined) this.warn(`${name}="${this.attr(name)}" is not a duration in milliseconds; using the default`);
    return value ?? fallback;
  }

  private sensitivity(name: string): number {
    const text = this.attr(name);
    const value = parseNumber(text);
    if (text !== null && value === undefined) this.warn(`${name}="${text}" is not a number; using 1`);
    return value ?? 1;
  }
}
