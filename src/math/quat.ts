/**
 * Quaternion interpolation on flat arrays (x y z w). Offsets let callers keep
 * every joint's rotation in one typed array; `dst` may alias an input.
 */
import type { NumArray } from './types.ts';

/**
 * Spherical interpolation on the shortest arc: b is negated when a·b < 0, since
 * q and -q are the same rotation. Falls back to normalised lerp when the angle is tiny.
 */
export function slerpQuat<T extends NumArray>(
  a: NumArray, b: NumArray, t: number, dst: T, ao = 0, bo = 0, dstOffset = 0,
): T {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) {
    cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw;
  }
  let ka: number, kb: number;
  if (cos > 0.9995) {
    ka = 1 - t;
    kb = t;
  } else {
    const angle = Math.acos(cos);
    const inv = 1 / Math.sin(angle);
    ka = Math.sin((1 - t) * angle) * inv;
    kb = Math.sin(t * angle) * inv;
  }
  const x = ka * ax + kb * bx, y = ka * ay + kb * by, z = ka * az + kb * bz, w = ka * aw + kb * bw;
  // Renormalise: exact slerp stays unit, the lerp fallback and float input may not.
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  const il = len > 0 ? 1 / len : 0;
  const o = dstOffset;
  dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = w * il;
  return dst;
}

/** Normalises the quaternion at `offset` in place; a zero quaternion becomes identity. */
export function normalizeQuat<T extends NumArray>(q: T, offset = 0): T {
  const x = q[offset], y = q[offset + 1], z = q[offset + 2], w = q[offset + 3];
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len === 0 || !Number.isFinite(len)) {
    q[offset] = 0; q[offset + 1] = 0; q[offset + 2] = 0; q[offset + 3] = 1;
  } else {
    const il = 1 / len;
    q[offset] = x * il; q[offset + 1] = y * il; q[offset + 2] = z * il; q[offset + 3] = w * il;
  }
  return q;
}

/**
 * Puts every LINEAR rotation key in the hemisphere of the previous one (q and -q are the
 * same rotation, and slerp must take the shortest arc), then records each interval's
 * angle and 1/sin so per-frame slerp is multiply-adds only.
 */
export function prepareSlerpKeys(values: Float32Array, keys: number): { slerpAngle: Float64Array; slerpInvSin: Float64Array } {
  const slerpAngle = new Float64Array(Math.max(keys - 1, 0));
  const slerpInvSin = new Float64Array(Math.max(keys - 1, 0));
  for (let k = 1; k < keys; k++) {
    const a = (k - 1) * 4, b = k * 4;
    let dot = values[a] * values[b] + values[a + 1] * values[b + 1] + values[a + 2] * values[b + 2] + values[a + 3] * values[b + 3];
    if (dot < 0) {
      values[b] = -values[b]; values[b + 1] = -values[b + 1]; values[b + 2] = -values[b + 2]; values[b + 3] = -values[b + 3];
      dot = -dot;
    }
    const angle = Math.acos(Math.min(dot, 1));
    slerpAngle[k - 1] = angle;
    // Below this the keys are equal to float precision and lerp is exact.
    slerpInvSin[k - 1] = angle > 1e-6 ? 1 / Math.sin(angle) : 0;
  }
  return { slerpAngle, slerpInvSin };
}

/**
 * Unit quaternion (x y z w) of a 3×3 rotation matrix, 9 values column-major at `r[ro]`,
 * by Shepperd's method: divide by the largest of the four candidate pivots, so no branch
 * loses precision. Renormalised, so a matrix that is a rotation only to rounding still
 * gives a unit quaternion. Writes `dst[o..o+3]`. The matrix comes in an array rather than
 * as nine arguments: V8 boxes doubles passed to a function it does not inline, and this
 * runs per joint per frame in IK and aim.
 */
export function quatFromRotationMatrix3(r: NumArray, ro: number, dst: NumArray, o = 0): void {
  const c0x = r[ro], c0y = r[ro + 1], c0z = r[ro + 2];
  const c1x = r[ro + 3], c1y = r[ro + 4], c1z = r[ro + 5];
  const c2x = r[ro + 6], c2y = r[ro + 7], c2z = r[ro + 8];
  const trace = c0x + c1y + c2z;
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const k = Math.sqrt(trace + 1) * 2;
    w = 0.25 * k; x = (c1z - c2y) / k; y = (c2x - c0z) / k; z = (c0y - c1x) / k;
  } else if (c0x > c1y && c0x > c2z) {
    const k = Math.sqrt(1 + c0x - c1y - c2z) * 2;
    w = (c1z - c2y) / k; x = 0.25 * k; y = (c1x + c0y) / k; z = (c2x + c0z) / k;
  } else if (c1y > c2z) {
    const k = Math.sqrt(1 + c1y - c0x - c2z) * 2;
    w = (c2x - c0z) / k; x = (c1x + c0y) / k; y = 0.25 * k; z = (c2y + c1z) / k;
  } else {
    const k = Math.sqrt(1 + c2z - c0x - c1y) * 2;
    w = (c0y - c1x) / k; x = (c2x + c0z) / k; y = (c2y + c1z) / k; z = 0.25 * k;
  }
  const il = 1 / (Math.sqrt(x * x + y * y + z * z + w * w) || 1);
  dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = w * il;
}
