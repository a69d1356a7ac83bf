/**
 * An equirectangular environment image in linear light: what every environment source
 * (a Radiance .hdr, an sRGB image, the generated `neutral` studio) produces and the GPU
 * prefilter (prefilter.ts) consumes.
 *
 * Orientation: row 0 is straight up (+Y), the last row straight down; column u (0…1)
 * is the azimuth φ = 2π(u − 0.5) measured from −Z towards +X, so the image's centre
 * column faces −Z, the direction a default camera looks. Direction of (u, v):
 * (sin φ sin θ, cos θ, −cos φ sin θ) with θ = π v.
 */

/** Linear-light RGB, three floats per pixel, rows top (up) first. */
export interface EquirectImage {
  readonly width: number;
  readonly height: number;
  readonly rgb: Float32Array;
}

/** An environment file or image that cannot be used; the message names what is wrong. */
export class EnvironmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvironmentError';
  }
}

/** Largest width or height accepted from a file: beyond it an allocation is refused. */
export const MAX_ENVIRONMENT_DIMENSION = 16384;
/** Largest pixel count accepted from a file (8192 × 4096; 384 MiB of float RGB). */
export const MAX_ENVIRONMENT_PIXELS = 8192 * 4096;

/** Throws an EnvironmentError unless `width` × `height` is a size a file may declare. */
export function checkEnvironmentSize(width: number, height: number, what: string): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new EnvironmentError(`${what}: size ${width} × ${height} is not a positive whole number of pixels`);
  }
  if (width > MAX_ENVIRONMENT_DIMENSION || height > MAX_ENVIRONMENT_DIMENSION || width * height > MAX_ENVIRONMENT_PIXELS) {
    throw new EnvironmentError(
      `${what}: size ${width} × ${height} is beyond the limit (${MAX_ENVIRONMENT_DIMENSION} per side, ${MAX_ENVIRONMENT_PIXELS} pixels)`,
    );
  }
}

/**
 * `image` averaged down by a whole factor so its width is at most `maxWidth` (box filter:
 * mean radiance is kept). Returns `image` itself when it is small enough.
 */
export function downsampleEquirect(image: EquirectImage, maxWidth: number): EquirectImage {
  const factor = Math.ceil(image.width / maxWidth);
  if (factor <= 1) return image;
  const width = Math.max(1, Math.floor(image.width / factor));
  const height = Math.max(1, Math.floor(image.height / factor));
  // Summed source row by source row, each pixel into its block's sum: a block's pixels in the order of its rows, then
  // its columns, as a loop per block took them. Loops that are not nested in one function: a page runs this once (the
  // SH9 of `neutral`), mostly in not yet optimised code, where the short loops nested in the long ones deoptimised at
  // each exit.
  const rgb = new Float32Array(width * height * 3), sums = new Float64Array(width * 3);
  const n = 1 / (factor * factor);
  for (let sy = 0; sy < height * factor; sy++) {
    addSourceRow(image, sy, factor, width, sums);
    if ((sy + 1) % factor === 0) storeRow(sums, n, rgb, ((sy + 1) / factor - 1) * width * 3);
  }
  return { width, height, rgb };
}

/** Adds row `sy` of `image` (its first `width` × `factor` pixels) to the sums of its blocks, `sums` (a row of them). */
function addSourceRow(image: EquirectImage, sy: number, factor: number, width: number, sums: Float64Array): void {
  const src = image.rgb;
  for (let sx = 0, i = sy * image.width * 3, o = 0, column = 0; sx < width * factor; sx++, i += 3) {
    sums[o] += src[i]; sums[o + 1] += src[i + 1]; sums[o + 2] += src[i + 2];
    if (++column === factor) { column = 0; o += 3; }
  }
}

/** `sums` × `n` into `rgb` from `offset`, and `sums` back to zero for the next row of blocks. */
function storeRow(sums: Float64Array, n: number, rgb: Float32Array, offset: number): void {
  for (let k = 0; k < sums.length; k++) {
    rgb[offset + k] = sums[k] * n;
    sums[k] = 0;
  }
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** IEEE binary16 bits of `value` (round to nearest even; overflow → infinity, NaN kept). */
export function toHalf(value: number): number {
  F32[0] = value;
  const x = U32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1), mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++;
  // A carry into the exponent is the right rounding (up to infinity at the top).
  return sign | half;
}

/** The number IEEE binary16 bits `half` hold (toHalf's inverse for every value it returns). */
export function fromHalf(half: number): number {
  const sign = half & 0x8000 ? -1 : 1;
  const exp = (half >>> 10) & 0x1f, mant = half & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The image as rgba16float texels (alpha 1), for `writeTexture`. */
export function toHalfRgba(image: EquirectImage): Uint16Array {
  const n = image.width * image.height;
  const out = new Uint16Array(n * 4);
  const one = toHalf(1);
  for (let p = 0; p < n; p++) {
    out[p * 4] = toHalf(image.rgb[p * 3]);
    out[p * 4 + 1] = toHalf(image.rgb[p * 3 + 1]);
    out[p * 4 + 2] = toHalf(image.rgb[p * 3 + 2]);
    out[p * 4 + 3] = one;
  }
  return out;
}
