/**
 * `_CENTER_OF_ROTATION`: an application-specific vertex attribute (glTF §3.7.2.1 allows names
 * starting with an underscore) holding each vertex's precomputed centre of rotation for
 * centre-of-rotation skinning, in the mesh's bind-pose space: a VEC3 FLOAT accessor with one
 * element per vertex, as `bake --write-centers` writes it. A page that reads it skips the
 * precomputation (src/skin/centers-of-rotation/).
 *
 * The file is only a cache of what the loader can compute itself, so a wrong one is not
 * fatal: a non-VEC3 or non-FLOAT accessor, a count other than POSITION's, a non-finite value,
 * or the attribute on a primitive without skinning attributes is a warning naming the
 * attribute's JSON path, and the centres are recomputed (or not needed).
 */
import { ComponentType } from './constants.ts';
import type { JsonObject } from './json.ts';
import type { Primitive } from './model.ts';
import type { ReadContext } from './read-context.ts';

export const CENTER_OF_ROTATION_ATTRIBUTE = '_CENTER_OF_ROTATION';

/** The attribute's centres when present and sound (else nothing, after a warning). */
export function readCenterOfRotation(
  ctx: ReadContext, attrs: JsonObject, apath: string, vertexCount: number, skinned: boolean,
): Pick<Primitive, 'centersOfRotation'> {
  const index = attrs[CENTER_OF_ROTATION_ATTRIBUTE];
  if (index === undefined) return {};
  const path = `${apath}.${CENTER_OF_ROTATION_ATTRIBUTE}`;
  const recompute = skinned ? 'ignored, the centres are computed instead' : 'ignored';
  if (!skinned) {
    ctx.attributeCount(attrs, CENTER_OF_ROTATION_ATTRIBUTE, apath);
    ctx.warn(path, 'is on a primitive without JOINTS_0/WEIGHTS_0 (only skinned vertices have centres of rotation); ignored');
    return {};
  }
  const data = ctx.attribute(attrs, CENTER_OF_ROTATION_ATTRIBUTE, apath);
  if (data.components !== 3 || data.componentType !== ComponentType.FLOAT) {
    ctx.warn(path, `must be a VEC3 FLOAT accessor (accessors[${String(index)}] has ${data.components} component(s) of componentType ${data.componentType}); ${recompute}`);
    return {};
  }
  if (data.count !== vertexCount) {
    ctx.warn(path, `has ${data.count} elements but POSITION has ${vertexCount}; ${recompute}`);
    return {};
  }
  const values = data.array as Float32Array;
  for (let k = 0; k < values.length; k++) {
    if (!Number.isFinite(values[k])) {
      ctx.warn(path, `has a non-finite value (${values[k]}) at element ${Math.floor(k / 3)}; ${recompute}`);
      return {};
    }
  }
  return { centersOfRotation: values };
}
