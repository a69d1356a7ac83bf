/**
 * Quaternion math on flat arrays: quaternions x y z w, vectors x y z, 3×3 and 4×4 matrices
 * column-major, all at offsets so per-joint data stays in one typed array.
 *
 * One convention throughout (wgpu-matrix's, with offsets): every array argument is followed
 * by its offset, the output `dst` and its offset come last, and the function returns `dst`.
 * Scalars such as an interpolation fraction come in an array too: V8 boxes a double passed
 * to a call it does not inline, and these run per joint per frame in the blending,
 * additive, IK and aim jobs, which must allocate nothing. Inputs are read into locals
 * before anything is written, so `dst` may alias an input.
 */
import type { NumArray } from './types.ts';

/**
 * Below this cosine between two quaternions (an angle of 0.81°, a rotation of 1.6°), slerp
 * becomes lerp and renormalise. There the two differ by under 1e-7 rad of rotation (float32
 * key resolution), and acos, sin and the division by a vanishing sin θ are skipped. It is
 * the threshold the blending jobs have always used; the 0.9995 of an earlier test-only
 * slerp let the error grow to 1e-6 rad for no measurable gain.
 */
export const SLERP_LERP_COS = 0.9999;

/**
 * dst = slerp(a, b, t[to]) on the shortest arc (b is negated when a·b < 0: q and −q are the
 * same rotation), renormalised. a and b are unit quaternions; t is in [0, 1]. Its bytecode is
 * just under V8's limit for inlining (460 bytes), and the blending jobs' speed depends on it
 * being inlined into their per-joint loops: keep additions out of this function.
 */
export function slerpQuat<T extends NumArray>(
  a: NumArray, ao: number, b: NumArray, bo: number, t: NumArray, to: number, dst: T, o: number,
): T {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  const kt = t[to], it = 1 - kt;
  const dot = ax * bx + ay * by + az * bz + aw * bw;
  // Shortest arc: b's weight takes the sign of a·b, the same bits as negating b.
  const cos = Math.abs(dot);
  let ka = it, kb = kt;
  if (cos < SLERP_LERP_COS) {
    const angle = Math.acos(cos);
    const inv = 1 / Math.sin(angle);
    ka = Math.sin(it * angle) * inv;
    kb = Math.sin(kt * angle) * inv;
  }
  if (dot < 0) kb = -kb;
  const x = ka * ax + kb * bx, y = ka * ay + kb * by, z = ka * az + kb * bz, w = ka * aw + kb * bw;
  // Exact slerp stays unit up to rounding; the lerp branch does not.
  const il = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = w * il;
  return dst;
}

/**
 * dst = slerp(identity, q, s[so]) on the shortest arc: the rotation q scaled to a fraction
 * of its angle (0 gives identity, 1 gives q up to sign). Scaling the half-angle from atan2
 * stays exact down to the smallest rotations, where a general slerp from identity would
 * lose digits in acos and need a lerp threshold.
 */
export function scaleRotation<T extends NumArray>(q: NumArray, qo: number, s: NumArray, so: number, dst: T, o: number): T {
  const t = s[so];
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const sinHalf = Math.sqrt(x * x + y * y + z * z);
  if (sinHalf < 1e-9) {
    // Too small an angle to normalise the axis: the rotation is identity to double precision.
    x *= t; y *= t; z *= t;
    const il = 1 / Math.sqrt(x * x + y * y + z * z + 1);
    dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = il;
    return dst;
  }
  const half = Math.atan2(sinHalf, w) * t;
  const k = Math.sin(half) / sinHalf;
  dst[o] = x * k; dst[o + 1] = y * k; dst[o + 2] = z * k; dst[o + 3] = Math.cos(half);
  return dst;
}

/** dst[o] = the angle in radians (0..π) of the rotation q. */
export function rotationAngle<T extends NumArray>(q: NumArray, qo: number, dst: T, o: number): T {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = Math.abs(q[qo + 3]);
  dst[o] = 2 * Math.atan2(Math.sqrt(x * x + y * y + z * z), w);
  return dst;
}

/** dst = q / |q|; a zero or non-finite quaternion becomes identity. */
export function normalizeQuat<T extends NumArray>(q: NumArray, qo: number, dst: T, o: number): T {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len === 0 || !Number.isFinite(len)) {
    dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = 1;
  } else {
    const il = 1 / len;
    dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = w * il;
  }
  return dst;
}

/** dst = a · b (apply b, then a). */
export function mulQuat<T extends NumArray>(a: NumArray, ao: number, b: NumArray, bo: number, dst: T, o: number): T {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  dst[o] = aw * bx + ax * bw + ay * bz - az * by;
  dst[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  dst[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  dst[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return dst;
}

/** dst = conjugate(a) · b: `b` seen from the frame `a` (the inverse of a unit quaternion is its conjugate). */
export function mulConjQuat<T extends NumArray>(a: NumArray, ao: number, b: NumArray, bo: number, dst: T, o: number): T {
  const ax = -a[ao], ay = -a[ao + 1], az = -a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  dst[o] = aw * bx + ax * bw + ay * bz - az * by;
  dst[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  dst[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  dst[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return dst;
}

/** dst = q v q*: vector v rotated by unit quaternion q. */
export function rotateVec<T extends NumArray>(q: NumArray, qo: number, v: NumArray, vo: number, dst: T, o: number): T {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  dst[o] = vx + w * tx + (y * tz - z * ty);
  dst[o + 1] = vy + w * ty + (z * tx - x * tz);
  dst[o + 2] = vz + w * tz + (x * ty - y * tx);
  return dst;
}

/**
 * The shortest-arc rotation taking direction `u` to direction `v` (neither need be unit).
 * Opposite directions turn by π about any axis perpendicular to `u`; a zero vector gives identity.
 */
export function quatFromTo<T extends NumArray>(u: NumArray, uo: number, v: NumArray, vo: number, dst: T, o: number): T {
  const ux = u[uo], uy = u[uo + 1], uz = u[uo + 2];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  const lu = Math.sqrt(ux * ux + uy * uy + uz * uz), lv = Math.sqrt(vx * vx + vy * vy + vz * vz);
  if (lu === 0 || lv === 0) {
    dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = 1;
    return dst;
  }
  // q = (u × v, |u||v| + u·v) normalised is the half-way rotation, without acos/sin.
  let x = uy * vz - uz * vy, y = uz * vx - ux * vz, z = ux * vy - uy * vx;
  let w = lu * lv + (ux * vx + uy * vy + uz * vz);
  if (w < 1e-12 * lu * lv) {
    // Opposite: any perpendicular axis, the one least aligned with u for accuracy.
    const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
    if (ax <= ay && ax <= az) { x = 0; y = -uz; z = uy; } else if (ay <= az) { x = -uz; y = 0; z = ux; } else { x = -uy; y = ux; z = 0; }
    w = 0;
  }
  const il = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  dst[o] = x * il; dst[o + 1] = y * il; dst[o + 2] = z * il; dst[o + 3] = w * il;
  return dst;
}

/**
 * Unit quaternion of a 3×3 rotation matrix (9 values at `r[ro]`) by Shepperd's method:
 * divide by the largest of the four candidate pivots, so no branch loses precision.
 * Renormalised, so a matrix that is a rotation only to rounding still gives a unit
 * quaternion. The matrix comes in an array rather than as nine arguments for the boxing
 * reason in the module comment.
 */
export function quatFromRotationMatrix3<T extends NumArray>(r: NumArray, ro: number, dst: T, o: number): T {
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
  return dst;
}

const rotationScratch = new Float64Array(9);

/**
 * Unit quaternion of the rotation in an affine 4×4 matrix (16 at `mo`): the columns are
 * normalised first, so node scale does not leak in; a mirror (negative determinant) is
 * folded into the X column as `decomposeTRS` does.
 */
export function rotationOfMatrix<T extends NumArray>(m: NumArray, mo: number, dst: T, o: number): T {
  let ix = 1 / Math.sqrt(m[mo] * m[mo] + m[mo + 1] * m[mo + 1] + m[mo + 2] * m[mo + 2]);
  const iy = 1 / Math.sqrt(m[mo + 4] * m[mo + 4] + m[mo + 5] * m[mo + 5] + m[mo + 6] * m[mo + 6]);
  const iz = 1 / Math.sqrt(m[mo + 8] * m[mo + 8] + m[mo + 9] * m[mo + 9] + m[mo + 10] * m[mo + 10]);
  const det =
    m[mo] * (m[mo + 5] * m[mo + 10] - m[mo + 6] * m[mo + 9]) -
    m[mo + 4] * (m[mo + 1] * m[mo + 10] - m[mo + 2] * m[mo + 9]) +
    m[mo + 8] * (m[mo + 1] * m[mo + 6] - m[mo + 2] * m[mo + 5]);
  if (det < 0) ix = -ix;
  const rot = rotationScratch;
  rot[0] = m[mo] * ix; rot[1] = m[mo + 1] * ix; rot[2] = m[mo + 2] * ix;
  rot[3] = m[mo + 4] * iy; rot[4] = m[mo + 5] * iy; rot[5] = m[mo + 6] * iy;
  rot[6] = m[mo + 8] * iz; rot[7] = m[mo + 9] * iz; rot[8] = m[mo + 10] * iz;
  return quatFromRotationMatrix3(rot, 0, dst, o);
}

/**
 * Puts every LINEAR rotation key in the hemisphere of the previous one (q and -q are the
 * same rotation, and slerp must take the shortest arc), then records each interval's
 * angle and 1/sin so per-frame slerp is multiply-adds only. Load-time: allocates the two
 * arrays it returns.
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
