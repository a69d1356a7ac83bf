/**
 * Mip levels of decoded pixels made on the CPU (textures.ts createImageTexture, for power-of-two
 * images up to CPU_MIPMAP_MAX_TEXELS): each texel the mean of its 2 × 2 footprint in the level
 * above, in linear light for the colour of sRGB textures, as the MipmapGenerator's bilinear tap
 * at the texel's centre takes it for power-of-two sizes (shaders/mipmap.wgsl), made without a
 * pipeline. In integers throughout: a page runs this once, mostly before V8 has optimised it,
 * and there every floating-point result is a heap allocation (a 1024² chain's ~350 000
 * footprints allocated ~6.5 MB that way, and the collections that go with it). Upload-time only.
 */
import type { DecodedPixels } from './downscale.ts';
import { bucketStarts, SRGB_BYTE_FLOORS, srgbToLinear } from './srgb.ts';

const RGBA8_BYTES = 4;
const BYTE_MAX = 255;
/** Linear light in 16-bit fixed point: a footprint's sum of four stays a small integer. */
const LINEAR_ONE = 0xffff;
const FOOTPRINT = 4;
/** Each sRGB byte's linear value, × LINEAR_ONE, rounded. */
const SRGB_TO_LINEAR_FIXED = Int32Array.from({ length: BYTE_MAX + 1 }, (_, b) => Math.round(srgbToLinear(b / BYTE_MAX) * LINEAR_ONE));
/**
 * The smallest sum of four fixed-point values whose mean encodes to each byte or above (byte b's
 * rounding floor in linear light, SRGB_BYTE_FLOORS, × 4 × LINEAR_ONE, rounded up); one past the
 * last byte, a sum no footprint reaches.
 */
const SRGB_SUM_FLOORS = Int32Array.from({ length: BYTE_MAX + 2 }, (_, b) => (b === 0 ? 0 : b > BYTE_MAX ? FOOTPRINT * LINEAR_ONE + 1
  : Math.ceil(SRGB_BYTE_FLOORS[b] * FOOTPRINT * LINEAR_ONE)));
/**
 * Sums bucketed by their top bits, each bucket starting the search at the largest byte whose floor
 * is at or below its first sum: buckets are narrower than the narrowest byte (~80 sums, at the
 * dark end), so the search takes a step or two.
 */
const SUM_BUCKET_SHIFT = 6;
const BUCKET_START_BYTE = bucketStarts(SRGB_SUM_FLOORS, ((FOOTPRINT * LINEAR_ONE) >> SUM_BUCKET_SHIFT) + 1, (k) => k << SUM_BUCKET_SHIFT);

/** The sRGB byte of the mean of four fixed-point linear values whose sum is `sum`. */
function srgbByteOfSum(sum: number): number {
  let b = BUCKET_START_BYTE[sum >> SUM_BUCKET_SHIFT];
  while (sum >= SRGB_SUM_FLOORS[b + 1]) b++;
  return b;
}

/**
 * The level below `above` (max(1, width / 2) × max(1, height / 2); sizes even or 1). A side of 1
 * keeps its one texel, counted twice (the mean is the same). Linear data and alpha: the mean of
 * the bytes, rounded half up.
 */
export function nextMipLevel(above: DecodedPixels, srgb: boolean): DecodedPixels {
  const src = above.data;
  const width = Math.max(1, above.width >> 1), height = Math.max(1, above.height >> 1);
  const out = new Uint8Array(width * height * RGBA8_BYTES);
  const row = above.width * RGBA8_BYTES;
  const right = above.width > 1 ? RGBA8_BYTES : 0, down = above.height > 1 ? row : 0;
  const decode = SRGB_TO_LINEAR_FIXED;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (down ? 2 * y : y) * row + (right ? 2 * x : x) * RGBA8_BYTES, j = i + right, k = i + down, l = k + right;
      const o = (y * width + x) * RGBA8_BYTES;
      for (let c = 0; c < 3; c++) {
        out[o + c] = srgb
          ? srgbByteOfSum(decode[src[i + c]] + decode[src[j + c]] + decode[src[k + c]] + decode[src[l + c]])
          : (src[i + c] + src[j + c] + src[k + c] + src[l + c] + 2) >> 2;
      }
      out[o + 3] = (src[i + 3] + src[j + 3] + src[k + 3] + src[l + 3] + 2) >> 2;
    }
  }
  return { width, height, data: out };
}
