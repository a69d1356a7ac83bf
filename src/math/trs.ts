/**
 * Transform math that wgpu-matrix does not have, on flat arrays.
 *
 * Matrices are column-major 4×4 (element [col * 4 + row]), as glTF and WGSL store them.
 * Every function takes offsets into flat arrays so per-joint data can stay in one
 * typed array, writes into `dst` and returns it. Inputs are read into locals before
 * anything is written, so `dst` may alias an input.
 */
import { quatFromRotationMatrix3 } from './quat.ts';
import type { NumArray } from './types.ts';

const rotationScratch = new Float64Array(9);

/** dst = T · R · S, from translation (x y z), unit quaternion (x y z w) and scale (x y z). */
export function composeTRS<T extends NumArray>(
  t: NumArray, r: NumArray, s: NumArray, dst: T, to = 0, ro = 0, so = 0, dstOffset = 0,
): T {
  const x = r[ro], y = r[ro + 1], z = r[ro + 2], w = r[ro + 3];
  const sx = s[so], sy = s[so + 1], sz = s[so + 2];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2;
  const yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  const o = dstOffset;
  dst[o] = (1 - (yy + zz)) * sx;
  dst[o + 1] = (xy + wz) * sx;
  dst[o + 2] = (xz - wy) * sx;
  dst[o + 3] = 0;
  dst[o + 4] = (xy - wz) * sy;
  dst[o + 5] = (1 - (xx + zz)) * sy;
  dst[o + 6] = (yz + wx) * sy;
  dst[o + 7] = 0;
  dst[o + 8] = (xz + wy) * sz;
  dst[o + 9] = (yz - wx) * sz;
  dst[o + 10] = (1 - (xx + yy)) * sz;
  dst[o + 11] = 0;
  dst[o + 12] = t[to];
  dst[o + 13] = t[to + 1];
  dst[o + 14] = t[to + 2];
  dst[o + 15] = 1;
  return dst;
}

/** dst = a · b for general 4×4 matrices stored at offsets. */
export function multiplyMat4<T extends NumArray>(
  a: NumArray, b: NumArray, dst: T, ao = 0, bo = 0, dstOffset = 0,
): T {
  const a00 = a[ao], a01 = a[ao + 1], a02 = a[ao + 2], a03 = a[ao + 3];
  const a10 = a[ao + 4], a11 = a[ao + 5], a12 = a[ao + 6], a13 = a[ao + 7];
  const a20 = a[ao + 8], a21 = a[ao + 9], a22 = a[ao + 10], a23 = a[ao + 11];
  const a30 = a[ao + 12], a31 = a[ao + 13], a32 = a[ao + 14], a33 = a[ao + 15];
  const o = dstOffset;
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + c * 4], b1 = b[bo + c * 4 + 1], b2 = b[bo + c * 4 + 2], b3 = b[bo + c * 4 + 3];
    dst[o + c * 4] = a00 * b0 + a10 * b1 + a20 * b2 + a30 * b3;
    dst[o + c * 4 + 1] = a01 * b0 + a11 * b1 + a21 * b2 + a31 * b3;
    dst[o + c * 4 + 2] = a02 * b0 + a12 * b1 + a22 * b2 + a32 * b3;
    dst[o + c * 4 + 3] = a03 * b0 + a13 * b1 + a23 * b2 + a33 * b3;
  }
  return dst;
}

/**
 * dst = inverse(m) for a general 4×4 matrix. Returns false (leaving dst untouched)
 * when m is singular, so callers decide what a degenerate transform means.
 */
export function invertMat4(m: NumArray, dst: NumArray, mo = 0, dstOffset = 0): boolean {
  const m00 = m[mo], m01 = m[mo + 1], m02 = m[mo + 2], m03 = m[mo + 3];
  const m10 = m[mo + 4], m11 = m[mo + 5], m12 = m[mo + 6], m13 = m[mo + 7];
  const m20 = m[mo + 8], m21 = m[mo + 9], m22 = m[mo + 10], m23 = m[mo + 11];
  const m30 = m[mo + 12], m31 = m[mo + 13], m32 = m[mo + 14], m33 = m[mo + 15];
  const b00 = m00 * m11 - m01 * m10, b01 = m00 * m12 - m02 * m10;
  const b02 = m00 * m13 - m03 * m10, b03 = m01 * m12 - m02 * m11;
  const b04 = m01 * m13 - m03 * m11, b05 = m02 * m13 - m03 * m12;
  const b06 = m20 * m31 - m21 * m30, b07 = m20 * m32 - m22 * m30;
  const b08 = m20 * m33 - m23 * m30, b09 = m21 * m32 - m22 * m31;
  const b10 = m21 * m33 - m23 * m31, b11 = m22 * m33 - m23 * m32;
  const det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  if (det === 0 || !Number.isFinite(det)) return false;
  const inv = 1 / det;
  const o = dstOffset;
  dst[o] = (m11 * b11 - m12 * b10 + m13 * b09) * inv;
  dst[o + 1] = (m02 * b10 - m01 * b11 - m03 * b09) * inv;
  dst[o + 2] = (m31 * b05 - m32 * b04 + m33 * b03) * inv;
  dst[o + 3] = (m22 * b04 - m21 * b05 - m23 * b03) * inv;
  dst[o + 4] = (m12 * b08 - m10 * b11 - m13 * b07) * inv;
  dst[o + 5] = (m00 * b11 - m02 * b08 + m03 * b07) * inv;
  dst[o + 6] = (m32 * b02 - m30 * b05 - m33 * b01) * inv;
  dst[o + 7] = (m20 * b05 - m22 * b02 + m23 * b01) * inv;
  dst[o + 8] = (m10 * b10 - m11 * b08 + m13 * b06) * inv;
  dst[o + 9] = (m01 * b08 - m00 * b10 - m03 * b06) * inv;
  dst[o + 10] = (m30 * b04 - m31 * b02 + m33 * b00) * inv;
  dst[o + 11] = (m21 * b02 - m20 * b04 - m23 * b00) * inv;
  dst[o + 12] = (m11 * b07 - m10 * b09 - m12 * b06) * inv;
  dst[o + 13] = (m00 * b09 - m01 * b07 + m02 * b06) * inv;
  dst[o + 14] = (m31 * b01 - m30 * b03 - m32 * b00) * inv;
  dst[o + 15] = (m20 * b03 - m21 * b01 + m22 * b00) * inv;
  return true;
}

/**
 * |(x, y, z)|. Per-frame code uses this instead of `Math.hypot`, which allocates in V8 (its
 * arguments go through a heap array); plain `sqrt` of the sum is enough for scene-sized values.
 */
export function length3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

/** Largest column length of the 3×3 part of the 4×4 at `o`: how much the matrix can stretch a length. */
export function maxAxisScale(m: ArrayLike<number>, o = 0): number {
  return Math.sqrt(Math.max(
    m[o] * m[o] + m[o + 1] * m[o + 1] + m[o + 2] * m[o + 2],
    m[o + 4] * m[o + 4] + m[o + 5] * m[o + 5] + m[o + 6] * m[o + 6],
    m[o + 8] * m[o + 8] + m[o + 9] * m[o + 9] + m[o + 10] * m[o + 10],
  ));
}

/** Whether the 4×4 at `m[o …]` is exactly the identity. */
export function isIdentityMat4(m: ArrayLike<number>, o = 0): boolean {
  for (let i = 0; i < 16; i++) if (m[o + i] !== (i % 5 === 0 ? 1 : 0)) return false;
  return true;
}

export function setIdentity<T extends NumArray>(dst: T, dstOffset = 0): T {
  for (let i = 0; i < 16; i++) dst[dstOffset + i] = i % 5 === 0 ? 1 : 0;
  return dst;
}

/**
 * Splits an affine matrix into T, R (unit quaternion x y z w) and S. Exact for
 * matrices made by composeTRS; a matrix with shear has no exact T/R/S, and the
 * result is the nearest rotation of its normalised columns.
 */
export function decomposeTRS(m: NumArray, t: NumArray, r: NumArray, s: NumArray, mo = 0): void {
  t[0] = m[mo + 12]; t[1] = m[mo + 13]; t[2] = m[mo + 14];
  let sx = Math.hypot(m[mo], m[mo + 1], m[mo + 2]);
  const sy = Math.hypot(m[mo + 4], m[mo + 5], m[mo + 6]);
  const sz = Math.hypot(m[mo + 8], m[mo + 9], m[mo + 10]);
  // A negative determinant means a mirror: put it on one axis of scale.
  const det =
    m[mo] * (m[mo + 5] * m[mo + 10] - m[mo + 6] * m[mo + 9]) -
    m[mo + 4] * (m[mo + 1] * m[mo + 10] - m[mo + 2] * m[mo + 9]) +
    m[mo + 8] * (m[mo + 1] * m[mo + 6] - m[mo + 2] * m[mo + 5]);
  if (det < 0) sx = -sx;
  s[0] = sx; s[1] = sy; s[2] = sz;
  const ix = sx === 0 ? 0 : 1 / sx, iy = sy === 0 ? 0 : 1 / sy, iz = sz === 0 ? 0 : 1 / sz;
  const r00 = m[mo] * ix, r01 = m[mo + 1] * ix, r02 = m[mo + 2] * ix;
  const r10 = m[mo + 4] * iy, r11 = m[mo + 5] * iy, r12 = m[mo + 6] * iy;
  const r20 = m[mo + 8] * iz, r21 = m[mo + 9] * iz, r22 = m[mo + 10] * iz;
  // Column-major: rCR is column C, row R.
  const rot = rotationScratch;
  rot[0] = r00; rot[1] = r01; rot[2] = r02; rot[3] = r10; rot[4] = r11; rot[5] = r12; rot[6] = r20; rot[7] = r21; rot[8] = r22;
  quatFromRotationMatrix3(rot, 0, r, 0);
}
