import type { Skin } from '../gltf/model.ts';
import { invertMat4, multiplyMat4, type NumArray } from '../math/trs.ts';

const meshInverse = new Float64Array(16);
const jointBind = new Float64Array(16);

/**
 * Joint-matrix palette of one skinned mesh node (glTF tutorial, "Skins"):
 *   palette[j] = inverse(meshNodeModel) · jointModel[j] · inverseBind[j]
 * so the mesh node's own transform (and its ancestors') cancel out when the skinned
 * vertices are later drawn with the mesh node's matrix. Pass `meshSlot = -1` for the
 * palette in model (world) space: jointModel[j] · inverseBind[j].
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
  const slots = skin.jointSlots;
  const ibm = skin.inverseBindMatrices;
  const relative = meshSlot >= 0 && invertMat4(models, meshInverse, meshSlot * 16);
  for (let j = 0; j < count; j++) {
    const o = (outMatrixOffset + j) * 16;
    if (relative) {
      multiplyMat4(models, ibm, jointBind, slots[j] * 16, j * 16, 0);
      multiplyMat4(meshInverse, jointBind, out, 0, 0, o);
    } else {
      multiplyMat4(models, ibm, out, slots[j] * 16, j * 16, o);
    }
  }
  return out;
}
