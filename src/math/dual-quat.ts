/**
 * Dual quaternions on flat arrays, for dual-quaternion skinning (Kavan, Collins, Žára,
 * O'Sullivan, "Geometric Skinning with Approximate Dual Quaternion Blending", 2008).
 *
 * A dual quaternion is 8 numbers: the real part (x y z w), then the dual part (x y z w).
 * A unit dual quaternion r + εd is the rigid transform "rotate by r, then translate by t"
 * with d = ½·(t, 0)·r, so t = 2·d·r* (vector part). Matrices are column-major 4×4, as in
 * trs.ts. What skinning needs from here is one split of a joint matrix into a dual
 * quaternion and a stretch (`rigidStretchFromMat4`); blending and applying dual quaternions
 * happen per vertex, in skin/dqs.ts and the WGSL. Nothing allocates: the polar
 * decomposition's scratch lives at module level.
 */
import { quatFromRotationMatrix3 } from './quat.ts';
import type { NumArray } from './types.ts';

/** Numbers per dual quaternion: real (x y z w), then dual (x y z w). */
export const DUAL_QUAT_FLOATS = 8;
/** Numbers per symmetric 3×3 in the packed form this module writes: xx yy zz xy xz yz. */
export const SYMMETRIC3_FLOATS = 6;

/** dst = the rigid transform "rotate by unit quaternion r (x y z w), then translate by t (x y z)". */
function dualQuatFromRotationTranslation(r: NumArray, ro: number, t: NumArray, to: number, dst: NumArray, o: number): void {
  const x = r[ro], y = r[ro + 1], z = r[ro + 2], w = r[ro + 3];
  const tx = t[to], ty = t[to + 1], tz = t[to + 2];
  dst[o] = x; dst[o + 1] = y; dst[o + 2] = z; dst[o + 3] = w;
  // d = ½ (t, 0) · r
  dst[o + 4] = 0.5 * (tx * w + ty * z - tz * y);
  dst[o + 5] = 0.5 * (-tx * z + ty * w + tz * x);
  dst[o + 6] = 0.5 * (tx * y - ty * x + tz * w);
  dst[o + 7] = -0.5 * (tx * x + ty * y + tz * z);
}

/**
 * Splits an affine matrix M (bottom row ignored) into M = [R|t] · S: a rigid transform,
 * written as a unit dual quaternion to `dq`, after a symmetric 3×3 "stretch" S (scale and
 * shear), written packed (xx yy zz xy xz yz) to `stretch`. t is M's translation.
 *
 * R is the rotation of M's polar decomposition (the rotation nearest to M's 3×3 A), so
 * S = Rᵀ·A is symmetric. That choice is what makes blending R meaningful: for a joint
 * matrix J·B⁻¹ with J = T·Rⱼ·Sⱼ and a rigid bind B = T_b·R_b, A = (Rⱼ·R_bᵀ)·(R_b·Sⱼ·R_bᵀ),
 * and the polar factors are exactly the joint's own rotation and its scale expressed in
 * bind space — normalising A's columns instead would tilt R whenever a non-uniform scale
 * meets a rotated bind pose. Being symmetric, S also packs into 6 numbers.
 *
 * Computed as an SVD A = U·Σ·Vᵀ through the Jacobi eigen-decomposition of AᵀA (robust for
 * every rank, no iteration that can fail to converge), with R = U·Vᵀ made proper: a
 * mirror (det A < 0) stays in S, as a negative stretch along A's weakest axis, so R stays
 * a rotation. For a singular A (a joint scaled to zero on some axis) R completes the
 * surviving axes and S carries the collapse; R·S = A holds in every case.
 */
export function rigidStretchFromMat4(
  m: NumArray, dq: NumArray, stretch: NumArray, mo = 0, dqOffset = 0, stretchOffset = 0,
): void {
  const a00 = m[mo], a10 = m[mo + 1], a20 = m[mo + 2]; // column 0 (aRC: row R, column C)
  const a01 = m[mo + 4], a11 = m[mo + 5], a21 = m[mo + 6];
  const a02 = m[mo + 8], a12 = m[mo + 9], a22 = m[mo + 10];
  const tx = m[mo + 12], ty = m[mo + 13], tz = m[mo + 14];

  // B = AᵀA (symmetric, full storage, row-major = column-major).
  const b = symScratch;
  b[0] = a00 * a00 + a10 * a10 + a20 * a20;
  b[4] = a01 * a01 + a11 * a11 + a21 * a21;
  b[8] = a02 * a02 + a12 * a12 + a22 * a22;
  b[1] = b[3] = a00 * a01 + a10 * a11 + a20 * a21;
  b[2] = b[6] = a00 * a02 + a10 * a12 + a20 * a22;
  b[5] = b[7] = a01 * a02 + a11 * a12 + a21 * a22;
  const v = eigenScratch;
  jacobiEigen3(b, v);

  // Eigenvalues on B's diagonal; order them largest first.
  let i0 = 0, i1 = 1, i2 = 2, t: number;
  if (b[i0 * 4] < b[i1 * 4]) { t = i0; i0 = i1; i1 = t; }
  if (b[i1 * 4] < b[i2 * 4]) { t = i1; i1 = i2; i2 = t; }
  if (b[i0 * 4] < b[i1 * 4]) { t = i0; i0 = i1; i1 = t; }
  // V's columns v1, v2 (eigenvectors, unit), and v3 = v1 × v2 so that det V = +1.
  const v1x = v[i0 * 3], v1y = v[i0 * 3 + 1], v1z = v[i0 * 3 + 2];
  const v2x = v[i1 * 3], v2y = v[i1 * 3 + 1], v2z = v[i1 * 3 + 2];
  const v3x = v1y * v2z - v1z * v2y, v3y = v1z * v2x - v1x * v2z, v3z = v1x * v2y - v1y * v2x;

  // U's columns: u1 = A·v1/σ1, u2 = A·v2 made orthogonal to u1, u3 = u1 × u2. Never divides
  // by σ3, so a mirror or a collapsed axis cannot make R improper or undefined.
  let u1x = a00 * v1x + a01 * v1y + a02 * v1z;
  let u1y = a10 * v1x + a11 * v1y + a12 * v1z;
  let u1z = a20 * v1x + a21 * v1y + a22 * v1z;
  const s1 = Math.sqrt(u1x * u1x + u1y * u1y + u1z * u1z);
  let r00: number, r01: number, r02: number, r10: number, r11: number, r12: number, r20: number, r21: number, r22: number;
  if (!(s1 > 0) || !Number.isFinite(s1)) {
    // A = 0 (or not finite): no direction survives; R = identity, S = A.
    r00 = 1; r01 = 0; r02 = 0; r10 = 0; r11 = 1; r12 = 0; r20 = 0; r21 = 0; r22 = 1;
  } else {
    u1x /= s1; u1y /= s1; u1z /= s1;
    let u2x = a00 * v2x + a01 * v2y + a02 * v2z;
    let u2y = a10 * v2x + a11 * v2y + a12 * v2z;
    let u2z = a20 * v2x + a21 * v2y + a22 * v2z;
    const k = u1x * u2x + u1y * u2y + u1z * u2z;
    u2x -= k * u1x; u2y -= k * u1y; u2z -= k * u1z;
    let s2 = Math.sqrt(u2x * u2x + u2y * u2y + u2z * u2z);
    if (s2 <= s1 * RANK_TOLERANCE) {
      // Rank 1: any unit vector orthogonal to u1 completes U (A ignores v2 and v3 anyway).
      // Cross u1 with the axis it is least aligned with.
      const ax = Math.abs(u1x), ay = Math.abs(u1y), az = Math.abs(u1z);
      if (ax <= ay && ax <= az) { u2x = 0; u2y = u1z; u2z = -u1y; }
      else if (ay <= az) { u2x = -u1z; u2y = 0; u2z = u1x; }
      else { u2x = u1y; u2y = -u1x; u2z = 0; }
      s2 = Math.sqrt(u2x * u2x + u2y * u2y + u2z * u2z);
    }
    u2x /= s2; u2y /= s2; u2z /= s2;
    const u3x = u1y * u2z - u1z * u2y, u3y = u1z * u2x - u1x * u2z, u3z = u1x * u2y - u1y * u2x;
    // R = U·Vᵀ = u1 v1ᵀ + u2 v2ᵀ + u3 v3ᵀ (rRC: row R, column C).
    r00 = u1x * v1x + u2x * v2x + u3x * v3x; r01 = u1x * v1y + u2x * v2y + u3x * v3y; r02 = u1x * v1z + u2x * v2z + u3x * v3z;
    r10 = u1y * v1x + u2y * v2x + u3y * v3x; r11 = u1y * v1y + u2y * v2y + u3y * v3y; r12 = u1y * v1z + u2y * v2z + u3y * v3z;
    r20 = u1z * v1x + u2z * v2x + u3z * v3x; r21 = u1z * v1y + u2z * v2y + u3z * v3y; r22 = u1z * v1z + u2z * v2z + u3z * v3z;
  }

  // S = Rᵀ·A, symmetric up to rounding: keep the mean of its mirrored entries.
  const s00 = r00 * a00 + r10 * a10 + r20 * a20;
  const s11 = r01 * a01 + r11 * a11 + r21 * a21;
  const s22 = r02 * a02 + r12 * a12 + r22 * a22;
  const s01 = 0.5 * ((r00 * a01 + r10 * a11 + r20 * a21) + (r01 * a00 + r11 * a10 + r21 * a20));
  const s02 = 0.5 * ((r00 * a02 + r10 * a12 + r20 * a22) + (r02 * a00 + r12 * a10 + r22 * a20));
  const s12 = 0.5 * ((r01 * a02 + r11 * a12 + r21 * a22) + (r02 * a01 + r12 * a11 + r22 * a21));
  const so = stretchOffset;
  stretch[so] = s00; stretch[so + 1] = s11; stretch[so + 2] = s22;
  stretch[so + 3] = s01; stretch[so + 4] = s02; stretch[so + 5] = s12;

  const rot = rotationScratch;
  rot[0] = r00; rot[1] = r10; rot[2] = r20; rot[3] = r01; rot[4] = r11; rot[5] = r21; rot[6] = r02; rot[7] = r12; rot[8] = r22;
  quatFromRotationMatrix3(rot, 0, quatScratch, 0);
  translationScratch[0] = tx; translationScratch[1] = ty; translationScratch[2] = tz;
  dualQuatFromRotationTranslation(quatScratch, 0, translationScratch, 0, dq, dqOffset);
}

/** Below this fraction of the largest singular value, A's second axis counts as collapsed. */
const RANK_TOLERANCE = 1e-12;
/** Jacobi sweeps on a 3×3 converge quadratically; real inputs need 3–5, this is a hard stop. */
const MAX_JACOBI_SWEEPS = 32;
/** Off-diagonal² below this fraction of diagonal² is rounding: the eigenvalues are final to double precision. */
const JACOBI_CONVERGED = 1e-32;

const symScratch = new Float64Array(9);
const eigenScratch = new Float64Array(9);
const quatScratch = new Float64Array(4);
const rotationScratch = new Float64Array(9);
const translationScratch = new Float64Array(3);

/**
 * Cyclic Jacobi eigen-decomposition of the symmetric 3×3 `b` (full storage), in place:
 * afterwards b's diagonal holds the eigenvalues and column k of `v` (v[k*3 .. k*3+2]) the
 * unit eigenvector of b[k*4].
 */
function jacobiEigen3(b: Float64Array, v: Float64Array): void {
  v.fill(0); v[0] = 1; v[4] = 1; v[8] = 1;
  for (let sweep = 0; sweep < MAX_JACOBI_SWEEPS; sweep++) {
    const off = b[1] * b[1] + b[2] * b[2] + b[5] * b[5];
    const diag = b[0] * b[0] + b[4] * b[4] + b[8] * b[8];
    if (off === 0 || off <= diag * JACOBI_CONVERGED) return;
    for (let pair = 0; pair < 3; pair++) {
      const p = pair === 2 ? 1 : 0, q = pair === 0 ? 1 : 2, r = 3 - p - q;
      const bpq = b[p * 3 + q];
      if (bpq === 0) continue;
      const bpp = b[p * 4], bqq = b[q * 4];
      // Rotate by the angle that zeroes b[p][q] (Numerical Recipes' stable form).
      const theta = (bqq - bpp) / (2 * bpq);
      const tan = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(tan * tan + 1), s = tan * c;
      b[p * 4] = bpp - tan * bpq;
      b[q * 4] = bqq + tan * bpq;
      b[p * 3 + q] = b[q * 3 + p] = 0;
      const brp = b[r * 3 + p], brq = b[r * 3 + q];
      b[r * 3 + p] = b[p * 3 + r] = c * brp - s * brq;
      b[r * 3 + q] = b[q * 3 + r] = s * brp + c * brq;
      for (let k = 0; k < 3; k++) {
        const vp = v[p * 3 + k], vq = v[q * 3 + k];
        v[p * 3 + k] = c * vp - s * vq;
        v[q * 3 + k] = s * vp + c * vq;
      }
    }
  }
}

