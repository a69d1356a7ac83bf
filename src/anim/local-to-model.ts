import type { Hierarchy } from '../gltf/model.ts';
import { composeTRS, multiplyMat4 } from '../math/trs.ts';
import type { Pose } from './pose.ts';

/**
 * Local → model (scene) space for every node: one forward loop over slots, since a
 * parent's slot is always smaller than its children's (ozz-animation's LocalToModelJob).
 * `out` holds 16 doubles per slot, column-major.
 */
export function localToModel(h: Hierarchy, pose: Pose, out: Float64Array): Float64Array {
  if (out.length < h.count * 16) throw new RangeError(`localToModel: output holds ${out.length / 16} matrices, hierarchy has ${h.count}`);
  const { parentSlot, useMatrix, restMatrix } = h;
  const { translation, rotation, scale } = pose;
  for (let slot = 0; slot < h.count; slot++) {
    const parent = parentSlot[slot];
    const o = slot * 16;
    if (parent < 0) {
      if (useMatrix[slot]) {
        for (let i = 0; i < 16; i++) out[o + i] = restMatrix[o + i];
      } else {
        composeTRS(translation, rotation, scale, out, slot * 3, slot * 4, slot * 3, o);
      }
    } else if (useMatrix[slot]) {
      multiplyMat4(out, restMatrix, out, parent * 16, o, o);
    } else {
      // Compose the local matrix in place, then premultiply by the parent: multiplyMat4
      // reads all of b's column before writing it, so dst may alias b.
      composeTRS(translation, rotation, scale, out, slot * 3, slot * 4, slot * 3, o);
      multiplyMat4(out, out, out, parent * 16, o, o);
    }
  }
  return out;
}
