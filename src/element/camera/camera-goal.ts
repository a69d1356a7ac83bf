import { parseAngle, parseCameraOrbit, parseLength, type CameraOrbit, type OrbitRadius } from '../attributes.ts';

/**
 * The camera attributes of <skinned-mesh-viewer> after model-viewer's (`camera-target`,
 * `field-of-view`, `min-/max-camera-orbit`, `min-/max-field-of-view`,
 * `interpolation-decay`, `rotation-per-second`, `auto-rotate-delay`), parsed, and the
 * critically damped easing that moves the camera towards its goal. Pure: no DOM, tested in
 * Node. Angles in radians, lengths in metres, times in seconds.
 */

const DEG = Math.PI / 180;

/** model-viewer's `field-of-view="auto"`: 30° vertical. */
export const DEFAULT_FIELD_OF_VIEW = 30 * DEG;
/** model-viewer 4.4's `min-field-of-view="auto"` (DEFAULT_MIN_FOV_DEG). */
export const DEFAULT_MIN_FIELD_OF_VIEW = 12 * DEG;
/** model-viewer 4.4's `max-field-of-view="auto"`: the default field of view, widened like it for a narrow element (framing.ts). */
export const DEFAULT_MAX_FIELD_OF_VIEW = 30 * DEG;
/** model-viewer's polar limits for `auto`: the camera stays 22.5° off straight above and below. */
export const DEFAULT_MIN_PHI = 22.5 * DEG;
export const DEFAULT_MAX_PHI = 157.5 * DEG;
/** `interpolation-decay` default, seconds (model-viewer: 50 ms). */
export const DEFAULT_INTERPOLATION_DECAY = 0.05;
/** `auto-rotate-delay` default, seconds (model-viewer: 3000 ms). */
export const DEFAULT_AUTO_ROTATE_DELAY = 3;
/** `rotation-per-second` default, radians per second (model-viewer 4.4: π/32, about 5.6° a second). */
export const DEFAULT_ROTATION_PER_SECOND = Math.PI / 32;
/** How far camera controls may zoom by default, relative to the distance `camera-orbit` asks for. */
export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 10;

/** `camera-target`: a point in metres; undefined coordinates are `auto` (the framed box's centre). */
export interface CameraTarget {
  readonly x: number | undefined;
  readonly y: number | undefined;
  readonly z: number | undefined;
}

export const AUTO_TARGET: CameraTarget = { x: undefined, y: undefined, z: undefined };

/** `camera-target="0m 1.5m -20cm"`: three lengths (m, cm, mm, bare metres) or `auto`; missing trailing terms are auto. Malformed → undefined. */
export function parseCameraTarget(text: string | null | undefined): CameraTarget | undefined {
  const tokens = (text ?? '').trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length > 3) return undefined;
  const out: (number | undefined)[] = [];
  for (let i = 0; i < 3; i++) {
    if (i >= tokens.length || tokens[i].toLowerCase() === 'auto') {
      out.push(undefined);
      continue;
    }
    // Negative coordinates are fine here (parseLength refuses them as a radius).
    const negative = tokens[i].startsWith('-');
    const length = parseLength(negative ? tokens[i].slice(1) : tokens[i]);
    if (!length || length.unit !== 'm') return undefined;
    out.push(negative ? -length.value : length.value);
  }
  return { x: out[0], y: out[1], z: out[2] };
}

/** An angle attribute (`30deg`, `0.5rad`, bare radians): absent or `auto` → `fallback`; malformed or not finite → undefined. */
export function parseAngleOr(text: string | null | undefined, fallback: number): number | undefined {
  if (text === null || text === undefined || text.trim() === '') return fallback;
  const angle = parseAngle(text.trim());
  if (angle === null) return undefined;
  return angle === undefined ? fallback : Number.isFinite(angle) ? angle : undefined;
}

/**
 * `rotation-per-second`: an angle per second (`30deg`, `0.5rad`, bare radians; negative turns the
 * other way) or a percentage of the default (`-100%`), as model-viewer 4.4 reads it; absent or
 * `auto` → the default; malformed → undefined.
 */
export function parseRotationRate(text: string | null | undefined): number | undefined {
  const t = text?.trim();
  const percent = t ? /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)%$/i.exec(t) : null;
  if (percent) return (Number(percent[1]) / 100) * DEFAULT_ROTATION_PER_SECOND;
  return parseAngleOr(t, DEFAULT_ROTATION_PER_SECOND);
}

/** Milliseconds as model-viewer writes them (`50`, `50ms`, `0.05s`) → seconds; absent → `fallback`; malformed or negative → undefined. */
export function parseMilliseconds(text: string | null | undefined, fallback: number): number | undefined {
  if (text === null || text === undefined || text.trim() === '') return fallback;
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(ms|s)?\s*$/i.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1 : 0.001);
  return value >= 0 && Number.isFinite(value) ? value : undefined;
}

/** `min-camera-orbit` / `max-camera-orbit`, resolved: angles in radians (±Infinity for an open theta), radii as given. */
export interface OrbitLimits {
  minTheta: number;
  maxTheta: number;
  minPhi: number;
  maxPhi: number;
  /** undefined: `auto` (MIN_ZOOM / MAX_ZOOM of the `camera-orbit` distance). */
  minRadius: OrbitRadius | undefined;
  maxRadius: OrbitRadius | undefined;
}

/**
 * Both limit attributes into `dst` (model-viewer's defaults for `auto` terms: theta open,
 * phi 22.5°…157.5°). Returns the attribute that is malformed, if one is (its terms stay `auto`).
 */
export function parseOrbitLimits(minText: string | null, maxText: string | null, dst: OrbitLimits): 'min-camera-orbit' | 'max-camera-orbit' | undefined {
  const min: CameraOrbit | undefined = parseCameraOrbit(minText);
  const max: CameraOrbit | undefined = parseCameraOrbit(maxText);
  dst.minTheta = min?.theta ?? -Infinity;
  dst.maxTheta = max?.theta ?? Infinity;
  // Never straight above or below: the orbit's up vector would be undefined there.
  dst.minPhi = Math.max(1e-3, min?.phi ?? DEFAULT_MIN_PHI);
  dst.maxPhi = Math.min(Math.PI - 1e-3, max?.phi ?? DEFAULT_MAX_PHI);
  dst.minRadius = min?.radius;
  dst.maxRadius = max?.radius;
  return !min ? 'min-camera-orbit' : !max ? 'max-camera-orbit' : undefined;
}

/**
 * A vertical field of view `fov` (radians) widened for an element whose width over height is
 * `aspect`, so that a model `idealAspect` wide (as framed at `fov`) still fits across it:
 * tan(fov/2) grows by idealAspect / aspect when the element is narrower than that, as
 * model-viewer 4.4's `adjustedFoV` does; otherwise `fov` itself.
 */
export function widenFieldOfView(fov: number, idealAspect: number, aspect: number): number {
  const ratio = idealAspect / aspect;
  return ratio > 1 && Number.isFinite(ratio) ? 2 * Math.atan(Math.tan(fov / 2) * ratio) : fov;
}

export function clamp(value: number, min: number, max: number): number {
  return value < min ? min : value > max ? max : value;
}

/**
 * A critically damped spring per component, stepped exactly (stable at any frame time):
 * with ω = 3 / decay, about 80% of a move is done after `decay` seconds and it settles
 * without overshoot, the "asymptotic decay" model-viewer's `interpolation-decay` describes.
 * `value`, `velocity` and `goal` are parallel arrays owned by the caller; `step` allocates
 * nothing and returns whether any component is still moving.
 */
export function stepDamped(
  value: Float64Array, velocity: Float64Array, goal: Float64Array, decay: number, dt: number, epsilon: Float64Array,
): boolean {
  let moving = false;
  const n = value.length;
  if (!(decay > 0)) {
    for (let i = 0; i < n; i++) { value[i] = goal[i]; velocity[i] = 0; }
    return false;
  }
  const omega = 3 / decay;
  const e = Math.exp(-omega * dt);
  for (let i = 0; i < n; i++) {
    const d0 = value[i] - goal[i], v0 = velocity[i];
    if (d0 === 0 && v0 === 0) continue;
    const c = v0 + omega * d0;
    const d = (d0 + c * dt) * e;
    const v = (v0 - omega * c * dt) * e;
    if (Math.abs(d) < epsilon[i] && Math.abs(v) * decay < epsilon[i]) {
      value[i] = goal[i];
      velocity[i] = 0;
    } else {
      value[i] = goal[i] + d;
      velocity[i] = v;
      moving = true;
    }
  }
  return moving;
}
