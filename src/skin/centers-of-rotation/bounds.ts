/**
 * The skinned bounds of centre-of-rotation skinning (src/anim/skinned-bounds.ts, built from
 * the centres): what culling and ray casts use for that method. The centres come from
 * centers.ts (computed here if nothing prepared them).
 */
import { createSkinnedBounds, type SkinnedBounds } from '../../anim/skinned-bounds.ts';
import type { Model } from '../../gltf/model.ts';
import { centersOf } from './centers.ts';

export function centerOfRotationBounds(model: Model): SkinnedBounds {
  return createSkinnedBounds(model, (prim) => centersOf(prim).centers);
}
