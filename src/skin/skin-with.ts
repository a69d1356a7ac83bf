/**
 * The one CPU skinning that follows a SkinningMethod — what bake, ray casts and the tests
 * call, so each names the method once: linear blending (cpu-skin.ts), dual quaternions
 * (dqs.ts) or centres of rotation (cor.ts, with the primitive's centres from
 * centers-of-rotation/centers.ts, computed here on first use if nothing prepared them).
 * `palette` is what the method reads (`usesDqPalette`): matrices for linear, DqJoint entries
 * otherwise; `paletteOffset` counts 16-float entries either way. Allocates nothing once the
 * primitive's centres are known.
 */
import type { SkinningMethod } from '../anim/skinning-method.ts';
import type { Primitive } from '../gltf/model.ts';
import type { NumArray } from '../math/types.ts';
import { centersOf } from './centers-of-rotation/centers.ts';
import { skinPrimitiveCor } from './cor.ts';
import { skinPrimitive, type SkinnedVertices } from './cpu-skin.ts';
import { skinPrimitiveDq } from './dqs.ts';

export function skinPrimitiveWith(
  method: SkinningMethod, prim: Primitive, palette: NumArray, out: SkinnedVertices, paletteOffset = 0,
  source: { positions: Float32Array; normals?: Float32Array; tangents?: Float32Array } = prim,
): SkinnedVertices {
  switch (method) {
    case 'dual-quaternion': return skinPrimitiveDq(prim, palette, out, paletteOffset, source);
    case 'center-of-rotation': return skinPrimitiveCor(prim, palette, centersOf(prim).centers, out, paletteOffset, source);
    default: return skinPrimitive(prim, palette, out, paletteOffset, source);
  }
}
