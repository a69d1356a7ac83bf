import type { AccessorData, AccessorSource } from '../accessors.ts';
import { PrimitiveMode } from '../constants.ts';
import { isObject, optArray, type JsonObject } from '../json.ts';
import type { PrimitiveSubstitute, ReadContext } from '../read-context.ts';
import { KHR_DRACO_MESH_COMPRESSION, readDracoPrimitive, type DracoPrimitive, type DracoPrimitiveRequest } from './draco.ts';
import { decodeDraco } from './draco-offthread.ts';

/**
 * KHR_draco_mesh_compression in the loader: every compressed primitive is decoded (draco.ts,
 * in a worker on pages: draco-offthread.ts) before the meshes section is read, and its
 * outputs stand in for the accessors the primitive names while meshes.ts reads it — those
 * accessors often have no bufferView, and their uncompressed fallback, if any, is ignored,
 * as three.js does. Primitives naming the same compressed data (several meshes sharing
 * one) are decoded once and share everything derived from it.
 *
 * The registry's entry (registry.ts). Draco outputs triangles: a TRIANGLE_STRIP primitive comes out as a triangle list
 * (draco.ts), so the primitive is read with mode TRIANGLES.
 */
export async function decodeDracoPrimitives(ctx: ReadContext, src: AccessorSource): Promise<void> {
  const decodes = new Map<string, PrimitiveSubstitute>();
  const meshes = optArray(ctx.root, 'meshes', '');
  for (let mi = 0; mi < meshes.length; mi++) {
    // Malformed meshes are left for meshes.ts to report, in its words.
    const mesh = meshes[mi];
    if (!isObject(mesh) || !Array.isArray(mesh.primitives)) continue;
    for (let pi = 0; pi < mesh.primitives.length; pi++) {
      const prim: unknown = mesh.primitives[pi];
      if (!isObject(prim)) continue;
      const path = `meshes[${mi}].primitives[${pi}]`;
      const request = readDracoPrimitive(prim, path, src, (at, message) => ctx.warn(at, message));
      if (!request) continue;
      const key = decodeKey(prim, request);
      let substitute = decodes.get(key);
      if (!substitute) {
        substitute = toSubstitute(`draco${decodes.size}`, request, await decodeDraco(request, ctx.budget));
        decodes.set(key, substitute);
      }
      ctx.substitutes.set(prim, substitute);
    }
  }
}

/** What makes two primitives' decodes the same: the compressed bufferView and every accessor it fills. */
function decodeKey(prim: JsonObject, request: DracoPrimitiveRequest): string {
  const ext = (prim.extensions as JsonObject)[KHR_DRACO_MESH_COMPRESSION] as JsonObject;
  const attributes = request.attributes.map((a) => `${a.semantic}=${a.uniqueId}>${a.accessor.path}`).sort();
  return `${String(ext.bufferView)}|${attributes.join(',')}|${request.indices?.path ?? ''}`;
}

/**
 * The decode's data by semantic. Attributes that name one accessor (a gltfpack / glTF-Transform 3.0
 * file names one for TEXCOORD_0…3) still get their own decoded data: the extension's attribute
 * map defines what each attribute holds, as three.js reads it.
 */
function toSubstitute(key: string, request: DracoPrimitiveRequest, decoded: DracoPrimitive): PrimitiveSubstitute {
  const attributes = new Map<string, AccessorData>();
  for (const { semantic } of request.attributes) attributes.set(semantic, decoded.attributes.get(semantic)!);
  return { key, attributes, indices: decoded.indices, mode: PrimitiveMode.TRIANGLES };
}
