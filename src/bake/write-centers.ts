/**
 * `bake --write-centers OUT.glb`: a copy of a glTF file with each skinned primitive's centres
 * of rotation stored as its `_CENTER_OF_ROTATION` attribute (gltf/center-of-rotation-attribute.ts),
 * so pages that load the copy skip the precomputation. Run once in a pipeline.
 *
 * The copy is the same file otherwise: the JSON is kept as written (extensions, extras and
 * unknown properties included) apart from buffers, bufferViews and accessors being appended
 * to, and it is written as one GLB: every buffer (the BIN chunk, data URIs, files beside the
 * model) is packed into its BIN chunk, and images stored as files beside the model are packed
 * too, so the copy stands alone. A meshopt fallback buffer (EXT_meshopt_compression), which
 * has no bytes, stays a buffer of its own. Primitives that already have a sound attribute keep
 * theirs; ones over the precomputation's budget get none (the loader then skins them linearly,
 * after its warning).
 */
import { encodeGlb } from '../gltf/builder.ts';
import { CENTER_OF_ROTATION_ATTRIBUTE } from '../gltf/center-of-rotation-attribute.ts';
import { ComponentType } from '../gltf/constants.ts';
import type { GltfWarning } from '../gltf/errors.ts';
import { isMeshoptFallbackBuffer } from '../gltf/extensions/meshopt.ts';
import { parseGltfBytes } from '../gltf/glb.ts';
import type { Model } from '../gltf/model.ts';
import { decodeDataUri, type ResourceOptions } from '../gltf/resources.ts';
import { centersOf, modelCentersHere } from '../skin/centers-of-rotation/centers.ts';

/** Byte alignment of every packed buffer and appended view (a mat4/vec4 float is fine at 4; 16 keeps SIMD readers happy). */
const PACK_ALIGNMENT = 16;

/** What `writeCentersGlb` did. */
export interface WrittenCenters {
  readonly glb: Uint8Array;
  /** Primitives that got the attribute now. */
  readonly written: number;
  /** Primitives that already had a sound one, kept. */
  readonly kept: number;
  /** Primitives over the budget: no attribute (see `warnings`). */
  readonly skipped: number;
  readonly warnings: readonly GltfWarning[];
}

type Json = Record<string, any>;

/** The image file types a GLB can carry in a bufferView, by file extension. */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', ktx2: 'image/ktx2', avif: 'image/avif',
};

/**
 * The GLB copy of the file `bytes` (which `model` was loaded from, with the same
 * `options.resolveUri` for its external buffers and images).
 */
export async function writeCentersGlb(bytes: Uint8Array, model: Model, options: ResourceOptions = {}): Promise<WrittenCenters> {
  const glb = parseGltfBytes(bytes);
  const json = structuredClone(glb.json) as Json;
  const warnings: GltfWarning[] = [];
  modelCentersHere(model, (w) => warnings.push(w));

  // 1. Every buffer with bytes packed into one, its views re-pointed.
  const chunks: Uint8Array[] = [];
  let length = 0;
  const append = (data: Uint8Array): number => {
    const at = length;
    chunks.push(data);
    length += data.byteLength;
    const pad = (PACK_ALIGNMENT - (length % PACK_ALIGNMENT)) % PACK_ALIGNMENT;
    if (pad > 0) { chunks.push(new Uint8Array(pad)); length += pad; }
    return at;
  };
  const buffers: Json[] = json.buffers ?? [];
  const newIndex: number[] = [];
  const base: number[] = [];
  const kept: Json[] = [{}];
  for (let i = 0; i < buffers.length; i++) {
    const buffer = buffers[i];
    if (isMeshoptFallbackBuffer(buffer, `buffers[${i}]`)) {
      newIndex.push(kept.length);
      base.push(0);
      kept.push(buffer);
      continue;
    }
    const data = buffer.uri === undefined ? glb.bin ?? new Uint8Array(0) : await readUri(buffer.uri, `buffers[${i}].uri`, options);
    newIndex.push(0);
    base.push(append(data.subarray(0, buffer.byteLength)));
  }
  const repoint = (owner: Json | undefined) => {
    if (!owner || typeof owner.buffer !== 'number') return;
    const from = owner.buffer;
    owner.byteOffset = (owner.byteOffset ?? 0) + base[from];
    owner.buffer = newIndex[from];
  };
  const views: Json[] = json.bufferViews ?? (json.bufferViews = []);
  for (const view of views) {
    repoint(view);
    repoint(view.extensions?.EXT_meshopt_compression);
  }

  // 2. Images in files beside the model, packed too.
  for (const [i, image] of ((json.images ?? []) as Json[]).entries()) {
    if (typeof image.uri !== 'string' || image.uri.startsWith('data:')) continue;
    const data = await readUri(image.uri, `images[${i}].uri`, options);
    const extension = image.uri.split(/[?#]/)[0].split('.').pop()?.toLowerCase() ?? '';
    image.mimeType ??= MIME_BY_EXTENSION[extension] ?? 'application/octet-stream';
    image.bufferView = views.length;
    views.push({ buffer: 0, byteOffset: append(data), byteLength: data.byteLength });
    delete image.uri;
  }

  // 3. The centres, one accessor per distinct primitive data (primitives sharing accessors share it).
  const accessors: Json[] = json.accessors ?? (json.accessors = []);
  const byData = new Map<string, number>();
  let written = 0, keptCount = 0, skipped = 0;
  ((json.meshes ?? []) as Json[]).forEach((mesh, m) => {
    ((mesh.primitives ?? []) as Json[]).forEach((primitive, p) => {
      const prim = model.meshes[m]?.primitives[p];
      if (!prim || prim.influences === 0) return;
      if (prim.centersOfRotation) { keptCount++; return; }
      const centers = centersOf(prim);
      if (centers.source !== 'computed') {
        delete primitive.attributes[CENTER_OF_ROTATION_ATTRIBUTE];
        skipped++;
        return;
      }
      const a = primitive.attributes;
      const key = JSON.stringify([a.POSITION, a.JOINTS_0, a.WEIGHTS_0, a.JOINTS_1, a.WEIGHTS_1, primitive.indices, primitive.mode, primitive.extensions?.KHR_draco_mesh_compression]);
      let accessor = byData.get(key);
      if (accessor === undefined) {
        accessor = accessors.length;
        const data = new Uint8Array(centers.centers.buffer, centers.centers.byteOffset, centers.centers.byteLength);
        views.push({ buffer: 0, byteOffset: append(data.slice()), byteLength: data.byteLength });
        accessors.push({ bufferView: views.length - 1, componentType: ComponentType.FLOAT, count: prim.vertexCount, type: 'VEC3', ...minMax(centers.centers) });
        byData.set(key, accessor);
      }
      a[CENTER_OF_ROTATION_ATTRIBUTE] = accessor;
      written++;
    });
  });

  const bin = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) { bin.set(chunk, at); at += chunk.byteLength; }
  kept[0] = { byteLength: length };
  json.buffers = kept;
  return { glb: encodeGlb(json, bin), written, kept: keptCount, skipped, warnings };
}

function minMax(values: Float32Array): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < values.length; i++) {
    const c = i % 3;
    if (values[i] < min[c]) min[c] = values[i];
    if (values[i] > max[c]) max[c] = values[i];
  }
  return values.length > 0 ? { min, max } : { min: [0, 0, 0], max: [0, 0, 0] };
}

async function readUri(uri: string, path: string, options: ResourceOptions): Promise<Uint8Array> {
  if (uri.startsWith('data:')) return decodeDataUri(uri, path);
  if (!options.resolveUri) throw new Error(`${path}: external resource "${uri}" cannot be read without a base location`);
  return options.resolveUri(decodeURIComponent(uri), uri);
}
