import type { Bounds } from '../gpu/frame/bounds.ts';
import { mulQuat } from '../math/quat.ts';
import { composeTRS } from '../math/trs.ts';
import { parseAngle } from './attributes.ts';

/**
 * model-viewer's `orientation` and `scale`: a rotation and scale of the model about its
 * origin, applied on top of the glTF's own transforms. Parsing, the matrix, and the
 * transformed box for `getDimensions()` and framing. Pure, tested in Node. As in
 * model-viewer the camera does not re-frame by itself: `updateFraming()` does.
 */

/** `orientation="$roll $pitch $yaw"`: radians about Z, X, Y, applied Z then X then Y (three.js's YXZ order, as model-viewer). */
export interface Orientation {
  readonly roll: number;
  readonly pitch: number;
  readonly yaw: number;
}

export const IDENTITY_ORIENTATION: Orientation = { roll: 0, pitch: 0, yaw: 0 };
export const UNIT_SCALE: readonly [number, number, number] = [1, 1, 1];

/** `0deg 0deg 90deg` (deg, rad, bare radians); missing terms are 0; absent → identity; malformed → undefined. */
export function parseOrientation(text: string | null | undefined): Orientation | undefined {
  const tokens = (text ?? '').trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length > 3) return undefined;
  const angles = [0, 0, 0];
  for (let i = 0; i < tokens.length; i++) {
    const a = parseAngle(tokens[i]);
    if (a === null || (a !== undefined && !Number.isFinite(a))) return undefined;
    angles[i] = a ?? 0;
  }
  return { roll: angles[0], pitch: angles[1], yaw: angles[2] };
}

/** `scale="2 2 2"` (or one number for all three): finite and non-zero; absent → 1 1 1; malformed → undefined. */
export function parseScale(text: string | null | undefined): readonly [number, number, number] | undefined {
  const tokens = (text ?? '').trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length === 0) return UNIT_SCALE;
  if (tokens.length !== 1 && tokens.length !== 3) return undefined;
  const values = tokens.map(Number);
  if (values.some((v) => !Number.isFinite(v) || v === 0)) return undefined;
  return tokens.length === 1 ? [values[0], values[0], values[0]] : [values[0], values[1], values[2]];
}

const ZERO = new Float64Array(3);
const qz = new Float64Array(4), qx = new Float64Array(4), qy = new Float64Array(4), q = new Float64Array(4), s3 = new Float64Array(3);

/** dst = the quaternion (x y z w) of Ry(yaw) · Rx(pitch) · Rz(roll). Allocates nothing. */
export function orientationQuaternion(orientation: Orientation, dst: Float64Array): Float64Array {
  const { roll, pitch, yaw } = orientation;
  qz[2] = Math.sin(roll / 2); qz[3] = Math.cos(roll / 2);
  qx[0] = Math.sin(pitch / 2); qx[3] = Math.cos(pitch / 2);
  qy[1] = Math.sin(yaw / 2); qy[3] = Math.cos(yaw / 2);
  mulQuat(qx, 0, qz, 0, dst, 0);
  return mulQuat(qy, 0, dst, 0, dst, 0);
}

/** dst = Ry(yaw) · Rx(pitch) · Rz(roll) · S, column-major. Allocates nothing. */
export function modelMatrix(orientation: Orientation, scale: ArrayLike<number>, dst: Float64Array): Float64Array {
  orientationQuaternion(orientation, q);
  s3[0] = scale[0]; s3[1] = scale[1]; s3[2] = scale[2];
  return composeTRS(ZERO, q, s3, dst);
}

/** `orientation` and `scale` attributes into `dst` (a malformed one warns and counts as absent). */
export function readModelMatrix(orientation: string | null, scale: string | null, warn: (message: string) => void, dst: Float64Array): Float64Array {
  const o = parseOrientation(orientation), s = parseScale(scale);
  if (!o) warn(`orientation="${orientation}" is not "$roll $pitch $yaw" (e.g. "0deg 0deg 90deg"); using 0 0 0`);
  if (!s) warn(`scale="${scale}" is not "$x $y $z" of non-zero numbers; using 1 1 1`);
  return modelMatrix(o ?? IDENTITY_ORIENTATION, s ?? UNIT_SCALE, dst);
}

/** The axis-aligned box around `bounds`' box transformed by `m`. Allocates (attribute changes and framing only). */
export function transformBounds(bounds: Bounds, m: ArrayLike<number>): Bounds {
  const min = Float32Array.of(Infinity, Infinity, Infinity), max = Float32Array.of(-Infinity, -Infinity, -Infinity);
  for (let corner = 0; corner < 8; corner++) {
    const x = corner & 1 ? bounds.max[0] : bounds.min[0];
    const y = corner & 2 ? bounds.max[1] : bounds.min[1];
    const z = corner & 4 ? bounds.max[2] : bounds.min[2];
    for (let r = 0; r < 3; r++) {
      const v = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r];
      min[r] = Math.min(min[r], v);
      max[r] = Math.max(max[r], v);
    }
  }
  const center = Float32Array.of((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const radius = Math.max(1e-6, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
  return { min, max, center, radius };
}
