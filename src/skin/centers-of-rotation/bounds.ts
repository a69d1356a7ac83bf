/**
 * The skinned bounds of centre-of-rotation skinning (src/anim/skinned-bounds.ts, built from
 * the centres): what culling and ray casts use for that method. The centres come from
 * centers.ts (computed here if nothing prepared them).
 */
import { createSkinnedBounds, type SkinnedBounds } from '../../anim/skinned-bounds.ts';
import type { Model } from '../../gltf/model.ts';
import { centersOf } from './centers.ts';

/**
 * Skinned bounds for centre-of-rotation skinning: built from the model's centres of rotation (from the file,
 * or computed), padded so every vertex stays inside for any pose.
 */
export function centerOfRotationBounds(model: Model): SkinnedBounds {
  return createSkinnedBounds(model, (prim) => centersOf(prim).centers);
}
