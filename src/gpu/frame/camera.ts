import { setIdentity } from '../../math/trs.ts';
import { lookAtView, perspectiveProjection } from '../../math/view-projection.ts';
import type { Bounds } from './bounds.ts';

/** What the Renderer needs from a camera each frame. `update` must allocate nothing. */
export interface Camera {
  /** Recomputes `view`, `projection` and `position` for a viewport of this aspect (width / height). */
  update(aspect: number): void;
  /** World → view, column-major. */
  readonly view: Float32Array;
  /** View → clip, WebGPU depth range 0..1, column-major. */
  readonly projection: Float32Array;
  /** Eye position in world units. */
  readonly position: Float32Array;
  /**
   * The eye position in double precision, if the camera has it: the Renderer subtracts it
   * from every model matrix in float64 before rounding to float32 (camera-relative
   * rendering, src/gpu/frame/camera-relative.ts), so it should be exact far from the origin.
   * Without it `position` is used.
   */
  readonly eye?: Float64Array;
}

const UP = Float32Array.of(0, 1, 0);
const ZERO = new Float32Array(3);
/** Stops short of the poles, where lookAt's up vector becomes degenerate. */
export const MAX_PITCH = (89 * Math.PI) / 180;
/** Extra room around the framed bounding sphere. */
export const FRAME_MARGIN = 1.1;
/** near = distance / NEAR_RATIO keeps depth precision near the model. */
const NEAR_RATIO = 100;

const basis = new Float64Array(9);
const cornerOffset = new Float64Array(3);

/** Corner `corner` of `bounds` (bit 0, 1, 2: the max of x, y, z) relative to its centre, into `out`. */
function boxCorner(bounds: Bounds, corner: number, out: Float64Array): Float64Array {
  for (let axis = 0; axis < 3; axis++) out[axis] = (corner & (1 << axis) ? bounds.max[axis] : bounds.min[axis]) - bounds.center[axis];
  return out;
}

/** The orbit's basis at (yaw, pitch) into `out`: towards the eye (0–2), right (3–5), up (6–8). */
function orbitBasis(yaw: number, pitch: number, out: Float64Array): Float64Array {
  const cp = Math.cos(pitch), sp = Math.sin(pitch), cy = Math.cos(yaw), sy = Math.sin(yaw);
  out[0] = cp * sy; out[1] = sp; out[2] = cp * cy;
  out[3] = cy; out[4] = 0; out[5] = -sy;
  out[6] = -sp * sy; out[7] = cp; out[8] = -sp * cy;
  return out;
}

/**
 * A camera orbiting `target`: yaw about +Y (0 looks from +Z towards −Z, glTF's "front"),
 * pitch above the horizon, distance in world units. Angles in radians.
 */
export class OrbitCamera implements Camera {
  yaw = 0;
  pitch = 0;
  distance = 3;
  /** What the camera looks at, in double precision (see `eye`). */
  readonly target = new Float64Array(3);
  /** Vertical field of view, radians. */
  fovY = (40 * Math.PI) / 180;
  near = 0.03;
  far = 100;
  readonly view = setIdentity(new Float32Array(16));
  readonly projection = setIdentity(new Float32Array(16));
  readonly position = new Float32Array(3);
  readonly eye = new Float64Array(3);
  /** The eye relative to the target (float32, small): lookAt's input, so the rotation does not depend on where the target is. */
  private readonly relativeEye = new Float32Array(3);

  /** Rotates around the target; pitch is clamped short of straight up/down. */
  orbit(deltaYaw: number, deltaPitch: number): void {
    this.yaw += deltaYaw;
    this.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, this.pitch + deltaPitch));
  }

  /** Multiplies the distance (factor < 1 moves closer). */
  zoom(factor: number): void {
    this.distance = Math.max(this.near * 2, this.distance * factor);
  }

  /**
   * Aims at the centre of `bounds` from the current yaw/pitch and backs off until all
   * eight corners of the box are inside both fields of view at `aspect` (with
   * FRAME_MARGIN); sets near and far around the box's bounding sphere. Returns the camera
   * (`new OrbitCamera().frame(bounds, aspect)`).
   */
  frame(bounds: Bounds, aspect = 1): this {
    this.target.set(bounds.center);
    const tanY = Math.tan(this.fovY / 2);
    const tanX = tanY * aspect;
    const b = orbitBasis(this.yaw, this.pitch, basis);
    let distance = 0;
    for (let corner = 0; corner < 8; corner++) {
      const c = boxCorner(bounds, corner, cornerOffset);
      const towards = c[0] * b[0] + c[1] * b[1] + c[2] * b[2];
      const right = Math.abs(c[0] * b[3] + c[2] * b[5]);
      const up = Math.abs(c[0] * b[6] + c[1] * b[7] + c[2] * b[8]);
      distance = Math.max(distance, towards + (right * FRAME_MARGIN) / tanX, towards + (up * FRAME_MARGIN) / tanY);
    }
    this.distance = Math.max(distance, bounds.radius * 1e-3);
    this.near = Math.max(this.distance - bounds.radius * 2, this.distance / NEAR_RATIO);
    this.far = this.distance + bounds.radius * 4;
    return this;
  }

  /**
   * Width over height the view needs for every corner of `bounds` to fit across it, with
   * FRAME_MARGIN, from the current yaw, pitch, fovY and distance to the box's centre: the
   * horizontal half of `frame`'s rule (model-viewer's "ideal aspect"). A view at least this wide
   * shows the box framed vertically by `frame(bounds, Infinity)` whole.
   */
  framedAspect(bounds: Bounds): number {
    const tanY = Math.tan(this.fovY / 2);
    const b = orbitBasis(this.yaw, this.pitch, basis);
    let tanX = 0;
    for (let corner = 0; corner < 8; corner++) {
      const c = boxCorner(bounds, corner, cornerOffset);
      const depth = this.distance - (c[0] * b[0] + c[1] * b[1] + c[2] * b[2]);
      if (depth > 0) tanX = Math.max(tanX, (Math.abs(c[0] * b[3] + c[2] * b[5]) * FRAME_MARGIN) / depth);
    }
    return tanY > 0 && tanX > 0 ? tanX / tanY : 1;
  }

  update(aspect: number): void {
    const cp = Math.cos(this.pitch);
    const rel = this.relativeEye;
    rel[0] = this.distance * cp * Math.sin(this.yaw);
    rel[1] = this.distance * Math.sin(this.pitch);
    rel[2] = this.distance * cp * Math.cos(this.yaw);
    const e = this.eye;
    for (let c = 0; c < 3; c++) e[c] = this.target[c] + rel[c];
    this.position.set(e);
    // The rotation from the small relative offset (identical at any distance from the
    // origin), then the translation −R·eye in float64.
    lookAtView(rel, ZERO, UP, this.view);
    const v = this.view;
    for (let r = 0; r < 3; r++) v[12 + r] = -(v[r] * e[0] + v[4 + r] * e[1] + v[8 + r] * e[2]);
    perspectiveProjection(this.fovY, aspect, this.near, this.far, this.projection);
  }
}
