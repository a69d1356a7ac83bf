import type { Hierarchy } from '../gltf/model.ts';
import { multiplyMat4 } from '../math/trs.ts';
import type { Pose } from './pose.ts';

/**
 * Local → model (scene) space for every node: one forward loop over slots, since a
 * parent's slot is always smaller than its children's (ozz-animation's LocalToModelJob).
 * `out` holds 16 doubles per slot, column-major.
 *
 * Node transforms are affine (T·R·S, or a `matrix` the spec requires to decompose into
 * one), so each step is the 3×4 product parent · local with the local matrix composed
 * from T/R/S on the fly: no intermediate matrix and no function call per node.
 *
 * `first`/`end` limit the loop to slots [first, end): a pose step that rewrote some local
 * transforms (the VRM spring bones, constraints and look-at) recomputes just the nodes below
 * them, the rest of `out` being current already.
 */
export function localToModel(h: Hierarchy, pose: Pose, out: Float64Array, first = 0, end = h.count): Float64Array {
  if (out.length < h.count * 16) throw new RangeError(`localToModel: output holds ${out.length / 16} matrices, hierarchy has ${h.count}`);
  const { parentSlot, useMatrix, restMatrix } = h;
  const T = pose.translation, R = pose.rotation, S = pose.scale;
  for (let slot = first; slot < end; slot++) {
    // Local 3×4 (columns l0..l2 the scaled rotation, l3 the translation).
    let l00: number, l01: number, l02: number, l10: number, l11: number, l12: number;
    let l20: number, l21: number, l22: number, l30: number, l31: number, l32: number;
    if (useMatrix[slot]) {
      const m = slot * 16;
      l00 = restMatrix[m]; l01 = restMatrix[m + 1]; l02 = restMatrix[m + 2];
      l10 = restMatrix[m + 4]; l11 = restMatrix[m + 5]; l12 = restMatrix[m + 6];
      l20 = restMatrix[m + 8]; l21 = restMatrix[m + 9]; l22 = restMatrix[m + 10];
      l30 = restMatrix[m + 12]; l31 = restMatrix[m + 13]; l32 = restMatrix[m + 14];
    } else {
      const r = slot * 4, t = slot * 3;
      const x = R[r], y = R[r + 1], z = R[r + 2], w = R[r + 3];
      const sx = S[t], sy = S[t + 1], sz = S[t + 2];
      const x2 = x + x, y2 = y + y, z2 = z + z;
      const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
      const wx = w * x2, wy = w * y2, wz = w * z2;
      l00 = (1 - (yy + zz)) * sx; l01 = (xy + wz) * sx; l02 = (xz - wy) * sx;
      l10 = (xy - wz) * sy; l11 = (1 - (xx + zz)) * sy; l12 = (yz + wx) * sy;
      l20 = (xz + wy) * sz; l21 = (yz - wx) * sz; l22 = (1 - (xx + yy)) * sz;
      l30 = T[t]; l31 = T[t + 1]; l32 = T[t + 2];
    }
    const o = slot * 16;
    const parent = parentSlot[slot];
    if (parent >= 0) {
      const p = parent * 16;
      const p00 = out[p], p01 = out[p + 1], p02 = out[p + 2];
      const p10 = out[p + 4], p11 = out[p + 5], p12 = out[p + 6];
      const p20 = out[p + 8], p21 = out[p + 9], p22 = out[p + 10];
      const p30 = out[p + 12], p31 = out[p + 13], p32 = out[p + 14];
      out[o] = p00 * l00 + p10 * l01 + p20 * l02;
      out[o + 1] = p01 * l00 + p11 * l01 + p21 * l02;
      out[o + 2] = p02 * l00 + p12 * l01 + p22 * l02;
      out[o + 4] = p00 * l10 + p10 * l11 + p20 * l12;
      out[o + 5] = p01 * l10 + p11 * l11 + p21 * l12;
      out[o + 6] = p02 * l10 + p12 * l11 + p22 * l12;
      out[o + 8] = p00 * l20 + p10 * l21 + p20 * l22;
      out[o + 9] = p01 * l20 + p11 * l21 + p21 * l22;
      out[o + 10] = p02 * l20 + p12 * l21 + p22 * l22;
      out[o + 12] = p00 * l30 + p10 * l31 + p20 * l32 + p30;
      out[o + 13] = p01 * l30 + p11 * l31 + p21 * l32 + p31;
      out[o + 14] = p02 * l30 + p12 * l31 + p22 * l32 + p32;
    } else {
      out[o] = l00; out[o + 1] = l01; out[o + 2] = l02;
      out[o + 4] = l10; out[o + 5] = l11; out[o + 6] = l12;
      out[o + 8] = l20; out[o + 9] = l21; out[o + 10] = l22;
      out[o + 12] = l30; out[o + 13] = l31; out[o + 14] = l32;
    }
    out[o + 3] = 0; out[o + 7] = 0; out[o + 11] = 0; out[o + 15] = 1;
  }
  return out;
}

/**
 * Model-space matrices of every node in the rest pose, by slot: the hierarchy's rest matrices
 * multiplied down from the roots (what localToModel gives for a rest pose). The one rest-pose
 * world function: the draws' winding and radius, the GPU record pass's static nodes, each clip's
 * root motion (findRootMotions) and the ground's footprint (restPoseBounds) read it. A VRM
 * avatar's rest *instance* would also run its pose steps, which at rest move its spring joints
 * by rounding only (test/anim/local-to-model.test.ts). Load time; allocates the result.
 */
export function restWorldMatrices(h: Hierarchy): Float64Array {
  const out = new Float64Array(h.count * 16);
  for (let slot = 0; slot < h.count; slot++) {
    const parent = h.parentSlot[slot];
    if (parent < 0) out.set(h.restMatrix.subarray(slot * 16, slot * 16 + 16), slot * 16);
    else multiplyMat4(out, h.restMatrix, out, parent * 16, slot * 16, slot * 16);
  }
  return out;
}
