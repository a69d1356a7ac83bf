import type { Skin } from '../gltf/model.ts';
import { invertMat4, isIdentityMat4, multiplyMat4 } from '../math/trs.ts';
import type { NumArray } from '../math/types.ts';

const meshInverse = new Float64Array(16);
const jointBind = new Float64Array(16);

/**
 * Joint-matrix palette of one skinned mesh node (glTF tutorial, "Skins"):
 *   palette[j] = inverse(meshNodeModel) · jointModel[j] · inverseBind[j]
 * so the mesh node's own transform (and its ancestors') cancel out when the skinned
 * vertices are later drawn with the mesh node's matrix. Pass `meshSlot = -1` for the
 * palette in model (world) space: jointModel[j] · inverseBind[j]. A singular mesh node
 * matrix (zero scale: nothing visible) also gives the world palette.
 *
 * `models` is localToModel's output. Writes 16 values per joint into `out` from
 * matrix `outMatrixOffset` on; `out` is typically one Float32Array for all skins.
 */
export function skinPalette(
  skin: Skin, models: Float64Array, meshSlot: number, out: NumArray, outMatrixOffset = 0,
): NumArray {
  const count = skin.joints.length;
  if (out.length < (outMatrixOffset + count) * 16) {
    throw new RangeError(`skinPalette: output holds ${Math.floor(out.length / 16) - outMatrixOffset} matrices after the offset, skin has ${count}`);
  }
  const relative = meshSlot >= 0 && invertMat4(models, meshInverse, meshSlot * 16) && !isIdentityMat4(meshInverse);
  if (!skin.inverseBindAffine) {
    generalPalette(skin, models, relative, out, outMatrixOffset);
    return out;
  }
  const slots = skin.jointSlots;
  const ibm = skin.inverseBindMatrices;
  const mi = meshInverse;
  for (let j = 0; j < count; j++) {
    // A = jointModel · inverseBind, both affine: a 3×4 product.
    const g = slots[j] * 16, b = j * 16;
    const g00 = models[g], g01 = models[g + 1], g02 = models[g + 2];
    const g10 = models[g + 4], g11 = models[g + 5], g12 = models[g + 6];
    const g20 = models[g + 8], g21 = models[g + 9], g22 = models[g + 10];
    const g30 = models[g + 12], g31 = models[g + 13], g32 = models[g + 14];
    const b00 = ibm[b], b01 = ibm[b + 1], b02 = ibm[b + 2];
    const b10 = ibm[b + 4], b11 = ibm[b + 5], b12 = ibm[b + 6];
    const b20 = ibm[b + 8], b21 = ibm[b + 9], b22 = ibm[b + 10];
    const b30 = ibm[b + 12], b31 = ibm[b + 13], b32 = ibm[b + 14];
    let a00 = g00 * b00 + g10 * b01 + g20 * b02, a01 = g01 * b00 + g11 * b01 + g21 * b02, a02 = g02 * b00 + g12 * b01 + g22 * b02;
    let a10 = g00 * b10 + g10 * b11 + g20 * b12, a11 = g01 * b10 + g11 * b11 + g21 * b12, a12 = g02 * b10 + g12 * b11 + g22 * b12;
    let a20 = g00 * b20 + g10 * b21 + g20 * b22, a21 = g01 * b20 + g11 * b21 + g21 * b22, a22 = g02 * b20 + g12 * b21 + g22 * b22;
    let a30 = g00 * b30 + g10 * b31 + g20 * b32 + g30, a31 = g01 * b30 + g11 * b31 + g21 * b32 + g31, a32 = g02 * b30 + g12 * b31 + g22 * b32 + g32;
    if (relative) {
      // meshInverse · A; meshInverse is affine too (inverse of an affine matrix).
      const m00 = mi[0], m01 = mi[1], m02 = mi[2], m10 = mi[4], m11 = mi[5], m12 = mi[6];
      const m20 = mi[8], m21 = mi[9], m22 = mi[10], m30 = mi[12], m31 = mi[13], m32 = mi[14];
      const c00 = m00 * a00 + m10 * a01 + m20 * a02, c01 = m01 * a00 + m11 * a01 + m21 * a02, c02 = m02 * a00 + m12 * a01 + m22 * a02;
      const c10 = m00 * a10 + m10 * a11 + m20 * a12, c11 = m01 * a10 + m11 * a11 + m21 * a12, c12 = m02 * a10 + m12 * a11 + m22 * a12;
      const c20 = m00 * a20 + m10 * a21 + m20 * a22, c21 = m01 * a20 + m11 * a21 + m21 * a22, c22 = m02 * a20 + m12 * a21 + m22 * a22;
      const c30 = m00 * a30 + m10 * a31 + m20 * a32 + m30, c31 = m01 * a30 + m11 * a31 + m21 * a32 + m31, c32 = m02 * a30 + m12 * a31 + m22 * a32 + m32;
      a00 = c00; a01 = c01; a02 = c02; a10 = c10; a11 = c11; a12 = c12;
      a20 = c20; a21 = c21; a22 = c22; a30 = c30; a31 = c31; a32 = c32;
    }
    const o = (outMatrixOffset + j) * 16;
    out[o] = a00; out[o + 1] = a01; out[o + 2] = a02; out[o + 3] = 0;
    out[o + 4] = a10; out[o + 5] = a11; out[o + 6] = a12; out[o + 7] = 0;
    out[o + 8] = a20; out[o + 9] = a21; out[o + 10] = a22; out[o + 11] = 0;
    out[o + 12] = a30; out[o + 13] = a31; out[o + 14] = a32; out[o + 15] = 1;
  }
  return out;
}

/** Inverse bind matrices with a projective bottom row: full 4×4 products. */
function generalPalette(skin: Skin, models: Float64Array, relative: boolean, out: NumArray, outMatrixOffset: number): void {
  const slots = skin.jointSlots;
  const ibm = skin.inverseBindMatrices;
  for (let j = 0; j < skin.joints.length; j++) {
    const o = (outMatrixOffset + j) * 16;
    if (relative) {
      multiplyMat4(models, ibm, jointBind, slots[j] * 16, j * 16, 0);
      multiplyMat4(meshInverse, jointBind, out, 0, 0, o);
    } else {
      multiplyMat4(models, ibm, out, slots[j] * 16, j * 16, o);
    }
  }
}


