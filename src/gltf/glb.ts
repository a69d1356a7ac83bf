import { GLB_CHUNK_BIN, GLB_CHUNK_JSON, GLB_MAGIC } from './constants.ts';
import { GltfError, NotGltfError } from './errors.ts';

export interface GlbContents {
  /** The JSON chunk, parsed. */
  readonly json: unknown;
  /** The BIN chunk, if present (a view into the input, not a copy). */
  readonly bin: Uint8Array | undefined;
}

const HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
/** "glTF", the GLB magic, as the bytes a file starts with. */
const MAGIC_BYTES = [0x67, 0x6c, 0x54, 0x46];
/** The byte glTF JSON starts with (after a BOM and whitespace): its root is an object. */
const JSON_OBJECT_START = 0x7b; // '{'
const UTF8_BOM = [0xef, 0xbb, 0xbf];
/** JSON's insignificant whitespace (RFC 8259 §2): space, tab, LF, CR. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** How many of the first bytes a "not glTF" message quotes (as text when printable, else as hex). */
const PREVIEW_TEXT_BYTES = 24;
const PREVIEW_HEX_BYTES = 8;
/**
 * What bytes often handed to a glTF loader by mistake start with, and what they then are: the
 * texture instead of the model, a compressed response the server did not decode, an archive.
 */
const KNOWN_SIGNATURES: readonly { readonly bytes: readonly number[]; readonly what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x1f, 0x8b], what: 'gzip-compressed data' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a ZIP archive' },
];

export function isGlb(bytes: Uint8Array): boolean {
  return startsWith(bytes, MAGIC_BYTES);
}

/**
 * A .glb's or .gltf's bytes as JSON and optional BIN chunk: the one place that tells a GLB (the
 * "glTF" magic) from glTF JSON (an object, `{` first). Bytes that are neither are refused as
 * such (NotGltfError), saying what they start with, rather than as "invalid JSON".
 */
export function parseGltfBytes(bytes: Uint8Array): GlbContents {
  if (bytes.byteLength === 0) throw new NotGltfError('', 'the file is empty (0 bytes), neither a GLB nor glTF JSON');
  // Fewer than 4 bytes that begin the magic: a GLB cut short, which parseGlb says as such.
  if (startsWith(bytes, MAGIC_BYTES.slice(0, Math.min(bytes.byteLength, MAGIC_BYTES.length)))) return parseGlb(bytes);
  let first = startsWith(bytes, UTF8_BOM) ? UTF8_BOM.length : 0;
  while (first < bytes.byteLength && JSON_WHITESPACE.has(bytes[first])) first++;
  if (bytes[first] === JSON_OBJECT_START) return { json: parseJsonBytes(bytes, ''), bin: undefined };
  throw new NotGltfError('', `not a glTF file: neither a GLB (no "glTF" magic) nor glTF JSON (no "{" first); ${describeStart(bytes)}`);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.byteLength < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** What the first bytes are: quoted when printable ASCII, else in hex; named when markup or a known signature. */
function describeStart(bytes: Uint8Array): string {
  const head = bytes.subarray(0, PREVIEW_TEXT_BYTES);
  if (head.every((b) => (b >= 0x20 && b < 0x7f) || JSON_WHITESPACE.has(b))) {
    const text = String.fromCharCode(...head).replace(/\s+/g, ' ').trimStart();
    const quoted = `it begins ${JSON.stringify(text)}${bytes.byteLength > head.byteLength ? '…' : ''}`;
    return text.startsWith('<') ? `${quoted} (markup: an HTML page, such as a server's error page?)` : quoted;
  }
  const hex = Array.from(bytes.subarray(0, PREVIEW_HEX_BYTES), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
  const known = KNOWN_SIGNATURES.find((s) => startsWith(bytes, s.bytes));
  return `it begins with the bytes ${hex}${known ? ` (${known.what})` : ''}`;
}

/** Splits a GLB container into its JSON and optional BIN chunk (glTF 2.0 §4.4). */
export function parseGlb(bytes: Uint8Array): GlbContents {
  if (bytes.byteLength < HEADER_BYTES) {
    throw new NotGltfError('glb', `file is ${bytes.byteLength} bytes, shorter than the 12-byte GLB header (a truncated GLB?)`);
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
