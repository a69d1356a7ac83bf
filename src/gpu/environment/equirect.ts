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
  const rgb = new Float32Array(width * height * 3);
  const src = image.rgb, sw = image.width;
  const n = 1 / (factor * factor);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let dy = 0; dy < factor; dy++) {
        let i = ((y * factor + dy) * sw + x * factor) * 3;
        for (let dx = 0; dx < factor; dx++, i += 3) {
          r += src[i]; g += src[i + 1]; b += src[i + 2];
        }
      }
      const o = (y * width + x) * 3;
      rgb[o] = r * n; rgb[o + 1] = g * n; rgb[o + 2] = b * n;
    }
  }
  return { width, height, rgb };
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
