import type { AccessorSource } from './accessors.ts';
import { LoadBudget } from './budget.ts';
import { GltfError } from './errors.ts';
import { decodeMeshoptViews, isMeshoptFallbackBuffer } from './extensions/meshopt.ts';
import { asObject, checkIndex, describe, optArray, optIndex, optInteger, optString, reqInteger, type JsonObject } from './json.ts';
import type { Image } from './model.ts';

/** What the resource IO needs of `LoadOptions` (load.ts). */
export interface ResourceOptions {
  /**
   * Fetches an external resource named by a relative `uri` of a buffer or image, resolved
   * against the asset's location by the caller. `uri` is percent-decoded (a file path);
   * `rawUri` is the URI as written in the file (for URL resolution: see `resolveGltfUri`
   * in uri.ts). Without it, external URIs are an error.
   */
  readonly resolveUri?: (uri: string, rawUri: string) => Promise<Uint8Array>;
  /**
   * Most bytes the load may allocate; the default is 16 MiB plus 64 bytes per byte of
   * file and external buffers (see budget.ts).
   */
  readonly maxBytes?: number;
}

/**
 * Every buffer's bytes (the GLB BIN chunk, data URIs, external files), with the load's
 * budget sized by the file and the external buffers it pulled in, and every
 * meshopt-compressed bufferView decoded (extensions/meshopt.ts). A meshopt fallback buffer
 * is not fetched: it stands as an empty array, so only compressed views may point into it.
 */
export async function loadBuffers(
  root: JsonObject, fileBytes: number, glbBin: Uint8Array | undefined, options: ResourceOptions,
): Promise<AccessorSource> {
  const list = optArray(root, 'buffers', '');
  const buffers: Uint8Array[] = [];
  const fetched: (Uint8Array | undefined)[] = [];
  let externalBytes = 0;
  for (let i = 0; i < list.length; i++) {
    const path = `buffers[${i}]`;
    const buf = asObject(list[i], path);
    const byteLength = reqInteger(buf, 'byteLength', path);
    const uri = optString(buf, 'uri', path);
    let bytes: Uint8Array;
    if (isMeshoptFallbackBuffer(buf, path)) {
      buffers.push(new Uint8Array(0));
      fetched.push(undefined);
      continue;
    }
    if (uri === undefined) {
      if (i !== 0 || !glbBin) throw new GltfError(`${path}.uri`, 'is missing and there is no GLB BIN chunk for it');
      bytes = glbBin;
    } else {
      bytes = await fetchUri(uri, `${path}.uri`, options);
      if (!uri.startsWith('data:')) externalBytes += bytes.byteLength;
    }
    if (bytes.byteLength < byteLength) {
      throw new GltfError(`${path}.byteLength`, `says ${byteLength} bytes but only ${bytes.byteLength} are available`);
    }
    buffers.push(bytes.subarray(0, byteLength));
    fetched.push(buffers[i]);
  }
  const bufferViews = optArray(root, 'bufferViews', '');
  const budget = LoadBudget.forInput(fileBytes + externalBytes, options.maxBytes);
  return {
    accessors: optArray(root, 'accessors', ''),
    bufferViews,
    buffers,
    budget,
    decodedViews: await decodeMeshoptViews(bufferViews, fetched, budget),
  };
}

/** Every image's encoded bytes, from its bufferView or its URI (not decoded here). */
export async function loadImages(root: JsonObject, src: AccessorSource, options: ResourceOptions): Promise<Image[]> {
  const list = optArray(root, 'images', '');
  const out: Image[] = [];
  for (let i = 0; i < list.length; i++) {
    const path = `images[${i}]`;
    const img = asObject(list[i], path);
    const mimeType = optString(img, 'mimeType', path);
    const uri = optString(img, 'uri', path);
    let bytes: Uint8Array;
    const viewIndex = optIndex(img, 'bufferView', path, src.bufferViews.length, 'bufferViews');
    if (viewIndex >= 0) {
      const vpath = `bufferViews[${viewIndex}]`;
      const view = asObject(src.bufferViews[viewIndex], vpath);
      const decoded = src.decodedViews?.get(viewIndex);
      if (decoded) {
        out.push({ name: optString(img, 'name', path), mimeType, bytes: decoded });
        continue;
      }
      const buffer = src.buffers[checkIndex(view.buffer, `${vpath}.buffer`, src.buffers.length, 'buffers')];
      const offset = optInteger(view, 'byteOffset', vpath, 0);
      const length = reqInteger(view, 'byteLength', vpath);
      if (offset + length > buffer.byteLength) throw new GltfError(vpath, `runs past the end of its buffer (referenced from ${path})`);
      bytes = buffer.subarray(offset, offset + length);
    } else if (uri !== undefined) {
      bytes = await fetchUri(uri, `${path}.uri`, options);
    } else {
      throw new GltfError(path, 'has neither uri nor bufferView');
    }
    out.push({ name: optString(img, 'name', path), mimeType, bytes });
  }
  return out;
}

async function fetchUri(uri: string, path: string, options: ResourceOptions): Promise<Uint8Array> {
  if (uri.startsWith('data:')) return decodeDataUri(uri, path);
  if (!options.resolveUri) throw new GltfError(path, `external resource ${describe(uri)} cannot be loaded without a base location`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    throw new GltfError(path, `${describe(uri)} is not a valid URI (bad percent-encoding)`);
  }
  let bytes: unknown;
  try {
    bytes = await options.resolveUri(decoded, uri);
  } catch (e) {
    const reason = e instanceof GltfError ? e.problem : e instanceof Error ? e.message : String(e);
    throw new GltfError(path, `could not load ${describe(uri)}: ${reason}`);
  }
  if (!(bytes instanceof Uint8Array)) throw new GltfError(path, `could not load ${describe(uri)}: the resolver returned ${describe(bytes)}, not bytes`);
  return bytes;
}

export function decodeDataUri(uri: string, path: string): Uint8Array {
  const comma = uri.indexOf(',');
  if (comma < 0) throw new GltfError(path, 'data URI has no comma');
  const header = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  if (!header.endsWith(';base64')) {
    try {
      return new TextEncoder().encode(decodeURIComponent(payload));
    } catch {
      throw new GltfError(path, 'data URI has bad percent-encoding');
    }
  }
  let binary: string;
  try {
    binary = atob(payload);
  } catch {
    throw new GltfError(path, 'data URI is not valid base64');
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
