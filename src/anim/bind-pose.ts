import type { Model, Skin } from '../gltf/model.ts';
import { invertMat4, multiplyMat4 } from '../math/trs.ts';
import { localToModel } from './local-to-model.ts';
import { createPose, type Pose } from './pose.ts';

/**
 * Bind-pose editing for character customisation: a bigger nose, higher cheekbones, longer
 * arms — shape changes made by moving, turning or scaling joints at rest, that must then
 * survive every clip the character plays.
 *
 * Why not just change the rest transforms? A clip overrides the rest value of every channel
 * it animates, so a cheekbone moved at rest snaps back as soon as a facial clip animates
 * its translation. The edit has to live where clips never write: the inverse bind matrices.
 *
 * Derivation. Skinning puts a vertex v bound to joint j at  W_j(t) · IBM_j · v, where
 * IBM_j takes mesh space to the joint's local space (glTF: oldWorldToLocal ·
 * meshLocalToWorld when the file's bind pose is its rest pose) and W_j(t) is the animated
 * joint-to-model transform. Let W_j and W'_j be the joint's model transform at rest before
 * and after the edit. The edit, expressed in the joint's own rest frame, is
 *     E_j = W_j⁻¹ · W'_j                      (oldWorldToLocal · newLocalToWorld)
 * and the edited inverse bind matrix applies it in joint space before the animation does:
 *     IBM'_j = E_j · IBM_j = oldWorldToLocal · newLocalToWorld · oldWorldToLocal · meshLocalToWorld
 * With the hierarchy's rest pose left as it was:
 *  - at rest, W_j · E_j · IBM_j · v = W'_j · W_j⁻¹ · (W_j · IBM_j · v): every vertex moves
 *    exactly as if its joint had been moved by the edit — the rest pose shows the edit;
 *  - animated, W_j(t) · E_j · (IBM_j · v): the vertex's joint-local position is edited once
 *    and then carried by the animation, so the edit's offset stays in the joint's space
 *    whatever the clip does to that joint's channels.
 * The rest transforms must *not* also be changed: the rest pose would then be W'_j · E_j ·
 * IBM_j · v, the edit applied twice (the tests show the doubled offset). Descendants of an
 * edited joint get their own E (their rest frames moved with their parent), so a scaled nose
 * scales the nose tip's vertices too. The stored IBM is used rather than rebuilding it from
 * the rest pose, so files whose bind pose differs from their rest pose keep working.
 *
 * Offline: allocates. The model is immutable, so this returns a copy sharing everything
 * but the skins, whose inverse bind matrices are new arrays.
 */
export function editBindPose(model: Model, editedRest: Pose): Model {
  const h = model.hierarchy;
  if (editedRest.rotation.length !== h.count * 4 || editedRest.translation.length !== h.count * 3 || editedRest.scale.length !== h.count * 3) {
    throw new RangeError(`editBindPose: the edited rest pose has ${editedRest.translation.length / 3} slots, the model has ${h.count}`);
  }
  for (let slot = 0; slot < h.count; slot++) {
    if (!h.useMatrix[slot]) continue;
    // localToModel uses a matrix node's own matrix and ignores the pose there.
    for (let i = 0; i < 3; i++) {
      if (editedRest.translation[slot * 3 + i] !== h.restTranslation[slot * 3 + i] || editedRest.scale[slot * 3 + i] !== h.restScale[slot * 3 + i]) throw matrixEdit(model, slot);
    }
    for (let i = 0; i < 4; i++) if (editedRest.rotation[slot * 4 + i] !== h.restRotation[slot * 4 + i]) throw matrixEdit(model, slot);
  }
  const before = localToModel(h, createPose(model), new Float64Array(h.count * 16));
  const after = localToModel(h, editedRest, new Float64Array(h.count * 16));
  const inverse = new Float64Array(16), edit = new Float64Array(16);
  const skins = model.skins.map((skin, s): Skin => {
    const ibm = Float64Array.from(skin.inverseBindMatrices);
    for (let j = 0; j < skin.joints.length; j++) {
      const g = skin.jointSlots[j] * 16;
      if (sameMatrix(before, after, g)) continue; // untouched joints keep their exact matrices
      if (!invertMat4(before, inverse, g)) {
        throw new RangeError(`editBindPose: skins[${s}].joints[${j}] (node ${skin.joints[j]}) has a singular rest transform; its edit cannot be expressed in its frame`);
      }
      // The inverse of an affine matrix is affine: make its bottom row exact so the products stay affine.
      inverse[3] = 0; inverse[7] = 0; inverse[11] = 0; inverse[15] = 1;
      multiplyMat4(inverse, after, edit, 0, g, 0); // E = oldWorldToLocal · newLocalToWorld
      multiplyMat4(edit, skin.inverseBindMatrices, ibm, 0, j * 16, j * 16); // IBM' = E · IBM
    }
    return { ...skin, inverseBindMatrices: ibm };
  });
  return { ...model, skins };
}

function sameMatrix(a: Float64Array, b: Float64Array, o: number): boolean {
  for (let i = 0; i < 16; i++) if (a[o + i] !== b[o + i]) return false;
  return true;
}

function matrixEdit(model: Model, slot: number): RangeError {
  const node = model.hierarchy.order[slot];
  return new RangeError(`editBindPose: node ${node} (${model.nodes[node].name ?? 'unnamed'}) is given by a matrix and cannot be edited through its TRS`);
}
