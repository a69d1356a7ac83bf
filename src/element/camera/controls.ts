/**
 * `camera-controls`: drag to orbit, wheel or pinch to zoom, arrow keys and +/- from the
 * keyboard; right-drag, a modified (Shift/Ctrl/Meta) drag, a two-finger drag or
 * Shift+arrows pan; a double click/tap after a pan puts the target back. model-viewer's
 * `disable-zoom`, `disable-pan`, `disable-tap` and `orbit-/zoom-/pan-sensitivity` are
 * `ControlOptions`. Every listener is on the element itself or on its own canvas, never on
 * window or document: pointer capture keeps a drag going outside the canvas, so nothing
 * page-wide has to be added or, on removal, forgotten.
 */
import type { ReflectedProperties } from '../reflected-attributes.ts';

/**
 * What the gestures move. `automatic`: the touches are a scripted gesture's (interact.ts marks
 * them with altKey, as model-viewer does), not the user's.
 */
export interface OrbitTarget {
  /** Turns the camera about the target: yaw about +Y, pitch towards straight above (radians). */
  orbit(deltaYaw: number, deltaPitch: number, automatic?: boolean): void;
  /** Multiplies the camera distance (< 1 moves closer). */
  zoom(factor: number, automatic?: boolean): void;
  /** Moves the target in the view plane by fractions of the viewport's height (right, down: the model follows). */
  pan(dx: number, dy: number, automatic?: boolean): void;
  /** A double click or tap: the target goes back to `camera-target`. */
  recenter(): void;
  /** A pointer gesture started (true) or stopped (false) panning: model-viewer shows its pan target meanwhile. */
  panning(active: boolean): void;
}

/** model-viewer's interaction attributes, read by CameraControls at each gesture. */
export type ControlOptions = Pick<
  ReflectedProperties, 'disableZoom' | 'disablePan' | 'disableTap' | 'orbitSensitivity' | 'zoomSensitivity' | 'panSensitivity'
>;

export const DEFAULT_CONTROL_OPTIONS: Readonly<ControlOptions> = {
  disableZoom: false, disablePan: false, disableTap: false, orbitSensitivity: 1, zoomSensitivity: 1, panSensitivity: 1,
};

/** A drag across the canvas's full height turns the camera by half a turn. */
const ORBIT_PER_HEIGHT = Math.PI;
const KEY_ORBIT = (10 * Math.PI) / 180;
const KEY_ZOOM = 1.15;
/** exp(deltaY · this): one 100-pixel wheel notch zooms by about 16%. */
const WHEEL_ZOOM_PER_PIXEL = 0.0015;
const WHEEL_LINE_PIXELS = 16;
const WHEEL_PAGE_PIXELS = 400;
/** Shift+arrow pans by this share of the viewport's height. */
const KEY_PAN = 0.05;

export class CameraControls {
  private enabled = false;
  /** Active pointers on the canvas: id → last position. At most two matter (pinch). */
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private pinchDistance = 0;
  /** The gesture in progress pans (right button, a modifier, or two fingers moving together). */
  private panning = false;
  /** The gesture in progress is a scripted one (interact()): touches with altKey. */
  private automatic = false;
  private readonly midpoint = { x: 0, y: 0 };
  readonly options: ControlOptions = { ...DEFAULT_CONTROL_OPTIONS };
  private readonly onDoubleClick = (e: MouseEvent) => this.doubleClick(e);
  private readonly onContextMenu = (e: MouseEvent) => { if (!this.options.disablePan) e.preventDefault(); };

  private readonly onPointerDown = (e: PointerEvent) => this.pointerDown(e);
  private readonly onPointerMove = (e: PointerEvent) => this.pointerMove(e);
  private readonly onPointerUp = (e: PointerEvent) => this.pointerUp(e);
  private readonly onWheel = (e: WheelEvent) => this.wheel(e);
  private readonly onKeyDown = (e: KeyboardEvent) => this.keyDown(e);

  constructor(private readonly host: HTMLElement, private readonly surface: HTMLElement, private readonly target: OrbitTarget) {}

  get active(): boolean {
    return this.enabled;
  }

  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    const method = enabled ? 'addEventListener' : 'removeEventListener';
    this.surface[method]('pointerdown', this.onPointerDown as EventListener);
    this.surface[method]('pointermove', this.onPointerMove as EventListener);
    this.surface[method]('pointerup', this.onPointerUp as EventListener);
    this.surface[method]('pointercancel', this.onPointerUp as EventListener);
    this.surface[method]('dblclick', this.onDoubleClick as EventListener);
    // Right-drag pans: no context menu over the viewer (unless panning is off).
    this.surface[method]('contextmenu', this.onContextMenu as EventListener);
    // Not passive: a wheel over an interactive viewer zooms it instead of scrolling the page.
    this.surface[method]('wheel', this.onWheel as EventListener, { passive: false } as AddEventListenerOptions);
    this.host[method]('keydown', this.onKeyDown as EventListener);
    if (!enabled) this.cancelGestures();
  }

  /**
   * model-viewer's `zoom(keyPresses)`: a wheel event of −30 px per press (positive zooms in)
   * on the canvas, so it does what the user's wheel would — nothing without camera controls
   * or with `disable-zoom`.
   */
  zoomSteps(keyPresses: number): void {
    if (Number.isFinite(keyPresses)) this.surface.dispatchEvent(new WheelEvent('wheel', { deltaY: -30 * keyPresses, cancelable: true }));
  }

  /** Forgets pointers mid-drag (the element left the page and lost its pointer capture). */
  cancelGestures(): void {
    this.pointers.clear();
    this.pinchDistance = 0;
    this.panning = false;
    this.target.panning(false);
  }

  private pointerDown(e: PointerEvent): void {
    if (e.pointerType === 'mouse' && e.button !== 0 && e.button !== 2) return;
    const scripted = e.pointerType === 'touch' && e.altKey;
    // A user's pointer joining a scripted gesture makes the gesture the user's.
    if (this.pointers.size === 0 || (this.automatic && !scripted)) {
      this.automatic = scripted;
      this.panning = !this.options.disablePan && !this.automatic && (e.button === 2 || e.shiftKey || e.ctrlKey || e.metaKey);
    }
    try {
      // Keeps the drag ours outside the canvas, with no window-level listeners.
      this.surface.setPointerCapture(e.pointerId);
    } catch {
      // The pointer is already gone (or the event was synthetic): the gesture still works inside.
    }
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this.pointers.size === 2) {
      this.pinchDistance = this.spread();
      this.center(this.midpoint);
    }
    // A modified or right-button drag pans; so do two fingers (unless panning is off).
    if (this.panning || (this.pointers.size === 2 && !this.options.disablePan)) this.target.panning(true);
    // Not cancelled, as model-viewer's controls do not: a cancelled pointerdown suppresses the
    // mousedown/mouseup a page's own listeners wait for (its shift-drag examples). Text selection
    // is off over the canvas in CSS instead, and touch scrolling is `touch-action`'s.
  }

  private pointerMove(e: PointerEvent): void {
    const last = this.pointers.get(e.pointerId);
    if (!last) return;
    const dx = e.clientX - last.x, dy = e.clientY - last.y;
    last.x = e.clientX;
    last.y = e.clientY;
    const height = Math.max(1, this.surface.clientHeight);
    const o = this.options;
    const automatic = this.automatic;
    if (this.pointers.size === 1 && this.panning) {
      this.target.pan((dx / height) * o.panSensitivity, (dy / height) * o.panSensitivity, automatic);
    } else if (this.pointers.size === 1) {
      const perPixel = (ORBIT_PER_HEIGHT / height) * o.orbitSensitivity;
      // The model follows the pointer: dragging right turns it right (the camera left);
      // dragging down shows it more from above.
      this.target.orbit(-dx * perPixel, dy * perPixel, automatic);
    } else if (this.pointers.size === 2) {
      const spread = this.spread();
      if (!o.disableZoom && this.pinchDistance > 0 && spread > 0) this.target.zoom((this.pinchDistance / spread) ** o.zoomSensitivity, automatic);
      this.pinchDistance = spread;
      // Two fingers moving together pan.
      const mx = this.midpoint.x, my = this.midpoint.y;
      this.center(this.midpoint);
      if (!o.disablePan) this.target.pan(((this.midpoint.x - mx) / height) * o.panSensitivity, ((this.midpoint.y - my) / height) * o.panSensitivity, automatic);
    }
  }

  private pointerUp(e: PointerEvent): void {
    this.pointers.delete(e.pointerId);
    this.pinchDistance = this.pointers.size === 2 ? this.spread() : 0;
    if (this.pointers.size === 2) this.center(this.midpoint);
    if (this.pointers.size < 2 && !this.panning) this.target.panning(false);
    if (this.pointers.size === 0) {
      this.panning = false;
      this.target.panning(false);
    }
  }

  private center(out: { x: number; y: number }): void {
    let x = 0, y = 0, i = 0;
    for (const p of this.pointers.values()) {
      if (i < 2) { x += p.x; y += p.y; }
      i++;
    }
    out.x = x / 2;
    out.y = y / 2;
  }

  private doubleClick(e: MouseEvent): void {
    if (this.options.disableTap) return;
    e.preventDefault();
    this.target.recenter();
  }

  private spread(): number {
    let x0 = 0, y0 = 0, i = 0, d = 0;
    for (const p of this.pointers.values()) {
      if (i === 0) { x0 = p.x; y0 = p.y; } else if (i === 1) d = Math.hypot(p.x - x0, p.y - y0);
      i++;
    }
    return d;
  }

  private wheel(e: WheelEvent): void {
    // With zoom off the wheel scrolls the page, as over any other content.
    if (this.options.disableZoom) return;
    e.preventDefault();
    const scale = e.deltaMode === WheelEvent.DOM_DELTA_LINE ? WHEEL_LINE_PIXELS : e.deltaMode === WheelEvent.DOM_DELTA_PAGE ? WHEEL_PAGE_PIXELS : 1;
    // Trackpad pinch arrives as a wheel event with ctrlKey set and small deltas.
    const gain = e.ctrlKey ? 10 : 1;
    this.target.zoom(Math.exp(e.deltaY * scale * WHEEL_ZOOM_PER_PIXEL * gain * this.options.zoomSensitivity));
  }

  private keyDown(e: KeyboardEvent): void {
    // Ctrl/Cmd with +/- is the browser's page zoom; leave modified keys to the page.
    if (e.altKey || e.metaKey || e.ctrlKey) return;
    const o = this.options;
    const orbit = KEY_ORBIT * o.orbitSensitivity, pan = KEY_PAN * o.panSensitivity;
    const zoom = o.disableZoom ? 1 : KEY_ZOOM ** o.zoomSensitivity;
    if (e.shiftKey && !o.disablePan && e.key.startsWith('Arrow')) {
      switch (e.key) {
        case 'ArrowLeft': this.target.pan(-pan, 0); break;
        case 'ArrowRight': this.target.pan(pan, 0); break;
        case 'ArrowUp': this.target.pan(0, -pan); break;
        case 'ArrowDown': this.target.pan(0, pan); break;
      }
      e.preventDefault();
      return;
    }
    switch (e.key) {
      case 'ArrowLeft': this.target.orbit(orbit, 0); break;
      case 'ArrowRight': this.target.orbit(-orbit, 0); break;
      case 'ArrowUp': this.target.orbit(0, -orbit); break;
      case 'ArrowDown': this.target.orbit(0, orbit); break;
      case '+': case '=': case 'PageUp': if (o.disableZoom) return; this.target.zoom(1 / zoom); break;
      case '-': case '_': case 'PageDown': if (o.disableZoom) return; this.target.zoom(zoom); break;
      default: return;
    }
    // Arrow keys would otherwise scroll the page while the viewer has focus.
    e.preventDefault();
  }
}
