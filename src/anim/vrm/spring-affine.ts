/**
 * Affine 4×4 helpers of the spring-bone job (column-major doubles, bottom row 0 0 0 1, the
 * matrix and vector at offsets, `dst` last). Kept apart from src/math's general 4×4 functions:
 * these skip the projective row and take offsets into shared per-joint arrays.
 */
/** dst = a · b for affine matrices (bottom rows 0 0 0 1), 16 at the offsets; dst may alias neither. */
export function multiplyAffine(a: Float64Array, ao: number, b: Float64Array, bo: number, dst: Float64Array): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + c * 4], b1 = b[bo + c * 4 + 1], b2 = b[bo + c * 4 + 2];
    const w = c === 3 ? 1 : 0;
    dst[c * 4] = a[ao] * b0 + a[ao + 4] * b1 + a[ao + 8] * b2 + a[ao + 12] * w;
    dst[c * 4 + 1] = a[ao + 1] * b0 + a[ao + 5] * b1 + a[ao + 9] * b2 + a[ao + 13] * w;
    dst[c * 4 + 2] = a[ao + 2] * b0 + a[ao + 6] * b1 + a[ao + 10] * b2 + a[ao + 14] * w;
    dst[c * 4 + 3] = w;
  }
}

/** dst (3 at `o`) = m · (v, 1); dst may alias v. */
export function transformPoint(m: Float64Array, mo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  dst[o] = m[mo] * x + m[mo + 4] * y + m[mo + 8] * z + m[mo + 12];
  dst[o + 1] = m[mo + 1] * x + m[mo + 5] * y + m[mo + 9] * z + m[mo + 13];
  dst[o + 2] = m[mo + 2] * x + m[mo + 6] * y + m[mo + 10] * z + m[mo + 14];
}

/** dst = normalize(m₃ₓ₃ · v) (three.js's `transformDirection`; a zero result stays zero). */
export function transformDirection(m: Float64Array, mo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  const rx = m[mo] * x + m[mo + 4] * y + m[mo + 8] * z;
  const ry = m[mo + 1] * x + m[mo + 5] * y + m[mo + 9] * z;
  const rz = m[mo + 2] * x + m[mo + 6] * y + m[mo + 10] * z;
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  const k = len > 0 ? 1 / len : 0;
  dst[o] = rx * k; dst[o + 1] = ry * k; dst[o + 2] = rz * k;
}

/** dst = normalize(inverse-transpose(m₃ₓ₃) · v): a plane normal carried by `m`. */
export function normalDirection(m: Float64Array, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
  // Cofactors: inverse-transpose up to 1/det, whose sign is kept.
  const c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const c10 = c * h - b * i, c11 = a * i - c * g, c12 = b * g - a * h;
  const c20 = b * f - c * e, c21 = c * d - a * f, c22 = a * e - b * d;
  const det = a * c00 + b * c01 + c * c02;
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  let rx = c00 * x + c10 * y + c20 * z;
  let ry = c01 * x + c11 * y + c21 * z;
  let rz = c02 * x + c12 * y + c22 * z;
  if (det < 0) { rx = -rx; ry = -ry; rz = -rz; }
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  const k = len > 0 ? 1 / len : 0;
  dst[o] = rx * k; dst[o + 1] = ry * k; dst[o + 2] = rz * k;
}

/** dst = m⁻¹ for an affine matrix (16 at the offsets); a singular 3×3 gives zeros. dst may not alias m. */
export function invertAffine(m: Float64Array, mo: number, dst: Float64Array, o: number): void {
  const a = m[mo], b = m[mo + 1], c = m[mo + 2], d = m[mo + 4], e = m[mo + 5], f = m[mo + 6], g = m[mo + 8], h = m[mo + 9], i = m[mo + 10];
  const c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const det = a * c00 + b * c01 + c * c02;
  const k = det !== 0 ? 1 / det : 0;
  const r00 = c00 * k, r01 = (c * h - b * i) * k, r02 = (b * f - c * e) * k;
  const r10 = c01 * k, r11 = (a * i - c * g) * k, r12 = (c * d - a * f) * k;
  const r20 = c02 * k, r21 = (b * g - a * h) * k, r22 = (a * e - b * d) * k;
  const tx = m[mo + 12], ty = m[mo + 13], tz = m[mo + 14];
  dst[o] = r00; dst[o + 1] = r01; dst[o + 2] = r02; dst[o + 3] = 0;
  dst[o + 4] = r10; dst[o + 5] = r11; dst[o + 6] = r12; dst[o + 7] = 0;
  dst[o + 8] = r20; dst[o + 9] = r21; dst[o + 10] = r22; dst[o + 11] = 0;
  dst[o + 12] = -(r00 * tx + r10 * ty + r20 * tz);
  dst[o + 13] = -(r01 * tx + r11 * ty + r21 * tz);
  dst[o + 14] = -(r02 * tx + r12 * ty + r22 * tz);
  dst[o + 15] = 1;
}

/** True when the 3×3 part of `m` (16, column-major) is exactly the identity: `m` only translates. */
export function isTranslationOnly(m: Float64Array): boolean {
  return m[0] === 1 && m[1] === 0 && m[2] === 0 && m[4] === 0 && m[5] === 1 && m[6] === 0 && m[8] === 0 && m[9] === 0 && m[10] === 1;
}
