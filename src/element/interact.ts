/**
 * model-viewer 4.4's `interact(duration, finger0, finger1?)`: a scripted gesture. Each finger is
 * a path of x and y (shares of the element's width and height) over keyframes; for `duration`
 * ms the element's own touch controls receive synthetic touches along them — one finger orbits,
 * two pinch and pan — so the camera moves exactly as a hand would move it. The page's
 * `slot="finger0"` / `slot="finger1"` elements are shown under the fingers. Camera changes it
 * makes say `automatic`; a user's own interaction, or an attribute or method moving the camera,
 * ends it early. Either way `interact-stopped` fires with the source that ended it.
 */

/** One step of a path: move to `value` over `frames` (a relative length), eased in and out. */
export interface Keyframe {
  readonly value: number;
  readonly frames: number;
  /** Maps 0…1 to 0…1 (default: ease in and out, quadratic). */
  readonly ease?: (t: number) => number;
}

/** A coordinate over the gesture: where it starts and the keyframes it goes through. */
export interface Path {
  readonly initialValue: number;
  readonly keyframes: readonly Keyframe[];
}

/** A finger's x and y paths, as shares of the element's width and height. */
export interface Finger {
  readonly x: Path;
  readonly y: Path;
}

export type GestureStopSource = 'automatic' | 'user-interaction' | 'none';

const easeInOut = (t: number): number => (t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t));

/** The value of `path` at `t` in 0…1: keyframes take shares of the time by their `frames`. */
export function pathAt(path: Path, t: number): number {
  const frames = path.keyframes.reduce((sum, k) => sum + Math.max(0, k.frames), 0);
  if (!(frames > 0)) return path.keyframes.at(-1)?.value ?? path.initialValue;
  let at = Math.min(1, Math.max(0, t)) * frames, from = path.initialValue;
  for (const k of path.keyframes) {
    const length = Math.max(0, k.frames);
    if (at <= length && length > 0) return from + (k.value - from) * (k.ease ?? easeInOut)(at / length);
    at -= length;
    from = k.value;
  }
  return from;
}

/** Pointer ids of the synthetic fingers: far from what a browser hands out. */
const FINGER_POINTER_ID = -5678;

/** What a gesture needs from its element. */
export interface GestureHost {
  readonly element: HTMLElement;
  /** What receives the touches (the canvas the controls listen on). */
  readonly surface: HTMLElement;
  /** The containers of the finger slots, moved under each finger and shown while it is down. */
  readonly fingers: readonly HTMLElement[];
  readonly warn: (message: string) => void;
}

/** One element's scripted gestures (at most one at a time). */
export class ScriptedGestures {
  private running: { readonly paths: Finger[]; readonly duration: number; readonly start: number; readonly positions: { x: number; y: number }[] } | undefined;
  private frame = 0;

  constructor(private readonly host: GestureHost) {}

  /** Whether a gesture is being played: the touches it sends are not the user's. */
  get active(): boolean {
    return this.running !== undefined;
  }

  start(duration: number, finger0: Finger, finger1?: Finger): void {
    if (this.running) {
      this.host.warn('interact() failed because an existing interaction is running');
      return;
    }
    if (!finger0 || !Number.isFinite(duration) || duration < 0) throw new TypeError('interact(duration, finger0, finger1?): a duration in ms ≥ 0 and at least one finger');
    const paths = finger1 ? [finger0, finger1] : [finger0];
    this.running = { paths, duration, start: performance.now(), positions: paths.map((f) => ({ x: pathAt(f.x, 0), y: pathAt(f.y, 0) })) };
    this.dispatch('pointerdown');
    this.frame = requestAnimationFrame(this.step);
  }

  /** Something other than the gesture moved the camera (`source`), or the element left the page: the gesture ends. */
  stop(source: GestureStopSource): void {
    if (!this.running) return;
    this.dispatch('pointercancel');
    this.finish(source);
  }

  private readonly step = (): void => {
    const running = this.running;
    if (!running) return;
    const t = running.duration > 0 ? Math.min(1, (performance.now() - running.start) / running.duration) : 1;
    running.paths.forEach((f, i) => {
      running.positions[i].x = pathAt(f.x, t);
      running.positions[i].y = pathAt(f.y, t);
    });
    this.dispatch('pointermove');
    if (t < 1) {
      this.frame = requestAnimationFrame(this.step);
      return;
    }
    this.dispatch('pointerup');
    this.finish('automatic');
  };

  private finish(source: GestureStopSource): void {
    cancelAnimationFrame(this.frame);
    this.running = undefined;
    for (const finger of this.host.fingers) finger.style.opacity = '0';
    this.host.element.dispatchEvent(new CustomEvent('interact-stopped', { detail: { source } }));
  }

  /** Each finger's touch of `type` at its position; the finger overlays follow. */
  private dispatch(type: 'pointerdown' | 'pointermove' | 'pointerup' | 'pointercancel'): void {
    const running = this.running!;
    const rect = this.host.surface.getBoundingClientRect();
    running.positions.forEach((p, i) => {
      const x = rect.width * p.x, y = rect.height * p.y;
      const overlay = this.host.fingers[i];
      if (overlay) {
        overlay.style.transform = `translate(${x}px, ${y}px)`;
        if (type === 'pointerdown') overlay.style.opacity = '1';
      }
      // altKey marks the touches as the gesture's (model-viewer's convention), not the user's.
      this.host.surface.dispatchEvent(new PointerEvent(type, {
        pointerId: FINGER_POINTER_ID + i, pointerType: 'touch', isPrimary: i === 0, altKey: true,
        clientX: rect.x + x, clientY: rect.y + y, button: 0, buttons: type === 'pointerup' || type === 'pointercancel' ? 0 : 1,
        bubbles: true, composed: true, cancelable: true,
      }));
    });
  }
}
