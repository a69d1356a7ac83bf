/**
 * Quaternion and vector steps shared by the constraint and motion jobs (IK, aim, root
 * motion). Quaternions are x y z w, vectors x y z, both in flat arrays at offsets.
 *
 * Every function takes arrays and integer offsets only and returns nothing: V8 boxes a
 * double passed to or returned from a call it does not inline, so a per-frame job that
 * handed loose numbers to helpers would allocate. Inputs are read into locals before
 * anything is written, so `dst` may alias an input.
 */
import { quatFromRotationMatrix3 } from '../math/quat.ts';

const rotationScratch = new Float64Array(9);

/** dst = a · b (apply b, then a). */
export function mulQuat(a: Float64Array, ao: number, b: Float64Array, bo: number, dst: Float64Array, o: number): void {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  dst[o] = aw * bx + ax * bw + ay * bz - az * by;
  dst[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  dst[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  dst[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** dst = conjugate(a) · b: `b` seen from the frame `a` (the inverse of a unit quaternion is its conjugate). */
export function mulConjQuat(a: Float64Array, ao: number, b: Float64Array, bo: number, dst: Float64Array, o: number): void {
  const ax = -a[ao], ay = -a[ao + 1], az = -a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  dst[o] = aw * bx + ax * bw + ay * bz - az * by;
  dst[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  dst[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  dst[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** dst = q v q*: vector v rotated by unit quaternion q. */
export function rotateVec(q: Float64Array, qo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  dst[o] = vx + w * tx + (y * tz - z * ty);
  dst[o + 1] = vy + w * ty + (z * tx - x * tz);
  dst[o + 2] = vz + w * tz + (x * ty - y * tx);
}

/**
 * Unit quaternion of the rotation in an affine matrix (column-major, 16 at `mo`): the
 * columns are normalised first, so node scale does not leak in; a mirror (negative
 * determinant) is folded into the X column as `decomposeTRS` does.
 */
export function rotationOfMatrix(m: Float64Array, mo: number, dst: Float64Array, o: number): void {
  let ix = 1 / Math.sqrt(m[mo] * m[mo] + m[mo + 1] * m[mo + 1] + m[mo + 2] * m[mo + 2]);
  const iy = 1 / Math.sqrt(m[mo + 4] * m[mo + 4] + m[mo + 5] * m[mo + 5] + m[mo + 6] * m[mo + 6]);
  const iz = 1 / Math.sqrt(m[mo + 8] * m[mo + 8] + m[mo + 9] * m[mo + 9] + m[mo + 10] * m[mo + 10]);
  const det =
    m[mo] * (m[mo + 5] * m[mo + 10] - m[mo + 6] * m[mo + 9]) -
    m[mo + 4] * (m[mo + 1] * m[mo + 10] - m[mo + 2] * m[mo + 9]) +
    m[mo + 8] * (m[mo + 1] * m[mo + 6] - m[mo + 2] * m[mo + 5]);
  if (det < 0) ix = -ix;
  const r00 = m[mo] * ix, r01 = m[mo + 1] * ix, r02 = m[mo + 2] * ix;
  const r10 = m[mo + 4] * iy, r11 = m[mo + 5] * iy, r12 = m[mo + 6] * iy;
  const r20 = m[mo + 8] * iz, r21 = m[mo + 9] * iz, r22 = m[mo + 10] * iz;
  const rot = rotationScratch;
  rot[0] = r00; rot[1] = r01; rot[2] = r02; rot[3] = r10; rot[4] = r11; rot[5] = r12; rot[6] = r20; rot[7] = r21; rot[8] = r22;
  quatFromRotationMatrix3(rot, 0, dst, o);
}

/**
 * The shortest-arc rotation taking direction `u` to direction `v` (neither need be unit).
 * Opposite directions turn by π about any axis perpendicular to `u`; a zero vector gives identity.
 */
export function quatFromTo(u: Float64Array, uo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const ux = u[uo], uy = u[uo + 1], uz = u[uo + 2];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  const lu = Math.sqrt(ux * ux + uy * uy + uz * uz), lv = Math.sqrt(vx * vx + vy * vy + vz * vz);
  if (lu === 0 || lv === 0) {
    dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = 1;
    return;
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
}

/**
 * dst = slerp(identity, q, s[so]) on the shortest arc: the rotation q scaled to a fraction
 * of its angle (0 gives identity, 1 gives q up to sign). The fraction is read from an
 * array for the reason in the module comment.
 */
export function scaleRotation(q: Float64Array, qo: number, s: Float64Array, so: number, dst: Float64Array, o: number): void {
  const t = s[so];
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const sinHalf = Math.sqrt(x * x + y * y + z * z);
  if (sinHalf < 1e-9) {
    // Too small an angle to normalise the axis: the rotation is identity to double precision.
    dst[o] = x * t; dst[o + 1] = y * t; dst[o + 2] = z * t; dst[o + 3] = 1;
    const il = 1 / Math.sqrt(dst[o] * dst[o] + dst[o + 1] * dst[o + 1] + dst[o + 2] * dst[o + 2] + 1);
    dst[o] *= il; dst[o + 1] *= il; dst[o + 2] *= il; dst[o + 3] = il;
    return;
  }
  const half = Math.atan2(sinHalf, w) * t;
  const k = Math.sin(half) / sinHalf;
  dst[o] = x * k; dst[o + 1] = y * k; dst[o + 2] = z * k; dst[o + 3] = Math.cos(half);
}

/** Angle in radians (0..π) of the rotation q. */
export function rotationAngle(q: Float64Array, qo: number, dst: Float64Array, o: number): void {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = Math.abs(q[qo + 3]);
  dst[o] = 2 * Math.atan2(Math.sqrt(x * x + y * y + z * z), w);
}
