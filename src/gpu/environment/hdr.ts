/**
 * Radiance RGBE (`.hdr`) files: the header, then scanlines flat (4 bytes a pixel) or in the
 * "new" run-length encoding (per scanline 2, 2, width; then each of the four channels as
 * runs: a count byte above 128 repeats the next byte count − 128 times, else that many
 * literal bytes follow). Greg Ward's format description, "Real Pixels" (Graphics Gems II).
 * Only the standard orientation `-Y height +X width` and `+Y height +X width` are read.
 */
import { checkEnvironmentSize, EnvironmentError, type EquirectImage } from './equirect.ts';

/** Header text beyond this many bytes is not a Radiance header. */
const MAX_HEADER_BYTES = 64 * 1024;
/** Scanlines of widths in [8, 0x7fff] may be run-length encoded; others are always flat. */
const RLE_MIN_WIDTH = 8;
const RLE_MAX_WIDTH = 0x7fff;

/** 2^(e − 136) by shared exponent byte (Radiance's scale for mantissas 0…255). */
const EXPONENT_SCALE = Float32Array.from({ length: 256 }, (_, e) => 2 ** (e - 136));

function fail(message: string): never {
  throw new EnvironmentError(`.hdr: ${message}`);
}

/** Whether `bytes` start like a Radiance file ("#?"). */
export function isRadianceHdr(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x23 && bytes[1] === 0x3f;
}

/** Decodes a Radiance `.hdr` file into linear RGB floats. Throws EnvironmentError naming what is wrong. */
export function parseHdr(bytes: Uint8Array): EquirectImage {
  if (!isRadianceHdr(bytes)) fail('does not start with "#?" (not a Radiance file)');
  let pos = 0;
  const readLine = (): string => {
    const start = pos;
    while (pos < bytes.length && bytes[pos] !== 0x0a) {
      if (pos - start > MAX_HEADER_BYTES || pos > MAX_HEADER_BYTES) fail(`header longer than ${MAX_HEADER_BYTES} bytes`);
      pos++;
    }
    if (pos >= bytes.length) fail('the header ends before the resolution line');
    const line = String.fromCharCode(...bytes.subarray(start, pos));
    pos++;
    return line;
  };
  let format: string | undefined;
  readLine();
  for (;;) {
    const line = readLine();
    if (line.trim() === '') break;
    if (line.startsWith('FORMAT=')) format = line.slice(7).trim();
  }
  if (format !== undefined && format !== '32-bit_rle_rgbe') fail(`FORMAT=${format} is not supported (only 32-bit_rle_rgbe)`);
  const resolution = readLine().trim();
  const m = /^([-+])Y\s+(\d+)\s+\+X\s+(\d+)$/.exec(resolution);
  if (!m) fail(`resolution line "${resolution.slice(0, 40)}" is not "-Y height +X width" or "+Y height +X width"`);
  const height = Number(m[2]), width = Number(m[3]);
  checkEnvironmentSize(width, height, '.hdr');
  const bottomUp = m[1] === '+';
  const rgb = new Float32Array(width * height * 3);
  const scan = new Uint8Array(width * 4);
  for (let y = 0; y < height; y++) {
    pos = readScanline(bytes, pos, width, scan, y);
    const row = bottomUp ? height - 1 - y : y;
    let o = row * width * 3;
    for (let x = 0; x < width; x++, o += 3) {
      const e = scan[x * 4 + 3];
      if (e === 0) continue;
      // Radiance's colr_color: (mantissa + 0.5) · 2^(e − 136).
      const f = EXPONENT_SCALE[e];
      rgb[o] = (scan[x * 4] + 0.5) * f;
      rgb[o + 1] = (scan[x * 4 + 1] + 0.5) * f;
      rgb[o + 2] = (scan[x * 4 + 2] + 0.5) * f;
    }
  }
  return { width, height, rgb };
}

/** Reads scanline `y` at `pos` into `out` (RGBE interleaved); returns the position after it. */
function readScanline(bytes: Uint8Array, pos: number, width: number, out: Uint8Array, y: number): number {
  const rle = width >= RLE_MIN_WIDTH && width <= RLE_MAX_WIDTH && pos + 4 <= bytes.length
    && bytes[pos] === 2 && bytes[pos + 1] === 2 && (bytes[pos + 2] & 0x80) === 0;
  if (!rle) {
    if (pos + width * 4 > bytes.length) fail(`scanline ${y}: the file ends inside it (flat, ${width * 4} bytes needed)`);
    out.set(bytes.subarray(pos, pos + width * 4));
    return pos + width * 4;
  }
  const declared = (bytes[pos + 2] << 8) | bytes[pos + 3];
  if (declared !== width) fail(`scanline ${y}: run-length header says width ${declared}, the image is ${width} wide`);
  pos += 4;
  for (let c = 0; c < 4; c++) {
    let x = 0;
    while (x < width) {
      if (pos >= bytes.length) fail(`scanline ${y}: the file ends inside channel ${c}`);
      let count = bytes[pos++];
      if (count > 128) {
        count -= 128;
        if (count > width - x) fail(`scanline ${y}: a run of ${count} overruns channel ${c} at x ${x} (width ${width})`);
        if (pos >= bytes.length) fail(`scanline ${y}: the file ends inside channel ${c}`);
        const value = bytes[pos++];
        for (let k = 0; k < count; k++, x++) out[x * 4 + c] = value;
      } else {
        if (count === 0) fail(`scanline ${y}: a zero-length run in channel ${c} at x ${x}`);
        if (count > width - x) fail(`scanline ${y}: ${count} literal bytes overrun channel ${c} at x ${x} (width ${width})`);
        if (pos + count > bytes.length) fail(`scanline ${y}: the file ends inside channel ${c}`);
        for (let k = 0; k < count; k++, x++) out[x * 4 + c] = bytes[pos++];
      }
    }
  }
  return pos;
}

/** Encodes one linear RGB value as RGBE (the inverse of the decoding above, to within one mantissa step). */
export function encodeRgbe(r: number, g: number, b: number, out: Uint8Array, at: number): void {
  const v = Math.max(r, g, b);
  if (!(v > 1e-32)) {
    out[at] = out[at + 1] = out[at + 2] = out[at + 3] = 0;
    return;
  }
  const e = Math.ceil(Math.log2(v + 1e-38) + 1e-9);
  // Mantissas in [0, 255]: v / 2^e < 1.
  let exp = e;
  if (v / 2 ** exp >= 1) exp++;
  const scale = 256 / 2 ** exp;
  out[at] = Math.min(255, Math.floor(r * scale));
  out[at + 1] = Math.min(255, Math.floor(g * scale));
  out[at + 2] = Math.min(255, Math.floor(b * scale));
  out[at + 3] = exp + 128;
}

/**
 * A Radiance file of `image`, scanlines run-length encoded (`rle`, default) or flat. Used by
 * the tests and the bench to make files; our own reader reads them.
 */
export function writeHdr(image: EquirectImage, rle = true): Uint8Array {
  const { width, height } = image;
  const header = new TextEncoder().encode(`#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y ${height} +X ${width}\n`);
  const useRle = rle && width >= RLE_MIN_WIDTH && width <= RLE_MAX_WIDTH;
  const chunks: Uint8Array[] = [header];
  const scan = new Uint8Array(width * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      encodeRgbe(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2], scan, x * 4);
    }
    if (!useRle) {
      chunks.push(scan.slice());
      continue;
    }
    const out: number[] = [2, 2, width >> 8, width & 0xff];
    for (let c = 0; c < 4; c++) {
      let x = 0;
      while (x < width) {
        let run = 1;
        while (x + run < width && run < 127 && scan[(x + run) * 4 + c] === scan[x * 4 + c]) run++;
        if (run >= 3) {
          out.push(128 + run, scan[x * 4 + c]);
          x += run;
          continue;
        }
        let lit = 0;
        while (x + lit < width && lit < 128) {
          const v = scan[(x + lit) * 4 + c];
          if (x + lit + 2 < width && scan[(x + lit + 1) * 4 + c] === v && scan[(x + lit + 2) * 4 + c] === v) break;
          lit++;
        }
        if (lit === 0) lit = 1;
        out.push(lit);
        for (let k = 0; k < lit; k++) out.push(scan[(x + k) * 4 + c]);
        x += lit;
      }
    }
    chunks.push(Uint8Array.from(out));
  }
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}
