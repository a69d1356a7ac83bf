import type { AnimationPlayer } from '../anim/player.ts';
import type { VrmRuntime } from '../anim/vrm/vrm-runtime.ts';
import { parseNumber } from './attributes.ts';

/**
 * What <skinned-mesh-viewer> does with a VRM avatar, beside drawing it: the `expression`,
 * `look-at`, `auto-blink` and `spring-bones` attributes, `setExpression()`, `expressions` and
 * `resetSpringBones()`, applied to the player's VRM steps (src/anim/vrm) once per frame before
 * the pose is evaluated. The avatar's world matrix (where the element draws it: orientation,
 * scale, turntable, root motion) is handed to the springs, so moving the model swings its hair,
 * and to the look-at, so `look-at="camera"` follows the camera. `frame` allocates nothing.
 */

/** `expression="happy:1 blink:0.5"`: names with optional weights (default 1), separated by spaces or commas. Undefined when malformed. */
export function parseExpressionWeights(text: string | null): Map<string, number> | undefined {
  const out = new Map<string, number>();
  for (const token of (text ?? '').split(/[\s,]+/).filter((t) => t.length > 0)) {
    const colon = token.lastIndexOf(':');
    const name = colon < 0 ? token : token.slice(0, colon);
    const weight = colon < 0 ? 1 : Number(token.slice(colon + 1));
    if (name.length === 0 || !(weight >= 0 && weight <= 1) || (colon >= 0 && token.slice(colon + 1).trim() === '')) return undefined;
    out.set(name, weight);
  }
  return out;
}

export type LookAtSetting = { readonly kind: 'none' } | { readonly kind: 'camera' } | { readonly kind: 'point'; readonly point: readonly [number, number, number] };

/** `look-at="camera"`, a point `"x y z"` in the scene's metres (`m` units allowed), or absent/`none`. Undefined when malformed. */
export function parseLookAt(text: string | null): LookAtSetting | undefined {
  const t = (text ?? '').trim();
  if (t === '' || t === 'none') return { kind: 'none' };
  if (t === 'camera') return { kind: 'camera' };
  const parts = t.split(/\s+/).map((p) => parseNumber(p.endsWith('m') ? p.slice(0, -1) : p));
  if (parts.length !== 3 || parts.some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  return { kind: 'point', point: [parts[0]!, parts[1]!, parts[2]!] };
}

/** Seconds a blink takes to close, stay shut and open (a natural blink is about a quarter second). */
const BLINK_CLOSE = 0.08, BLINK_SHUT = 0.04, BLINK_OPEN = 0.12;
/** Seconds between blinks: uniformly spread over this range. */
const BLINK_GAP_MIN = 2, BLINK_GAP_MAX = 5;

/**
 * `auto-blink`: the blink expression's weight over time — closes, stays shut, opens, then waits
 * 2–5 s. Deterministic (its own small generator), so a page and a test see the same blinks.
 */
export class AutoBlink {
  /** Seconds into the current cycle; the blink starts at `gap`. */
  private clock = 0;
  private gap = BLINK_GAP_MIN;
  private seed = 0x2545f491;

  /** Advances by `dt` seconds and returns the blink weight now (0…1). */
  advance(dt: number): number {
    this.clock += dt > 0 ? dt : 0;
    const end = this.gap + BLINK_CLOSE + BLINK_SHUT + BLINK_OPEN;
    if (this.clock >= end) {
      this.clock -= end;
      if (this.clock > end) this.clock = 0; // a long stall: start a fresh cycle
      this.seed = (Math.imul(this.seed, 1664525) + 1013904223) >>> 0;
      this.gap = BLINK_GAP_MIN + (this.seed / 4294967296) * (BLINK_GAP_MAX - BLINK_GAP_MIN);
    }
    const t = this.clock - this.gap;
    if (t < 0) return 0;
    if (t < BLINK_CLOSE) return t / BLINK_CLOSE;
    if (t < BLINK_CLOSE + BLINK_SHUT) return 1;
    return Math.max(0, 1 - (t - BLINK_CLOSE - BLINK_SHUT) / BLINK_OPEN);
  }
}

/** The element's spring step (s): the springs advance in whole steps of it (at most MAX_FIXED_STEPS a frame). */
const FIXED_SPRING_STEP = 1 / 60;

/** Tail speed (m/s) under which the springs count as settled, and how long they must stay so before frames stop. */
const SETTLED_SPEED = 1e-3, SETTLED_SECONDS = 1;

export interface ViewerVrmHost {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  /** Where the element draws the one character (its world matrix), or null for the identity. */
  placement(): Float64Array | null;
  /** The camera's eye in the scene, double precision. */
  eye(): Float64Array | undefined;
  warn(message: string): void;
  /** Asks for a frame: a paused avatar whose springs rest draws none by itself. */
  invalidate(): void;
}

export class ViewerVrm {
  private attributeWeights = new Map<string, number>();
  private readonly programmatic = new Map<string, number>();
  private lookAtSetting: LookAtSetting = { kind: 'none' };
  private autoBlink = false;
  private springs = true;
  private readonly blink = new AutoBlink();
  /** The runtime these arrays were made for, and per expression: the attribute's weight and the one set in code (NaN: none). */
  private runtime: VrmRuntime | undefined;
  private base = new Float32Array(0);
  private override = new Float32Array(0);
  private blinkIndex = -1;
  private settledFor = 0;

  constructor(private readonly host: ViewerVrmHost) {
    this.attributesChanged();
  }

  /** Re-reads `expression`, `look-at`, `auto-blink` and `spring-bones` (a malformed value warns and counts as absent). */
  attributesChanged(): void {
    const h = this.host;
    const weights = parseExpressionWeights(h.getAttribute('expression'));
    if (!weights) h.warn(`expression="${h.getAttribute('expression')}" is not "name:weight …" with weights in [0, 1]; ignored`);
    this.attributeWeights = weights ?? new Map();
    const lookAt = parseLookAt(h.getAttribute('look-at'));
    if (!lookAt) h.warn(`look-at="${h.getAttribute('look-at')}" is not "camera", "none" or "x y z"; ignored`);
    this.lookAtSetting = lookAt ?? { kind: 'none' };
    this.autoBlink = h.hasAttribute('auto-blink');
    const springs = h.getAttribute('spring-bones');
    if (springs !== null && springs !== 'on' && springs !== 'off') h.warn(`spring-bones="${springs}" is not "on" or "off"; using on`);
    this.springs = springs !== 'off';
    this.runtime = undefined; // the weights are rebuilt at the next frame
  }

  /** The shown avatar's expression names (empty for a model without VRM expressions). */
  expressionNames(player: AnimationPlayer | undefined): string[] {
    return player?.instance.vrm?.expressionNames ?? [];
  }

  /** Sets an expression's weight from code (over the `expression` attribute); `NaN` or null clears it. Unknown names warn. */
  setExpression(player: AnimationPlayer | undefined, name: string, weight: number | null): void {
    if (weight === null || Number.isNaN(weight)) this.programmatic.delete(name);
    else this.programmatic.set(name, Math.min(1, Math.max(0, weight)));
    const vrm = player?.instance.vrm;
    if (vrm && vrm.expressions.find(name) < 0) this.host.warn(`setExpression("${name}"): the model has no such expression; it has ${vrm.expressionNames.join(', ')}`);
    this.runtime = undefined;
    // The weight is written at the next frame: paused and at rest, nothing else would draw one.
    this.host.invalidate();
  }

  resetSpringBones(player: AnimationPlayer | undefined): void {
    player?.instance.vrm?.resetSpringBones();
    this.settledFor = 0;
    this.host.invalidate();
  }

  /**
   * Before the frame's pose: the element's settings onto the player's VRM runtime. True while the
   * avatar needs frames though its clip is paused (springs still moving, blinking, eyes following
   * the camera); false for a model without VRM data. `changed`: the frame draws a change (a turn,
   * a seek, a new expression), so springs at rest get frames to answer it until they rest anew;
   * without them a paused avatar turned in place drew one frame, with no time elapsed, and froze.
   */
  frame(player: AnimationPlayer, elapsed: number, changed: boolean): boolean {
    const vrm = player.instance.vrm;
    if (!vrm) return false;
    if (vrm !== this.runtime) this.bind(vrm);
    const w = vrm.expressions.weights;
    for (let i = 0; i < w.length; i++) w[i] = Number.isNaN(this.override[i]) ? this.base[i] : this.override[i];
    let active = false;
    if (this.autoBlink && this.blinkIndex >= 0) {
      const b = this.blink.advance(elapsed);
      if (b > w[this.blinkIndex]) w[this.blinkIndex] = b;
      active = true;
    }
    const placement = this.host.placement();
    const world = vrm.worldFromModel;
    if (placement) for (let i = 0; i < 16; i++) world[i] = placement[i];
    else for (let i = 0; i < 16; i++) world[i] = i % 5 === 0 ? 1 : 0;
    const lookAt = vrm.lookAt;
    if (lookAt) {
      const s = this.lookAtSetting;
      const eye = this.host.eye();
      if (s.kind === 'camera' && eye) {
        lookAt.lookAt(eye[0], eye[1], eye[2]);
        active = true;
      } else if (s.kind === 'point') {
        lookAt.lookAt(s.point[0], s.point[1], s.point[2]);
      } else if (lookAt.hasTarget) {
        lookAt.enabled = false;
        lookAt.hasTarget = false;
      }
    }
    if (vrm.springsEnabled !== this.springs) vrm.springsEnabled = this.springs;
    if (this.springs && vrm.springs) {
      // Keep drawing until the hair has come to rest for a while.
      if (changed) this.settledFor = 0;
      const speed = maxTailSpeed(vrm);
      this.settledFor = speed < SETTLED_SPEED ? this.settledFor + elapsed : 0;
      if (this.settledFor < SETTLED_SECONDS) active = true;
    }
    return active;
  }

  /** The runtime's per-expression weights from the attribute and from code. */
  private bind(vrm: VrmRuntime): void {
    const n = vrm.expressions.expressions.length;
    if (vrm !== this.runtime && this.base.length !== n) {
      this.base = new Float32Array(n);
      this.override = new Float32Array(n);
    }
    this.base.fill(0);
    this.override.fill(NaN);
    for (const [name, weight] of this.attributeWeights) {
      const i = vrm.expressions.find(name);
      if (i >= 0) this.base[i] = weight;
      else this.host.warn(`expression="${name}:…": the model has no such expression; it has ${vrm.expressionNames.join(', ')}`);
    }
    for (const [name, weight] of this.programmatic) {
      const i = vrm.expressions.find(name);
      if (i >= 0) this.override[i] = weight;
    }
    this.blinkIndex = vrm.expressions.find('blink');
    // Fixed steps (FIXED_SPRING_STEP): every step the same length, whatever the frame times. A tail
    // resting against a collider comes to rest where the push out of it and back to the bone length
    // leave it, which depends on how far one step carried it in; under the frames' varying wall
    // time it rested somewhere new every frame, ~1-3 mm apart, and a paused avatar never settled.
    vrm.springMode = 'fixed';
    vrm.fixedStep = FIXED_SPRING_STEP;
    this.runtime = vrm;
    this.settledFor = 0;
  }
}

/**
 * The fastest spring tail's speed over the last step (m/s), from the job's current and previous
 * tails and the step's length (not this frame's: the step was taken in an earlier frame, or is one
 * of several fixed steps).
 */
function maxTailSpeed(vrm: VrmRuntime): number {
  const s = vrm.springs!, dt = vrm.lastSpringStep;
  if (!(dt > 0)) return Infinity;
  let max = 0;
  const c = s.currentTail, p = s.prevTail;
  for (let i = 0; i < c.length; i += 3) {
    const dx = c[i] - p[i], dy = c[i + 1] - p[i + 1], dz = c[i + 2] - p[i + 2];
    const d = dx * dx + dy * dy + dz * dz;
    if (d > max) max = d;
  }
  return Math.sqrt(max) / dt;
}
