import { TargetPath } from '../../gltf/constants.ts';
import type { Clip, Model } from '../../gltf/model.ts';

/**
 * `model` with `clips` appended to its animations (a new frozen Model sharing everything else),
 * so the player, layers, crowds and the batch kernel see them as the model's own. A clip whose
 * name is already taken gets `from` (its file's name) in front: `walk.glb/Walk`, then
 * `walk.glb/Walk (2)`; an unnamed clip stays unnamed (listed by its index). A node given by a
 * `matrix` that an added clip animates switches to its T/R/S decomposition in the new model's
 * hierarchy (as the loader does for its own clips); `model` itself is not changed.
 */
export function addClips(model: Model, clips: readonly Clip[], from: string): Model {
  const taken = new Set(model.animations.map((c, i) => c.name ?? String(i)));
  const added = clips.map((clip): Clip => {
    if (clip.name === undefined) return clip; // Listed by its index, like any unnamed clip.
    let name = clip.name;
    if (taken.has(name)) name = `${from}/${clip.name}`;
    for (let n = 2; taken.has(name); n++) name = `${from}/${clip.name} (${n})`;
    taken.add(name);
    return name === clip.name ? clip : { ...clip, name };
  });
  const h = model.hierarchy;
  let useMatrix = h.useMatrix;
  for (const clip of added) {
    for (const ch of clip.channels) {
      if (ch.path === TargetPath.WEIGHTS || !useMatrix[ch.slot]) continue;
      if (useMatrix === h.useMatrix) useMatrix = h.useMatrix.slice();
      useMatrix[ch.slot] = 0;
    }
  }
  const hierarchy = useMatrix === h.useMatrix ? h : { ...h, useMatrix };
  return Object.freeze({ ...model, hierarchy, animations: [...model.animations, ...added] });
}
