/**
 * The dual-quaternion skinning palette: per joint, the skinning matrix of palette.ts split
 * as M = [R|t] · S (math/dual-quat.ts `rigidStretchFromMat4`) — the rigid part as a unit
 * dual quaternion, blended by DLB, and the symmetric scale/shear S, blended linearly
 * (Kavan et al. 2008, "two-phase skinning": scale first, then the rigid transform).
 *
 * This is also the byte layout of WGSL `struct DqJoint` (shaders/skinning.wgsl), and one
 * entry is exactly as large as a mat4x4f (16 floats), so a DQ palette fills the very same
 * `jointPalette: array<mat4x4f>` buffer, slot for slot, at the same offsets. A test
 * (test/gpu/dqs-gpu.test.ts) computes the WGSL layout and compares it with this table.
 */
import type { Skin } from '../gltf/model.ts';
import { rigidStretchFromMat4, DUAL_QUAT_FLOATS, SYMMETRIC3_FLOATS } from '../math/dual-quat.ts';
import type { NumArray } from '../math/types.ts';
import { skinPalette } from './palette.ts';

/** Float offsets of each field of one DQ palette entry (WGSL `DqJoint`; bytes = 4 ×). */
export const DqJointFloat = {
  /** Rotation quaternion x y z w. */
  REAL: 0,
  /** ½·(t, 0)·real: the translation. */
  DUAL: 4,
  /** S.xx S.yy S.zz, then 0. */
  STRETCH_DIAGONAL: 8,
  /** S.xy S.xz S.yz, then 0 (S is symmetric). */
  STRETCH_OFF_DIAGONAL: 12,
} as const;
/** Floats per DQ palette entry: the same as a palette matrix, so both share buffers and offsets. */
export const DQ_JOINT_FLOATS = 16;

const dqScratch = new Float64Array(DUAL_QUAT_FLOATS);
const stretchScratch = new Float64Array(SYMMETRIC3_FLOATS);

/**
 * Converts `count` skinning matrices (16 floats each, from matrix `matrixOffset` of
 * `matrices`) into DQ palette entries in `out` from entry `outJointOffset` on. `out` may
 * be `matrices` itself at the same offset (each matrix is read before its slot is written).
 * Allocates nothing.
 */
export function dqPaletteFromMatrices(
  matrices: NumArray, count: number, out: NumArray, matrixOffset = 0, outJointOffset = 0,
): NumArray {
  if (out.length < (outJointOffset + count) * DQ_JOINT_FLOATS) {
    throw new RangeError(`dqPaletteFromMatrices: output holds ${Math.floor(out.length / DQ_JOINT_FLOATS) - outJointOffset} entries after the offset, ${count} needed`);
  }
  if (matrices.length < (matrixOffset + count) * 16) {
    throw new RangeError(`dqPaletteFromMatrices: input holds ${Math.floor(matrices.length / 16) - matrixOffset} matrices after the offset, ${count} needed`);
  }
  const F = DqJointFloat;
  for (let j = 0; j < count; j++) {
    rigidStretchFromMat4(matrices, dqScratch, stretchScratch, (matrixOffset + j) * 16);
    const o = (outJointOffset + j) * DQ_JOINT_FLOATS;
    for (let k = 0; k < 8; k++) out[o + F.REAL + k] = dqScratch[k]; // REAL then DUAL, adjacent
    out[o + F.STRETCH_DIAGONAL] = stretchScratch[0];
    out[o + F.STRETCH_DIAGONAL + 1] = stretchScratch[1];
    out[o + F.STRETCH_DIAGONAL + 2] = stretchScratch[2];
    out[o + F.STRETCH_DIAGONAL + 3] = 0;
    out[o + F.STRETCH_OFF_DIAGONAL] = stretchScratch[3];
    out[o + F.STRETCH_OFF_DIAGONAL + 1] = stretchScratch[4];
    out[o + F.STRETCH_OFF_DIAGONAL + 2] = stretchScratch[5];
    out[o + F.STRETCH_OFF_DIAGONAL + 3] = 0;
  }
  return out;
}

/**
 * The DQ palette of one skinned mesh node: `skinPalette` (same `meshSlot` meaning: -1 for
 * world space), then each matrix converted in place. With a Float32Array `out` the
 * matrices are rounded to float32 before the decomposition; pass a Float64Array `scratch`
 * of at least 16 × joints to decompose the double-precision matrices instead.
 */
export function skinDqPalette(
  skin: Skin, models: Float64Array, meshSlot: number, out: NumArray, outJointOffset = 0, scratch?: Float64Array,
): NumArray {
  const count = skin.joints.length;
  if (scratch) {
    skinPalette(skin, models, meshSlot, scratch, 0);
    return dqPaletteFromMatrices(scratch, count, out, 0, outJointOffset);
  }
  skinPalette(skin, models, meshSlot, out, outJointOffset);
  return dqPaletteFromMatrices(out, count, out, outJointOffset, outJointOffset);
}
