import type { Clip, Model } from '../../gltf/model.ts';

/**
 * `model` with `clips` appended to its animations (a new frozen Model sharing everything else),
 * so the player, layers, crowds and the batch kernel see them as the model's own. A clip whose
 * name is already taken (or that has none) gets `from` (its file's name) in front:
 * `walk.glb/Walk`, `walk.glb/0`.
 */
export function addClips(model: Model, clips: readonly Clip[], from: string): Model {
  const taken = new Set(model.animations.map((c, i) => c.name ?? String(i)));
  const added = clips.map((clip, i): Clip => {
    let name = clip.name ?? `${from}/${i}`;
    if (taken.has(name)) name = `${from}/${clip.name ?? i}`;
    for (let n = 2; taken.has(name); n++) name = `${from}/${clip.name ?? i} (${n})`;
    taken.add(name);
    return name === clip.name ? clip : { ...clip, name };
  });
  return Object.freeze({ ...model, animations: [...model.animations, ...added] });
}
