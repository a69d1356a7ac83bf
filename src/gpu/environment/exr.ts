/**
 * OpenEXR (`.exr`) environments, decoded by three.js's EXRLoader from the `three` package
 * (scanline and tiled files, uncompressed, RLE, ZIP(S), PIZ, PXR24, B44(A) and DWA(A/B), half
 * or float channels). It is imported on first use, so pages that never show an `.exr` do not
 * load it; the library build gives the loader only the few parts of three.js it imports
 * (vite.config.ts, `exrLoaderAlone`), not three.js itself.
 *
 * Before the decoder sees the bytes, the header is read here far enough to check the magic
 * number and the data window against the environment size limit: the decoder allocates the
 * whole image from the header's numbers, and a hostile header must not make it allocate
 * gigabytes. Decoder errors come back as EnvironmentError naming the file type.
 */
import { checkEnvironmentSize, EnvironmentError, type EquirectImage } from './equirect.ts';

/** 20000630 little-endian: the first four bytes of every OpenEXR file. */
const EXR_MAGIC = [0x76, 0x2f, 0x31, 0x01];
/** three.js's FloatType: the loader's output is float RGBA (its default RGBAFormat; a Y-only file is spread to RGB). */
const FLOAT_TYPE = 1015;
const RGBA = 4;
/** Header attributes beyond this many bytes are not a sane OpenEXR header. */
const MAX_HEADER_BYTES = 1 << 20;

interface DecodedExr {
  readonly width: number;
  readonly height: number;
  readonly data: ArrayLike<number>;
}
let decoder: Promise<(buffer: ArrayBuffer) => DecodedExr> | undefined;

function loadDecoder(): Promise<(buffer: ArrayBuffer) => DecodedExr> {
  decoder ??= import('three/examples/jsm/loaders/EXRLoader.js').then(({ EXRLoader }) => {
    const loader = new EXRLoader();
    loader.setDataType(FLOAT_TYPE);
    return (buffer) => loader.parse(buffer) as DecodedExr;
  });
  return decoder;
}

function fail(message: string): never {
  throw new EnvironmentError(`.exr: ${message}`);
}

/** Whether `bytes` start with the OpenEXR magic number. */
export function isOpenExr(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && EXR_MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * The data window's size from the header (magic, version, then `name\0 type\0 size value`
 * attributes up to an empty name). Throws EnvironmentError when the header is cut short,
 * has no data window, or is multi-part or deep (which the decoder does not read).
 */
export function exrSize(bytes: Uint8Array): { width: number; height: number } {
  if (!isOpenExr(bytes)) fail('does not start with the OpenEXR magic number (not an OpenEXR file)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8) fail('the file ends inside its version field');
  const flags = view.getUint32(4, true) >>> 8;
  // Bit 11 (multi-part) and 12 (deep data) of the version field.
  if (flags & 0x18) fail('multi-part and deep-data files are not supported');
  let pos = 8;
  const end = Math.min(bytes.length, MAX_HEADER_BYTES);
  const readString = (): string => {
    const start = pos;
    while (pos < end && bytes[pos] !== 0) pos++;
    if (pos >= end) fail('the header is cut short or longer than 1 MiB');
    return String.fromCharCode(...bytes.subarray(start, pos++));
  };
  for (;;) {
    const name = readString();
    if (name === '') break;
    const type = readString();
    if (pos + 4 > end) fail(`the header is cut short in attribute "${name}"`);
    const size = view.getInt32(pos, true);
    pos += 4;
    if (size < 0 || pos + size > end) fail(`attribute "${name}" claims ${size} bytes, past the header's end`);
    if (name === 'dataWindow') {
      if (type !== 'box2i' || size !== 16) fail(`dataWindow is ${type} of ${size} bytes, not box2i of 16`);
      const xMin = view.getInt32(pos, true), yMin = view.getInt32(pos + 4, true);
      const xMax = view.getInt32(pos + 8, true), yMax = view.getInt32(pos + 12, true);
      const width = xMax - xMin + 1, height = yMax - yMin + 1;
      checkEnvironmentSize(width, height, '.exr');
      return { width, height };
    }
    pos += size;
  }
  fail('the header has no dataWindow');
}

/** Decodes an OpenEXR file into linear RGB floats, top row first. Throws EnvironmentError naming what is wrong. */
export async function parseExrEnvironment(bytes: Uint8Array): Promise<EquirectImage> {
  const { width, height } = exrSize(bytes);
  const parse = await loadDecoder();
  // The decoder reads an ArrayBuffer from its start: hand it exactly the file's bytes.
  const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer as ArrayBuffer
    : bytes.slice().buffer;
  let decoded: DecodedExr;
  try {
    decoded = parse(buffer);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (decoded.width !== width || decoded.height !== height) fail(`decoded ${decoded.width} × ${decoded.height}, the header says ${width} × ${height}`);
  if (!(decoded.data instanceof Float32Array)) fail('the decoder did not return float pixels');
  // RGBA, alpha ignored.
  if (decoded.data.length < width * height * RGBA) fail('the decoder returned fewer pixels than the data window holds');
  const rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    // three.js writes the bottom row first.
    const from = (height - 1 - y) * width;
    for (let x = 0; x < width; x++) {
      const s = (from + x) * RGBA, d = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const v = decoded.data[s + c];
        // Negative, NaN and infinite radiance would poison every prefiltered texel.
        rgb[d + c] = v > 0 && v < Infinity ? v : 0;
      }
    }
  }
  return { width, height, rgb };
}
