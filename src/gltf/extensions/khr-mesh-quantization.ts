import type { AccessorData } from '../accessors.ts';
import { ComponentType } from '../constants.ts';
import type { JsonObject } from '../json.ts';
import type { QuantizedAttributes } from '../model.ts';
import type { ReadContext } from '../read-context.ts';

/**
 * KHR_mesh_quantization: vertex attributes and morph target deltas stored as 8- or 16-bit
 * integers, normalized or not, with the dequantization (scale and offset) folded into the
 * node transform or the inverse bind matrices by the tool that wrote the file.
 *
 * On the CPU nothing is special: every attribute is read through `toFloat32` (accessors.ts),
 * which applies the glTF normalization formulas to normalized data and keeps plain integer
 * values otherwise, so bake, bounds, culling and shadow fitting see the same numbers the
 * GPU does. The section readers never refused integer POSITION/NORMAL/TANGENT/TEXCOORD or
 * morph deltas (the types this extension adds: (U)BYTE and (U)SHORT, normalized or not, as
 * the spec's table allows per attribute; three.js does not check either), so files without
 * the extension read as before; declaring it only lets `extensionsRequired` name it.
 *
 * For the GPU, `quantizedAttributes` keeps the integer accessors of a primitive so the
 * upload (gpu/quantized-vertex.ts) can store them as they are.
 */
export const KHR_MESH_QUANTIZATION = 'KHR_mesh_quantization';

/** The attributes whose integer storage the GPU upload may keep. */
const GPU_ATTRIBUTES = ['POSITION', 'NORMAL', 'TANGENT', 'TEXCOORD_0', 'TEXCOORD_1'] as const;

/**
 * The accessors of a primitive's POSITION, NORMAL, TANGENT and TEXCOORD_0/1 that are stored
 * as 8- or 16-bit integers, or undefined when all are floats (the common case: nothing is
 * kept). The accessors were already read and checked by the primitive reader (cached).
 */
export function quantizedAttributes(ctx: ReadContext, attrs: JsonObject, apath: string): QuantizedAttributes | undefined {
  let out: Record<string, AccessorData> | undefined;
  for (const name of GPU_ATTRIBUTES) {
    if (attrs[name] === undefined) continue;
    const data = ctx.attribute(attrs, name, apath);
    if (!keepsIntegerStorage(name, data.componentType)) continue;
    (out ??= {})[name] = data;
  }
  return out;
}

/**
 * Whether the loader keeps attribute `name`'s accessor of `componentType` in the primitive's
 * `quantized` (what the upload may keep in integer vertex formats): also asked of a file's JSON
 * before the accessor is read (gpu/draw/pipeline-forecast.ts).
 */
export function keepsIntegerStorage(name: string, componentType: number): boolean {
  return (GPU_ATTRIBUTES as readonly string[]).includes(name) && isQuantizedType(componentType);
}

/** 8- and 16-bit component types: the ones the extension adds. */
export function isQuantizedType(componentType: number): boolean {
  return componentType === ComponentType.BYTE || componentType === ComponentType.UNSIGNED_BYTE
    || componentType === ComponentType.SHORT || componentType === ComponentType.UNSIGNED_SHORT;
}
