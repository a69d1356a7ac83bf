/**
 * Which mesh nodes a model's clips move: a mesh node whose node, or an ancestor of it, some
 * clip's translation, rotation or scale channel targets (morph weights move nothing; channels
 * on nodes given by a `matrix` are ignored, as glTF requires). Their world matrix differs per
 * instance of a crowd, so a GPU-evaluated crowd writes it per instance (GpuPoseEvaluator
 * `meshWorlds`) and GPU-written draw records read it there; the others keep their rest world.
 */
import { TargetPath } from '../gltf/constants.ts';
import type { Model } from '../gltf/model.ts';

/** Indices into `model.meshNodes` of the moving mesh nodes, ascending. Load time (allocates). */
export function movingMeshNodes(model: Model): number[] {
  const h = model.hierarchy;
  const moved = new Uint8Array(h.count);
  for (const clip of model.animations) {
    for (const ch of clip.channels) if (ch.path !== TargetPath.WEIGHTS && !h.useMatrix[ch.slot]) moved[ch.slot] = 1;
  }
  const out: number[] = [];
  model.meshNodes.forEach((mn, i) => {
    for (let s = h.slotOf[mn.node]; s >= 0; s = h.parentSlot[s]) {
      if (moved[s]) {
        out.push(i);
        return;
      }
    }
  });
  return out;
}
