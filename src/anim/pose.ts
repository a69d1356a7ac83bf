import type { Model } from '../gltf/model.ts';

/**
 * A local pose of every node, by slot (see `Hierarchy`): translation (3), rotation
 * quaternion x y z w (4), scale (3), plus morph weights per node. Allocated once per
 * model by `createPose`; every per-frame job writes into it without allocating.
 */
export interface Pose {
  readonly translation: Float64Array;
  readonly rotation: Float64Array;
  readonly scale: Float64Array;
  /** Morph weights of all nodes, concatenated; node n's start at `weightOffsets[slot]`. */
  readonly weights: Float32Array;
  /** slot → first weight index; `weightOffsets[slot + 1] - weightOffsets[slot]` weights. */
  readonly weightOffsets: Int32Array;
}

/** Allocates a pose for `model`'s hierarchy, set to the rest pose. */
export function createPose(model: Model): Pose {
  const h = model.hierarchy;
  const weightOffsets = new Int32Array(h.count + 1);
  for (let slot = 0; slot < h.count; slot++) {
    weightOffsets[slot + 1] = weightOffsets[slot] + model.nodes[h.order[slot]].weights.length;
  }
  const pose: Pose = {
    translation: new Float64Array(h.count * 3),
    rotation: new Float64Array(h.count * 4),
    scale: new Float64Array(h.count * 3),
    weights: new Float32Array(weightOffsets[h.count]),
    weightOffsets,
  };
  setRestPose(model, pose);
  return pose;
}

/** Writes the model's rest (bind-time node) transforms and default morph weights into `pose`. */
export function setRestPose(model: Model, pose: Pose): Pose {
  const h = model.hierarchy;
  pose.translation.set(h.restTranslation);
  pose.rotation.set(h.restRotation);
  pose.scale.set(h.restScale);
  for (let slot = 0; slot < h.count; slot++) {
    pose.weights.set(model.nodes[h.order[slot]].weights, pose.weightOffsets[slot]);
  }
  return pose;
}
