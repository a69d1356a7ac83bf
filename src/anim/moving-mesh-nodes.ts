/**
 * Which nodes and mesh nodes a model's clips move: a node that some clip's translation,
 * rotation or scale channel targets, or one below such a node (morph weights move nothing;
 * channels on nodes given by a `matrix` are ignored, as glTF requires). A moving mesh node's
 * world matrix differs per instance of a crowd, so a GPU-evaluated crowd writes it per instance
 * (GpuPoseEvaluator `meshWorlds`) and GPU-written draw records read it there; the others keep
 * their rest world.
 */
import { TargetPath } from '../gltf/constants.ts';
import type { Model } from '../gltf/model.ts';

/**
 * Per hierarchy slot, 1 when a clip moves it or an ancestor, else 0; `alsoMoved` slots count as
 * moved too (the GPU evaluator's locked roots). Load time (allocates).
 */
export function animatedSlots(model: Model, alsoMoved: readonly number[] = []): Uint8Array {
  const h = model.hierarchy;
  const moved = new Uint8Array(h.count);
  for (const clip of model.animations) {
    for (const ch of clip.channels) if (ch.path !== TargetPath.WEIGHTS && !h.useMatrix[ch.slot]) moved[ch.slot] = 1;
  }
  for (const slot of alsoMoved) moved[slot] = 1;
  // Slots are parent-first: one forward pass carries a moved parent to its children.
  for (let slot = 0; slot < h.count; slot++) if (h.parentSlot[slot] >= 0 && moved[h.parentSlot[slot]]) moved[slot] = 1;
  return moved;
}

/** Indices into `model.meshNodes` of the moving mesh nodes, ascending. Load time (allocates). */
export function movingMeshNodes(model: Model): number[] {
  const moved = animatedSlots(model);
  const out: number[] = [];
  model.meshNodes.forEach((mn, i) => { if (moved[model.hierarchy.slotOf[mn.node]]) out.push(i); });
  return out;
}
