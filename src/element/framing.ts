import type { AnimationPlayer } from '../anim/player.ts';
import { computeInstanceBounds, type Bounds } from '../gpu/bounds.ts';
import { MAX_PITCH, OrbitCamera } from '../gpu/camera.ts';
import { DEFAULT_PHI, DEFAULT_THETA, type CameraOrbit } from './attributes.ts';

/** Poses sampled over the clip when framing: enough to catch a stride's extremes. */
export const FRAMING_SAMPLES = 8;
/** How far camera controls may zoom, relative to the distance `camera-orbit` asks for. */
export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 10;

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

/**
 * The viewer's camera policy, model-viewer style: `camera-orbit` says where the camera
 * starts (angles, and a distance in metres or as a share of the framed one); the framed
 * distance is recomputed when the canvas's aspect changes; the user's orbit and zoom apply
 * on top until the orbit is set again.
 */
export class ViewerCamera {
  readonly camera = new OrbitCamera();
  private orbit: CameraOrbit = AUTO_ORBIT;
  private bounds: Bounds | undefined;
  private aspect = 1;
  /** The distance at which the model fits, for the current angles and aspect. */
  private framedDistance = 1;
  private userZoom = 1;

  /** Puts the camera where `orbit` says around `bounds`, framed for `aspect`; forgets user orbit and zoom. */
  reset(orbit: CameraOrbit, bounds: Bounds | undefined, aspect: number): void {
    this.orbit = orbit;
    this.bounds = bounds;
    this.camera.yaw = orbit.theta ?? DEFAULT_THETA;
    this.camera.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, Math.PI / 2 - (orbit.phi ?? DEFAULT_PHI)));
    this.userZoom = 1;
    this.setAspect(aspect, true);
  }

  /** The canvas's width / height changed: frame again at the current angles. */
  setAspect(aspect: number, force = false): void {
    if (!force && aspect === this.aspect) return;
    this.aspect = aspect;
    if (!this.bounds) return;
    this.camera.frame(this.bounds, aspect);
    this.framedDistance = this.camera.distance;
    this.applyDistance();
  }

  orbitBy(deltaYaw: number, deltaPitch: number): void {
    this.camera.orbit(deltaYaw, deltaPitch);
  }

  zoomBy(factor: number): void {
    this.userZoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.userZoom * factor));
    this.applyDistance();
  }

  private applyDistance(): void {
    const bounds = this.bounds;
    if (!bounds) return;
    const radius = this.orbit.radius;
    const base = radius === undefined ? this.framedDistance
      : radius.unit === 'm' ? radius.value : this.framedDistance * (radius.value / 100);
    const distance = Math.max(bounds.radius * 1e-3, base * this.userZoom);
    const camera = this.camera;
    camera.distance = distance;
    // As OrbitCamera.frame does: the planes hug the bounding sphere, for depth precision.
    camera.near = Math.max(distance - bounds.radius * 2, distance / 100);
    camera.far = distance + bounds.radius * 4;
  }
}
