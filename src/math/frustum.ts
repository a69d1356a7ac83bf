/**
 * View frustum planes from a view-projection matrix, and box tests against them.
 *
 * Matrices are column-major 4×4 (element [col * 4 + row]); clip space is WebGPU's:
 * −w ≤ x ≤ w, −w ≤ y ≤ w, 0 ≤ z ≤ w. A plane is 4 floats (a, b, c, d) with a point p
 * inside when a·px + b·py + c·pz + d ≥ 0; (a, b, c) is unit length, so that value is the
 * signed distance in world units (Gribb & Hartmann's row combinations, normalised).
 */
import type { NumArray } from './types.ts';

/** Planes in this order, 4 floats each. */
export const FrustumPlane = { LEFT: 0, RIGHT: 1, BOTTOM: 2, TOP: 3, NEAR: 4, FAR: 5 } as const;
export const FRUSTUM_PLANES = 6;
export const FRUSTUM_FLOATS = FRUSTUM_PLANES * 4;

/**
 * dst = the six inward planes of the frustum of `m` (a projection · view matrix: the world
 * box it sees). A degenerate plane (e.g. the far plane of an infinite projection) is
 * stored as 0 0 0 0, which every point passes. Reads `m` into locals first; allocates only
 * when `dst` is omitted.
 */
export function frustumPlanes(m: NumArray, dst: Float32Array | Float64Array = new Float32Array(FRUSTUM_FLOATS)): Float32Array | Float64Array {
  // Rows of m.
  const r00 = m[0], r01 = m[4], r02 = m[8], r03 = m[12];
  const r10 = m[1], r11 = m[5], r12 = m[9], r13 = m[13];
  const r20 = m[2], r21 = m[6], r22 = m[10], r23 = m[14];
  const r30 = m[3], r31 = m[7], r32 = m[11], r33 = m[15];
  // Written raw, then normalised in place: no helper taking doubles (V8 would box them).
  dst[0] = r30 + r00; dst[1] = r31 + r01; dst[2] = r32 + r02; dst[3] = r33 + r03; // left
  dst[4] = r30 - r00; dst[5] = r31 - r01; dst[6] = r32 - r02; dst[7] = r33 - r03; // right
  dst[8] = r30 + r10; dst[9] = r31 + r11; dst[10] = r32 + r12; dst[11] = r33 + r13; // bottom
  dst[12] = r30 - r10; dst[13] = r31 - r11; dst[14] = r32 - r12; dst[15] = r33 - r13; // top
  // WebGPU's depth range starts at 0: z ≥ 0 is the near plane (not z ≥ −w as in OpenGL).
  dst[16] = r20; dst[17] = r21; dst[18] = r22; dst[19] = r23; // near
  dst[20] = r30 - r20; dst[21] = r31 - r21; dst[22] = r32 - r22; dst[23] = r33 - r23; // far
  for (let o = 0; o < FRUSTUM_FLOATS; o += 4) {
    const a = dst[o], b = dst[o + 1], c = dst[o + 2];
    const len = Math.sqrt(a * a + b * b + c * c);
    const inv = len > 0 ? 1 / len : 0;
    dst[o] = a * inv;
    dst[o + 1] = b * inv;
    dst[o + 2] = c * inv;
    dst[o + 3] = len > 0 ? dst[o + 3] * inv : 0;
  }
  return dst;
}

/**
 * Whether the axis-aligned box min…max (3 floats each, at offsets `mo`/`xo`) may be seen:
 * false only when the box lies entirely outside one plane (its corner furthest along the
 * plane's normal is behind it). Conservative: a box near a frustum corner, outside the
 * frustum but not outside any single plane, counts as visible. An empty box (min > max on
 * an axis, e.g. +∞…−∞) is never visible; NaN coordinates are.
 */
export function frustumIntersectsBox(planes: ArrayLike<number>, min: ArrayLike<number>, max: ArrayLike<number>, mo = 0, xo = 0): boolean {
  const x0 = min[mo], y0 = min[mo + 1], z0 = min[mo + 2];
  const x1 = max[xo], y1 = max[xo + 1], z1 = max[xo + 2];
  if (x0 > x1 || y0 > y1 || z0 > z1) return false;
  for (let o = 0; o < FRUSTUM_FLOATS; o += 4) {
    const a = planes[o], b = planes[o + 1], c = planes[o + 2];
    const far = a * (a >= 0 ? x1 : x0) + b * (b >= 0 ? y1 : y0) + c * (c >= 0 ? z1 : z0) + planes[o + 3];
    if (far < 0) return false;
  }
  return true;
}
