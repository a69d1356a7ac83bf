/** Relative tolerance on column lengths² and on normalised dot products. */
export const UNIFORM_SCALE_TOLERANCE = 1e-4;

/** Below this a model matrix counts as singular: its normal matrix is the unscaled cofactor (draw-record-writer.ts, records.wgsl). */
export const NORMAL_DETERMINANT_EPSILON = 1e-30;

/**
 * True when any of `count` column-major 4×4 matrices from matrix `firstMatrix` of `palette`
 * has a 3×3 part that is not a rotation (or mirror) times a uniform scale: columns of
 * unequal length or not mutually orthogonal. Allocates nothing.
 */
export function paletteHasNonUniformScale(
  palette: ArrayLike<number>, firstMatrix: number, count: number, tolerance = UNIFORM_SCALE_TOLERANCE,
): boolean {
  for (let j = 0; j < count; j++) {
    const o = (firstMatrix + j) * 16;
    const ax = palette[o], ay = palette[o + 1], az = palette[o + 2];
    const bx = palette[o + 4], by = palette[o + 5], bz = palette[o + 6];
    const cx = palette[o + 8], cy = palette[o + 9], cz = palette[o + 10];
    const aa = ax * ax + ay * ay + az * az;
    const bb = bx * bx + by * by + bz * bz;
    const cc = cx * cx + cy * cy + cz * cz;
    const scale = Math.max(aa, bb, cc);
    if (scale === 0) continue; // A collapsed joint: every normal is zero either way.
    const limit = tolerance * scale;
    if (Math.abs(aa - bb) > limit || Math.abs(bb - cc) > limit || Math.abs(aa - cc) > limit) return true;
    const ab = ax * bx + ay * by + az * bz;
    const bc = bx * cx + by * cy + bz * cz;
    const ca = cx * ax + cy * ay + cz * az;
    if (Math.abs(ab) > limit || Math.abs(bc) > limit || Math.abs(ca) > limit) return true;
  }
  return false;
}
