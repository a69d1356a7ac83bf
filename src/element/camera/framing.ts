import type { AnimationPlayer } from '../../anim/player.ts';
import { computeInstanceBounds, type Bounds } from '../../gpu/frame/bounds.ts';
import { OrbitCamera } from '../../gpu/frame/camera.ts';
import { DEFAULT_PHI, DEFAULT_THETA, type CameraOrbit } from '../attributes.ts';
import {
  AUTO_TARGET, clamp, DEFAULT_AUTO_ROTATE_DELAY, DEFAULT_FIELD_OF_VIEW, DEFAULT_INTERPOLATION_DECAY, DEFAULT_MAX_FIELD_OF_VIEW,
  DEFAULT_MAX_PHI, DEFAULT_MIN_FIELD_OF_VIEW, DEFAULT_MIN_PHI, DEFAULT_ROTATION_PER_SECOND, MAX_ZOOM, MIN_ZOOM, stepDamped,
  widenFieldOfView, type CameraTarget, type OrbitLimits,
} from './camera-goal.ts';

export { MAX_ZOOM, MIN_ZOOM } from './camera-goal.ts';

/** Poses sampled over the clip when framing: enough to catch a stride's extremes. */
export const FRAMING_SAMPLES = 8;

export const AUTO_ORBIT: CameraOrbit = { theta: undefined, phi: undefined, radius: undefined };

/**
 * The box the player's current clip sweeps, sampled at FRAMING_SAMPLES times, so the
 * camera frames the whole motion (a walking character's feet, a raised arm) and not just
 * its first pose. `settle` runs after each seek (e.g. to lock a travelling root in place).
 * Leaves the player at the time it was at. Load-time only (skins on the CPU).
 */
export function animatedBounds(player: AnimationPlayer, settle?: (player: AnimationPlayer) => void): Bounds {
  const time = player.time;
  const duration = player.duration;
  const samples = player.clip >= 0 && duration > 0 ? FRAMING_SAMPLES : 1;
  const min = Float32Array.of(Infinity, Infinity, Infinity);
  const max = Float32Array.of(-Infinity, -Infinity, -Infinity);
  for (let k = 0; k < samples; k++) {
    if (samples > 1) player.seek((duration * k) / (samples - 1));
    settle?.(player);
    const b = computeInstanceBounds(player.instance);
    for (let c = 0; c < 3; c++) {
      min[c] = Math.min(min[c], b.min[c]);
      max[c] = Math.max(max[c], b.max[c]);
    }
  }
  if (samples > 1) player.seek(time);
  settle?.(player);
  const center = Float32Array.of((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const radius = Math.max(1e-6, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
  return { min, max, center, radius };
}

/** Why the camera moved, as model-viewer's `camera-change` event says. */
export type CameraChangeSource = 'user-interaction' | 'none' | 'automatic';

/** The camera attributes, parsed (see camera-goal.ts); the element writes them, then calls the matching ViewerCamera method. */
export interface CameraSettings {
  orbit: CameraOrbit;
  target: CameraTarget;
  /** Radians (vertical). */
  fieldOfView: number;
  minFieldOfView: number;
  maxFieldOfView: number;
  readonly limits: OrbitLimits;
  /** Seconds (`interpolation-decay`); 0 jumps. */
  decay: number;
  autoRotate: boolean;
  /** Seconds of no interaction before auto-rotation starts. */
  autoRotateDelay: number;
  /** Radians per second. */
  rotationPerSecond: number;
}

// Components of the eased state.
const THETA = 0, PHI = 1, RADIUS = 2, TARGET = 3, FOV = 6, COMPONENTS = 7;

/**
 * The viewer's camera policy, model-viewer style. The attributes and the user's orbit, zoom
 * and pan set a goal (theta, phi, radius, target, field of view) clamped to
 * `min-/max-camera-orbit` and `min-/max-field-of-view`; every frame `update` eases the
 * camera towards it (`interpolation-decay`) and keeps `auto-rotate`'s turntable angle. The
 * framed distance (`auto` radius, `%`) fits the model vertically at the field of view and is
 * recomputed when that changes; an element narrower than the framed model's aspect widens
 * the vertical field of view (as model-viewer 4.4 does) rather than moving the camera. The
 * user's zoom applies on top until `camera-orbit` is set again. `update` allocates nothing.
 */
export class ViewerCamera {
  readonly camera = new OrbitCamera();
  readonly settings: CameraSettings = {
    orbit: AUTO_ORBIT, target: AUTO_TARGET,
    fieldOfView: DEFAULT_FIELD_OF_VIEW, minFieldOfView: DEFAULT_MIN_FIELD_OF_VIEW, maxFieldOfView: DEFAULT_MAX_FIELD_OF_VIEW,
    limits: { minTheta: -Infinity, maxTheta: Infinity, minPhi: DEFAULT_MIN_PHI, maxPhi: DEFAULT_MAX_PHI, minRadius: undefined, maxRadius: undefined },
    decay: DEFAULT_INTERPOLATION_DECAY,
    autoRotate: false, autoRotateDelay: DEFAULT_AUTO_ROTATE_DELAY, rotationPerSecond: DEFAULT_ROTATION_PER_SECOND,
  };
  /** Why the goal last changed; `camera-change` reports it. */
  source: CameraChangeSource = 'none';
  private bounds: Bounds | undefined;
  private aspect = 1;
  /** The distance at which the model fits vertically, for the goal angles and the framed field of view. */
  private framedDistance = 1;
  /** `field-of-view` inside its limits: what the model is framed at before widening for a narrow element. */
  private framedFov = DEFAULT_FIELD_OF_VIEW;
  /** Width over height the framed model needs (OrbitCamera.framedAspect); 1 before a model. */
  private framedAspect = 1;
  private userZoom = 1;
  private readonly value = new Float64Array(COMPONENTS);
  private readonly velocity = new Float64Array(COMPONENTS);
  private readonly goal = new Float64Array(COMPONENTS);
  private readonly epsilon = new Float64Array(COMPONENTS);
  private readonly framer = new OrbitCamera();
  /** The turntable angle (a typed array: a double field would box on every frame). */
  private readonly turn = new Float64Array(1);
  /** Seconds since the last interaction (auto-rotate waits `autoRotateDelay`). */
  private idle = 0;
  /** The goal or the camera changed since the last update. */
  private dirty = true;
  private easing = false;

  constructor() {
    this.epsilon.fill(1e-5);
  }

  /** Puts the camera where `orbit` says around `bounds`, framed for `aspect`, at once; forgets user orbit, zoom and pan. */
  reset(orbit: CameraOrbit, bounds: Bounds | undefined, aspect: number): void {
    this.settings.orbit = orbit;
    this.bounds = bounds;
    this.aspect = aspect;
    this.idle = 0;
    this.setOrbitGoal('none');
    this.setTargetGoal('none');
    this.jumpToGoal();
  }

  /** `camera-orbit` changed (or a method moved the goal): angles and distance from it, eased; forgets user zoom. */
  setOrbitGoal(source: CameraChangeSource = 'none'): void {
    const orbit = this.settings.orbit;
    this.goal[THETA] = orbit.theta ?? DEFAULT_THETA;
    this.goal[PHI] = orbit.phi ?? DEFAULT_PHI;
    this.userZoom = 1;
    this.setFieldOfViewGoal(source);
  }

  /** `camera-target` changed, or a pan is undone: the goal target is the attribute's (auto: the framed box's centre). */
  setTargetGoal(source: CameraChangeSource = 'none'): void {
    const t = this.settings.target, c = this.bounds?.center;
    this.goal[TARGET] = t.x ?? c?.[0] ?? 0;
    this.goal[TARGET + 1] = t.y ?? c?.[1] ?? 0;
    this.goal[TARGET + 2] = t.z ?? c?.[2] ?? 0;
    this.changed(source);
  }

  /**
   * `field-of-view` (or its limits) changed: the framed distance follows, and the vertical field
   * of view is that one widened where the element is narrower than the framed model.
   */
  setFieldOfViewGoal(source: CameraChangeSource = 'none'): void {
    const s = this.settings;
    // A minimum above the maximum wins, as in model-viewer 4.4.
    this.framedFov = clamp(s.fieldOfView, s.minFieldOfView, s.maxFieldOfView);
    this.reframe(source);
  }

  /** Width over height the framed model needs (model-viewer's `getIdealAspect()`). */
  get idealAspect(): number {
    return this.framedAspect;
  }

  /** `max-field-of-view` widened as the field of view is, radians (model-viewer's `getMaximumFieldOfView()`). */
  get maxFieldOfView(): number {
    return widenFieldOfView(this.settings.maxFieldOfView, this.framedAspect, this.aspect);
  }

  /** `min-/max-camera-orbit` changed: the goal moves inside them. */
  applyLimits(source: CameraChangeSource = 'none'): void {
    this.reframe(source);
  }

  /** The canvas's width / height changed: frame again at the goal angles, at once. */
  setAspect(aspect: number, force = false): void {
    if (!force && aspect === this.aspect) return;
    this.aspect = aspect;
    this.reframe(this.source);
    this.jumpToGoal();
  }

  /** The framed box changed (crowd, root motion, updateFraming()): frame it, at once. */
  setBounds(bounds: Bounds | undefined): void {
    this.bounds = bounds;
    this.setTargetGoal(this.source);
    this.reframe(this.source);
    this.jumpToGoal();
  }

  /** The user's orbit (`source` 'automatic': a scripted gesture's, which does not hold auto-rotate back). */
  orbitBy(deltaYaw: number, deltaPitch: number, source: CameraChangeSource = 'user-interaction'): void {
    this.goal[THETA] += deltaYaw;
    // Pitch up is phi down.
    this.goal[PHI] -= deltaPitch;
    this.interacted(source);
    this.clampGoal();
  }

  zoomBy(factor: number, source: CameraChangeSource = 'user-interaction'): void {
    this.userZoom *= factor;
    this.interacted(source);
    this.applyDistance();
  }

  /**
   * Moves the target in the view plane by (dx, dy) fractions of the viewport's height
   * (right and down positive: the model follows the pointer).
   */
  panBy(dx: number, dy: number, source: CameraChangeSource = 'user-interaction'): void {
    const goal = this.goal;
    const height = 2 * goal[RADIUS] * Math.tan(goal[FOV] / 2);
    const theta = goal[THETA], phi = goal[PHI];
    const cp = Math.cos(phi), sp = Math.sin(phi), ct = Math.cos(theta), st = Math.sin(theta);
    // The camera's right (ct, 0, −st) and up (−cp·st, sp, −cp·ct) at the goal angles.
    const x = -dx * height, y = dy * height;
    goal[TARGET] += x * ct + y * -cp * st;
    goal[TARGET + 1] += y * sp;
    goal[TARGET + 2] += x * -st + y * -cp * ct;
    this.interacted(source);
    this.changed(source);
  }

  /** Skips the easing: the camera is at its goal now. */
  jumpToGoal(): void {
    this.value.set(this.goal);
    this.velocity.fill(0);
    this.dirty = true;
    this.write();
  }

  /** Where the camera is now (eased) as `camera-orbit` writes it: azimuth and polar angle (radians), distance (metres). */
  get theta(): number { return this.value[THETA]; }
  get phi(): number { return this.value[PHI]; }
  get radius(): number { return this.value[RADIUS]; }

  /** Whether frames must keep coming: easing towards the goal, or auto-rotating. */
  get active(): boolean {
    return this.easing || this.dirty || this.settings.autoRotate;
  }

  /**
   * The turntable's angle, radians about +Y: `auto-rotate` turns the model (not the camera),
   * as model-viewer's does; the stage applies it. Wrapped to (−π, π].
   */
  get turntable(): number {
    return this.turn[0];
  }

  set turntable(angle: number) {
    const t = angle % (2 * Math.PI);
    this.turn[0] = t > Math.PI ? t - 2 * Math.PI : t <= -Math.PI ? t + 2 * Math.PI : t;
    this.dirty = true;
  }

  /**
   * One frame of `dt` seconds: the turntable, then easing. Returns whether the view moved
   * (then `source` says why). Allocates nothing.
   */
  update(dt: number): boolean {
    let moved = this.dirty;
    this.dirty = false;
    this.idle += dt;
    const s = this.settings;
    let turned = false;
    if (s.autoRotate && this.idle >= s.autoRotateDelay && dt > 0) {
      const t = (this.turn[0] + s.rotationPerSecond * dt) % (2 * Math.PI);
      this.turn[0] = t > Math.PI ? t - 2 * Math.PI : t <= -Math.PI ? t + 2 * Math.PI : t;
      if (this.source !== 'user-interaction' || !this.easing) this.source = 'automatic';
      turned = true;
    }
    if (this.easing || moved) {
      this.easing = stepDamped(this.value, this.velocity, this.goal, s.decay, dt, this.epsilon);
      moved = true;
    }
    if (moved) this.write();
    return moved || turned;
  }

  private interacted(source: CameraChangeSource): void {
    if (source === 'user-interaction') this.idle = 0;
    this.source = source;
  }

  private changed(source: CameraChangeSource): void {
    this.source = source;
    this.easing = true;
    this.dirty = true;
  }

  /** Framed distance for the goal angles and field of view, then the goal distance. */
  private reframe(source: CameraChangeSource): void {
    this.clampAngles();
    const bounds = this.bounds;
    if (bounds) {
      const framer = this.framer;
      framer.yaw = this.goal[THETA];
      framer.pitch = Math.PI / 2 - this.goal[PHI];
      framer.fovY = this.framedFov;
      // Framed vertically; a narrow element widens the field of view instead of backing off (model-viewer 4.4).
      framer.frame(bounds, Infinity);
      this.framedDistance = framer.distance;
      this.framedAspect = framer.framedAspect(bounds);
      const e = this.epsilon;
      e[THETA] = e[PHI] = e[FOV] = 1e-5;
      e[RADIUS] = 1e-5 * this.framedDistance;
      e[TARGET] = e[TARGET + 1] = e[TARGET + 2] = 1e-5 * bounds.radius;
    }
    this.goal[FOV] = widenFieldOfView(this.framedFov, this.framedAspect, this.aspect);
    this.applyDistance();
    this.changed(source);
  }

  private clampAngles(): void {
    const l = this.settings.limits;
    this.goal[THETA] = clamp(this.goal[THETA], l.minTheta, Math.max(l.minTheta, l.maxTheta));
    this.goal[PHI] = clamp(this.goal[PHI], l.minPhi, Math.max(l.minPhi, l.maxPhi));
  }

  private clampGoal(): void {
    this.clampAngles();
    this.changed(this.source);
  }

  /** The radius `camera-orbit` asks for, times the user's zoom, inside the radius limits. */
  private applyDistance(): void {
    const bounds = this.bounds;
    if (!bounds) return;
    const radius = this.settings.orbit.radius;
    const base = radius === undefined ? this.framedDistance
      : radius.unit === 'm' ? radius.value : this.framedDistance * (radius.value / 100);
    const l = this.settings.limits;
    const resolve = (r: typeof l.minRadius, auto: number) => r === undefined ? auto : r.unit === 'm' ? r.value : this.framedDistance * (r.value / 100);
    const min = Math.max(bounds.radius * 1e-3, resolve(l.minRadius, base * MIN_ZOOM));
    const max = Math.max(min, resolve(l.maxRadius, base * MAX_ZOOM));
    const distance = clamp(base * this.userZoom, min, max);
    // The zoom that remains after clamping, so zooming back reverses at once.
    if (base > 0) this.userZoom = distance / base;
    this.goal[RADIUS] = distance;
    this.changed(this.source);
  }

  /** The eased state into the OrbitCamera, with clip planes around the framed box. */
  private write(): void {
    const v = this.value, camera = this.camera;
    camera.yaw = v[THETA];
    camera.pitch = Math.PI / 2 - v[PHI];
    camera.distance = v[RADIUS];
    camera.target[0] = v[TARGET];
    camera.target[1] = v[TARGET + 1];
    camera.target[2] = v[TARGET + 2];
    camera.fovY = v[FOV];
    const bounds = this.bounds;
    if (!bounds) return;
    // As OrbitCamera.frame does: the planes hug the bounding sphere, for depth precision,
    // measured from the eye to the box's centre (a pan moves the target off it).
    const cp = Math.cos(camera.pitch);
    const ex = v[TARGET] + v[RADIUS] * cp * Math.sin(v[THETA]) - bounds.center[0];
    const ey = v[TARGET + 1] + v[RADIUS] * Math.sin(camera.pitch) - bounds.center[1];
    const ez = v[TARGET + 2] + v[RADIUS] * cp * Math.cos(v[THETA]) - bounds.center[2];
    // (Not Math.hypot: its boxed arguments allocate in the per-frame path.)
    const toCenter = Math.sqrt(ex * ex + ey * ey + ez * ez);
    camera.near = Math.max(toCenter - bounds.radius * 2, v[RADIUS] / 100, 1e-6);
    camera.far = toCenter + bounds.radius * 4;
  }
}
