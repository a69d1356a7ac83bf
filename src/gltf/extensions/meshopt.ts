import type { LoadBudget } from '../budget.ts';
import { GltfError } from '../errors.ts';
import { asObject, checkIndex, describe, isObject, optInteger, optString, reqInteger, reqString, type JsonObject } from '../json.ts';

/**
 * Decoding of one meshopt-compressed bufferView (EXT_meshopt_compression and its ratified
 * successor KHR_meshopt_compression) with the `meshoptimizer` package's WebAssembly decoder.
 * Everything the extension JSON says is checked against the spec and the bytes at hand
 * before anything is allocated, so a file that lies gets a GltfError naming the JSON path,
 * never a decoder exception, a hang or an allocation larger than the view it declares.
 */

export const EXT_MESHOPT_COMPRESSION = 'EXT_meshopt_compression';
/** The KHR name adds the v1 attribute bitstream and the COLOR filter; otherwise the same rules. */
export const KHR_MESHOPT_COMPRESSION = 'KHR_meshopt_compression';
export type MeshoptExtensionName = typeof EXT_MESHOPT_COMPRESSION | typeof KHR_MESHOPT_COMPRESSION;

/** Bitstream of a compressed view (spec: "mode"). */
export const MeshoptMode = {
  ATTRIBUTES: 'ATTRIBUTES',
  TRIANGLES: 'TRIANGLES',
  INDICES: 'INDICES',
} as const;
export type MeshoptMode = (typeof MeshoptMode)[keyof typeof MeshoptMode];

/** Transform applied after an ATTRIBUTES decode (spec: "filter"). */
export const MeshoptFilter = {
  NONE: 'NONE',
  OCTAHEDRAL: 'OCTAHEDRAL',
  QUATERNION: 'QUATERNION',
  EXPONENTIAL: 'EXPONENTIAL',
  /** KHR_meshopt_compression only. */
  COLOR: 'COLOR',
} as const;
export type MeshoptFilter = (typeof MeshoptFilter)[keyof typeof MeshoptFilter];

/** Largest ATTRIBUTES element (spec); the decoder's block layout is sized for it. */
export const MESHOPT_MAX_ATTRIBUTE_STRIDE = 256;

/** A compressed view whose every property has been checked; the input of `decodeMeshoptView`. */
export interface MeshoptView {
  readonly extension: MeshoptExtensionName;
  /** JSON path of the extension object, for errors. */
  readonly path: string;
  /** Buffer holding the compressed bytes (not the parent view's, which may be an unfetched fallback). */
  readonly buffer: number;
  readonly byteOffset: number;
  /** Compressed length. */
  readonly byteLength: number;
  readonly byteStride: number;
  readonly count: number;
  readonly mode: MeshoptMode;
  readonly filter: MeshoptFilter;
  /** Decoded length: count × byteStride, equal to the parent view's byteLength. */
  readonly decodedByteLength: number;
}

const MODES: readonly string[] = Object.values(MeshoptMode);
const FILTERS: readonly string[] = Object.values(MeshoptFilter);

/**
 * The meshopt extension on a bufferView, if any: its name and JSON. A view carrying both
 * names breaks the KHR extension's exclusion rule and is refused rather than guessed at.
 */
export function meshoptExtensionOf(
  bufferView: JsonObject, path: string,
): { readonly name: MeshoptExtensionName; readonly json: unknown } | undefined {
  const extensions = bufferView.extensions;
  if (extensions === undefined) return undefined;
  const ext = asObject(extensions, `${path}.extensions`);
  const hasExt = ext[EXT_MESHOPT_COMPRESSION] !== undefined;
  const hasKhr = ext[KHR_MESHOPT_COMPRESSION] !== undefined;
  if (hasExt && hasKhr) {
    throw new GltfError(`${path}.extensions`, `${KHR_MESHOPT_COMPRESSION} must not be used together with ${EXT_MESHOPT_COMPRESSION} on one bufferView`);
  }
  if (hasKhr) return { name: KHR_MESHOPT_COMPRESSION, json: ext[KHR_MESHOPT_COMPRESSION] };
  if (hasExt) return { name: EXT_MESHOPT_COMPRESSION, json: ext[EXT_MESHOPT_COMPRESSION] };
  return undefined;
}

/**
 * Checks a meshopt extension object against every rule of the spec and against the bytes
 * available. `bufferView` is the parent view JSON (its byteLength must be the decoded size),
 * `viewPath` its path (`bufferViews[3]`), and `bufferLengths[i]` the byte length of buffer i
 * as loaded (`undefined` for a buffer that was not fetched, such as a fallback).
 */
export function parseMeshoptView(
  extension: MeshoptExtensionName, json: unknown, bufferView: JsonObject, viewPath: string,
  bufferLengths: readonly (number | undefined)[],
): MeshoptView {
  const path = `${viewPath}.extensions.${extension}`;
  const ext = asObject(json, path);
  const buffer = checkIndex(ext.buffer, `${path}.buffer`, bufferLengths.length, 'buffers');
  const available = bufferLengths[buffer];
  if (available === undefined) {
    throw new GltfError(`${path}.buffer`, `buffers[${buffer}] holds no data (a fallback buffer cannot carry compressed data)`);
  }
  const byteOffset = optInteger(ext, 'byteOffset', path, 0);
  const byteLength = reqInteger(ext, 'byteLength', path);
  if (byteOffset + byteLength > available) {
    throw new GltfError(path, `byteOffset ${byteOffset} + byteLength ${byteLength} exceeds buffers[${buffer}] (${available} bytes)`);
  }
  const byteStride = reqInteger(ext, 'byteStride', path);
  const count = reqInteger(ext, 'count', path);
  if (count < 1) throw new GltfError(`${path}.count`, 'must be at least 1');
  const mode = reqString(ext, 'mode', path);
  if (!MODES.includes(mode)) throw new GltfError(`${path}.mode`, `${describe(mode)} is not one of ${MODES.join(', ')}`);
  const filter = optString(ext, 'filter', path) ?? MeshoptFilter.NONE;
  if (!FILTERS.includes(filter)) throw new GltfError(`${path}.filter`, `${describe(filter)} is not one of ${FILTERS.join(', ')}`);
  if (filter === MeshoptFilter.COLOR && extension !== KHR_MESHOPT_COMPRESSION) {
    throw new GltfError(`${path}.filter`, `COLOR is defined by ${KHR_MESHOPT_COMPRESSION} only`);
  }
  checkStride(mode as MeshoptMode, filter as MeshoptFilter, byteStride, count, path);

  // The decoded bytes replace the parent view's, so their sizes must agree exactly; the
  // parent's byteStride (when given) is how accessors will walk them (EXT spec rule).
  const viewByteLength = reqInteger(bufferView, 'byteLength', viewPath);
  const decodedByteLength = count * byteStride;
  if (decodedByteLength !== viewByteLength) {
    throw new GltfError(path, `count ${count} × byteStride ${byteStride} = ${decodedByteLength} bytes, but ${viewPath}.byteLength is ${viewByteLength}`);
  }
  const viewStride = bufferView.byteStride;
  if (extension === EXT_MESHOPT_COMPRESSION && viewStride !== undefined && viewStride !== byteStride) {
    throw new GltfError(`${path}.byteStride`, `${byteStride} differs from ${viewPath}.byteStride ${describe(viewStride)}`);
  }

  // Every bitstream has a least size per element, so a count far beyond what the compressed
  // bytes can describe is refused here, before the decoder would reserve room for it.
  const least = leastEncodedBytes(mode as MeshoptMode, count, byteStride);
  if (byteLength < least) {
    throw new GltfError(path, `byteLength ${byteLength} is too short for ${count} ${mode === MeshoptMode.ATTRIBUTES ? 'elements' : 'indices'} (a ${mode} stream of that count needs at least ${least} bytes)`);
  }
  return {
    extension, path, buffer, byteOffset, byteLength, byteStride, count, mode: mode as MeshoptMode,
    filter: filter as MeshoptFilter, decodedByteLength,
  };
}

/** The spec's stride rules per mode and filter. */
function checkStride(mode: MeshoptMode, filter: MeshoptFilter, byteStride: number, count: number, path: string): void {
  const at = `${path}.byteStride`;
  if (mode === MeshoptMode.ATTRIBUTES) {
    if (byteStride < 4 || byteStride > MESHOPT_MAX_ATTRIBUTE_STRIDE || byteStride % 4 !== 0) {
      throw new GltfError(at, `${byteStride} must be a multiple of 4 from 4 to ${MESHOPT_MAX_ATTRIBUTE_STRIDE} in ATTRIBUTES mode`);
    }
  } else {
    if (byteStride !== 2 && byteStride !== 4) throw new GltfError(at, `${byteStride} must be 2 or 4 in ${mode} mode`);
    if (filter !== MeshoptFilter.NONE) throw new GltfError(`${path}.filter`, `must be NONE in ${mode} mode, not ${filter}`);
    if (mode === MeshoptMode.TRIANGLES && count % 3 !== 0) {
      throw new GltfError(`${path}.count`, `${count} is not a multiple of 3 (TRIANGLES mode stores whole triangles)`);
    }
  }
  switch (filter) {
    case MeshoptFilter.OCTAHEDRAL:
    case MeshoptFilter.COLOR:
      if (byteStride !== 4 && byteStride !== 8) throw new GltfError(at, `${byteStride} must be 4 or 8 with the ${filter} filter`);
      break;
    case MeshoptFilter.QUATERNION:
      if (byteStride !== 8) throw new GltfError(at, `${byteStride} must be 8 with the QUATERNION filter`);
      break;
    default:
      // EXPONENTIAL needs a multiple of 4, which ATTRIBUTES already requires.
      break;
  }
}

/** Elements per ATTRIBUTES block (spec Appendix A). */
function maxBlockElements(byteStride: number): number {
  return Math.min(Math.floor(8192 / byteStride) & ~15, 256);
}

/**
 * A lower bound on the compressed size of `count` elements (spec Appendix A): a header byte
 * and a tail in every mode; per ATTRIBUTES block at least the v1 control bytes (v0 stores
 * more), per triangle one code byte, per index at least one varint byte.
 */
export function leastEncodedBytes(mode: MeshoptMode, count: number, byteStride: number): number {
  switch (mode) {
    case MeshoptMode.ATTRIBUTES: {
      const blocks = Math.ceil(count / maxBlockElements(byteStride));
      // Tail: v0 pads the baseline element to 32 bytes, v1 pads baseline + channel modes to 24.
      return 1 + blocks * (byteStride / 4) + Math.max(byteStride, 24);
    }
    case MeshoptMode.TRIANGLES:
      return 1 + count / 3 + 16;
    default:
      return 1 + count + 4;
  }
}

/** The part of meshoptimizer's decoder used here (its `decodeGltfBuffer` covers all three modes). */
interface MeshoptDecoderApi {
  readonly supported: boolean;
  readonly ready: Promise<void>;
  decodeGltfBuffer(target: Uint8Array, count: number, size: number, source: Uint8Array, mode: string, filter?: string): void;
}

let decoderPromise: Promise<MeshoptDecoderApi> | undefined;

/**
 * The meshopt decoder, imported and compiled on first use only (a file without the extension
 * never loads it), then shared by every load in the process or page. Its WebAssembly is
 * embedded in the package's JavaScript, so no separate file is fetched.
 */
export function loadMeshoptDecoder(): Promise<MeshoptDecoderApi> {
  decoderPromise ??= import('meshoptimizer/decoder').then(async ({ MeshoptDecoder }) => {
    if (!MeshoptDecoder.supported) throw new Error('this JavaScript runtime has no WebAssembly');
    await MeshoptDecoder.ready;
    return MeshoptDecoder;
  });
  // A failed import or compile may succeed later (a flaky network fetching the chunk).
  decoderPromise.catch(() => { decoderPromise = undefined; });
  return decoderPromise;
}

/**
 * Decodes a checked view into exactly `view.decodedByteLength` bytes: into `out` when given
 * (it must be that long; nothing is charged, the caller owns it), else into a new array charged
 * to `budget` first. `source` is the whole buffer `view.buffer`. A stream the decoder rejects
 * (bit flips, truncation, trailing bytes) becomes a GltfError naming `view.path`.
 */
export async function decodeMeshoptView(
  view: MeshoptView, source: Uint8Array, budget: LoadBudget, out?: Uint8Array,
): Promise<Uint8Array> {
  if (out && out.byteLength !== view.decodedByteLength) {
    throw new RangeError(`output has ${out.byteLength} bytes, the view decodes to ${view.decodedByteLength}`);
  }
  if (view.byteOffset + view.byteLength > source.byteLength) {
    throw new GltfError(view.path, `byteOffset ${view.byteOffset} + byteLength ${view.byteLength} exceeds buffers[${view.buffer}] (${source.byteLength} bytes)`);
  }
  let decoder: MeshoptDecoderApi;
  try {
    decoder = await loadMeshoptDecoder();
  } catch (e) {
    throw new GltfError(view.path, `the meshopt decoder could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!out) {
    budget.charge(view.decodedByteLength, view.path);
    out = new Uint8Array(view.decodedByteLength);
  }
  const compressed = source.subarray(view.byteOffset, view.byteOffset + view.byteLength);
  try {
    // The decoder rounds count up to a multiple of 4 inside its own heap and copies exactly
    // count × byteStride bytes out, so `out` is never written past its end.
    decoder.decodeGltfBuffer(out, view.count, view.byteStride, compressed, view.mode, view.filter === MeshoptFilter.NONE ? undefined : view.filter);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new GltfError(view.path, `the ${view.mode} data cannot be decoded (${reason}); the file is damaged`);
  }
  return out;
}

/**
 * Parses and decodes in one step: the meshopt extension of `bufferView` (at `viewPath`),
 * with `buffers[i]` the loaded buffers (`undefined` where a buffer was not fetched).
 */
export async function decodeMeshoptBufferView(
  bufferView: unknown, viewPath: string, buffers: readonly (Uint8Array | undefined)[], budget: LoadBudget,
): Promise<Uint8Array | undefined> {
  if (!isObject(bufferView)) throw new GltfError(viewPath, `expected an object, got ${describe(bufferView)}`);
  const found = meshoptExtensionOf(bufferView, viewPath);
  if (!found) return undefined;
  const view = parseMeshoptView(found.name, found.json, bufferView, viewPath, buffers.map((b) => b?.byteLength));
  return decodeMeshoptView(view, buffers[view.buffer]!, budget);
}

/**
 * Whether `buffers[i]` (its JSON) is a meshopt fallback buffer: one that holds only the
 * uncompressed copy of compressed views (`extensions.EXT_meshopt_compression.fallback`, or
 * the KHR name). The loader decodes the extension, so such a buffer is never fetched and
 * may have no `uri` at all (the spec lets a file that requires the extension omit it).
 */
export function isMeshoptFallbackBuffer(buffer: JsonObject, path: string): boolean {
  const extensions = buffer.extensions;
  if (extensions === undefined) return false;
  const ext = asObject(extensions, `${path}.extensions`);
  for (const name of [EXT_MESHOPT_COMPRESSION, KHR_MESHOPT_COMPRESSION]) {
    if (ext[name] === undefined) continue;
    const fallback = asObject(ext[name], `${path}.extensions.${name}`).fallback;
    if (fallback !== undefined && typeof fallback !== 'boolean') {
      throw new GltfError(`${path}.extensions.${name}.fallback`, `expected a boolean, got ${describe(fallback)}`);
    }
    if (fallback === true) return true;
  }
  return false;
}

/**
 * Decodes every meshopt-compressed bufferView of a file (before any accessor reads one),
 * returning the decoded bytes by view index. `buffers[i]` is undefined for a buffer that
 * was not fetched (a fallback). Each view's decoded bytes are charged to `budget` first,
 * so a file whose views claim far more than its size is refused by the budget.
 */
export async function decodeMeshoptViews(
  bufferViews: readonly unknown[], buffers: readonly (Uint8Array | undefined)[], budget: LoadBudget,
): Promise<Map<number, Uint8Array>> {
  const decoded = new Map<number, Uint8Array>();
  const lengths = buffers.map((b) => b?.byteLength);
  for (let i = 0; i < bufferViews.length; i++) {
    const viewPath = `bufferViews[${i}]`;
    const bufferView = asObject(bufferViews[i], viewPath);
    const found = meshoptExtensionOf(bufferView, viewPath);
    if (!found) continue;
    const view = parseMeshoptView(found.name, found.json, bufferView, viewPath, lengths);
    decoded.set(i, await decodeMeshoptView(view, buffers[view.buffer]!, budget));
  }
  return decoded;
}
