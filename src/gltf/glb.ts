import { GLB_CHUNK_BIN, GLB_CHUNK_JSON, GLB_MAGIC } from './constants.ts';
import { GltfError } from './errors.ts';

export interface GlbContents {
  /** The JSON chunk, parsed. */
  readonly json: unknown;
  /** The BIN chunk, if present (a view into the input, not a copy). */
  readonly bin: Uint8Array | undefined;
}

const HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;

export function isGlb(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= 4 &&
    bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46
  );
}

/** Splits a GLB container into its JSON and optional BIN chunk (glTF 2.0 §4.4). */
export function parseGlb(bytes: Uint8Array): GlbContents {
  if (bytes.byteLength < HEADER_BYTES) {
    throw new GltfError('glb', `file is ${bytes.byteLength} bytes, shorter than the 12-byte GLB header`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC) throw new GltfError('glb', 'missing "glTF" magic');
  const version = view.getUint32(4, true);
  if (version !== 2) throw new GltfError('glb.version', `GLB version ${version} is not supported (only 2)`);
  const declaredLength = view.getUint32(8, true);
  if (declaredLength > bytes.byteLength) {
    throw new GltfError('glb.length', `header says ${declaredLength} bytes but the file has ${bytes.byteLength} (truncated?)`);
  }
  if (declaredLength < HEADER_BYTES + CHUNK_HEADER_BYTES) {
    throw new GltfError('glb.length', `header length ${declaredLength} leaves no room for a JSON chunk`);
  }

  let json: unknown;
  let bin: Uint8Array | undefined;
  let offset = HEADER_BYTES;
  let chunkIndex = 0;
  while (offset + CHUNK_HEADER_BYTES <= declaredLength) {
    const chunkLength = view.getUint32(offset, true);
    const chunkType = view.getUint32(offset + 4, true);
    const start = offset + CHUNK_HEADER_BYTES;
    if (chunkLength > declaredLength - start) {
      throw new GltfError(`glb.chunks[${chunkIndex}]`, `chunk length ${chunkLength} runs past the end of the file`);
    }
    const data = bytes.subarray(start, start + chunkLength);
    if (chunkIndex === 0) {
      if (chunkType !== GLB_CHUNK_JSON) throw new GltfError('glb.chunks[0]', 'first chunk is not JSON');
      json = parseJsonBytes(data, 'glb.chunks[0]');
    } else if (chunkType === GLB_CHUNK_BIN) {
      if (chunkIndex !== 1) throw new GltfError(`glb.chunks[${chunkIndex}]`, 'BIN chunk must be the second chunk');
      bin = data;
    } // Unknown chunk types must be ignored (spec §4.4.3.3).
    // Chunks are 4-byte aligned; the padding is not part of chunkLength. Arithmetic, not
    // `& ~3`, which would turn lengths of 2 GiB and more negative and loop back.
    offset = start + chunkLength + ((4 - (chunkLength % 4)) % 4);
    chunkIndex++;
  }
  if (json === undefined) throw new GltfError('glb.chunks[0]', 'no JSON chunk');
  return { json, bin };
}

export function parseJsonBytes(bytes: Uint8Array, path: string): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GltfError(path, 'JSON is not valid UTF-8');
  }
  // A BOM is not allowed by the spec but is common; tolerate it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new GltfError(path, `invalid JSON (${(e as Error).message})`);
  }
}
