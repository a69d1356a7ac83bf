import type { Model } from '../../gltf/model.ts';
import { composeTRS, decomposeTRS, invertMat4, multiplyMat4 } from '../../math/trs.ts';
import { localToModel } from '../local-to-model.ts';
import { createPose, type Pose } from '../pose.ts';
import { jointLabel, RetargetError } from './joint-map.ts';

/**
 * The pose a skeleton is compared in: `'rest'` (the nodes' own transforms), `'bind'` (the pose
 * the inverse bind matrices describe: each joint's world matrix is the inverse of its inverse
 * bind matrix), or a Pose of the model (`createPose` then edited).
 */
export type ReferencePose = 'rest' | 'bind' | Pose;

/** A reference pose as local T/R/S (a Pose) and the world matrices of every node in it. */
export interface ReferenceFrames {
  readonly pose: Pose;
  /** 16 per slot, column-major. */
  readonly world: Float64Array;
}

/** Resolves `ref` for `model`; `side` ('source' or 'target') names it in errors. Throws RetargetError naming a joint whose values are not finite. */
export function referenceFrames(model: Model, ref: ReferencePose, side: string): ReferenceFrames {
  const h = model.hierarchy;
  const pose = createPose(model);
  if (ref === 'bind') bindPose(model, pose);
  else if (ref !== 'rest') {
    if (ref.translation.length !== h.count * 3 || ref.rotation.length !== h.count * 4 || ref.scale.length !== h.count * 3) {
      throw new RetargetError(`${side} reference pose holds ${ref.rotation.length / 4} joints; the ${side} model has ${h.count} nodes`);
    }
    pose.translation.set(ref.translation);
    pose.rotation.set(ref.rotation);
    pose.scale.set(ref.scale);
  }
  for (let slot = 0; slot < h.count; slot++) {
    let finite = true;
    for (let i = 0; i < 3; i++) finite &&= Number.isFinite(pose.translation[slot * 3 + i]) && Number.isFinite(pose.scale[slot * 3 + i]);
    for (let i = 0; i < 4; i++) finite &&= Number.isFinite(pose.rotation[slot * 4 + i]);
    if (!finite) {
      const joint = jointLabel(model, slot);
      throw new RetargetError(`${side} reference pose of ${JSON.stringify(joint)} is not finite (NaN or infinity in its translation, rotation or scale)`, joint);
    }
  }
  // Retargeting reads T/R/S, so a `matrix` node is taken by its decomposition (load.ts keeps both).
  const flat = { ...h, useMatrix: new Uint8Array(h.count) };
  return { pose, world: localToModel(flat, pose, new Float64Array(h.count * 16)) };
}

const local = new Float64Array(16);
const inverse = new Float64Array(16);
const t3 = new Float64Array(3), r4 = new Float64Array(4), s3 = new Float64Array(3);

/**
 * The pose of the inverse bind matrices: joint worlds are their inverses (the first skin that
 * lists a joint decides), other nodes keep their rest transforms; locals are parent⁻¹ · world.
 */
function bindPose(model: Model, pose: Pose): void {
  const h = model.hierarchy;
  const bindWorld = new Float64Array(h.count * 16);
  const isJoint = new Uint8Array(h.count);
  for (const skin of model.skins) {
    skin.jointSlots.forEach((slot, j) => {
      if (isJoint[slot]) return;
      if (!invertMat4(skin.inverseBindMatrices, bindWorld, j * 16, slot * 16)) {
        const joint = jointLabel(model, slot);
        throw new RetargetError(`bind reference pose: the inverse bind matrix of ${JSON.stringify(joint)} is singular`, joint);
      }
      isJoint[slot] = 1;
    });
  }
  const world = new Float64Array(h.count * 16);
  for (let slot = 0; slot < h.count; slot++) {
    const p = h.parentSlot[slot];
    if (isJoint[slot]) {
      world.set(bindWorld.subarray(slot * 16, slot * 16 + 16), slot * 16);
      if (p >= 0) {
        if (!invertMat4(world, inverse, p * 16, 0)) throw new RetargetError(`bind reference pose: the parent of ${JSON.stringify(jointLabel(model, slot))} has a singular world matrix`, jointLabel(model, slot));
        multiplyMat4(inverse, world, local, 0, slot * 16, 0);
      } else {
        local.set(world.subarray(slot * 16, slot * 16 + 16));
      }
      decomposeTRS(local, t3, r4, s3);
      pose.translation.set(t3, slot * 3);
      pose.rotation.set(r4, slot * 4);
      pose.scale.set(s3, slot * 3);
    } else {
      composeTRS(pose.translation, pose.rotation, pose.scale, local, slot * 3, slot * 4, slot * 3, 0);
      if (p >= 0) multiplyMat4(world, local, world, p * 16, 0, slot * 16);
      else world.set(local, slot * 16);
    }
  }
}
