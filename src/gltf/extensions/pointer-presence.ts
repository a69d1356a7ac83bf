/**
 * Whether a file has an animation channel KHR_animation_pointer's reader
 * (khr-animation-pointer-reader.ts) must read, so that load.ts imports it only then: a channel
 * whose `target.path` is "pointer", the one case animations.ts hands to it (any other shape of
 * `animations` it reports itself). Decided by what the JSON holds, not `extensionsUsed`.
 */
import { isObject } from '../json.ts';

/** True when an animation of `root` has a channel targeting `path: "pointer"`. */
export function hasPointerChannels(root: Readonly<Record<string, unknown>>): boolean {
  const animations = root.animations;
  if (!Array.isArray(animations)) return false;
  return animations.some((a) => isObject(a) && Array.isArray(a.channels)
    && a.channels.some((c) => isObject(c) && isObject(c.target) && c.target.path === 'pointer'));
}
