/** The sRGB transfer function's inverse: an encoded value in [0, 1] to linear. */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

const BYTE_MAX = 255;

/** Each sRGB-encoded byte's linear value. */
export const SRGB_BYTE_TO_LINEAR = Float32Array.from({ length: BYTE_MAX + 1 }, (_, i) => srgbToLinear(i / BYTE_MAX));

/**
 * The linear value from which each sRGB byte is the nearest encoding: byte b for
 * SRGB_BYTE_FLOORS[b] ≤ l < SRGB_BYTE_FLOORS[b + 1] (b − ½ encoded, decoded).
 */
export const SRGB_BYTE_FLOORS = Float64Array.from({ length: BYTE_MAX + 2 }, (_, b) => (b === 0 ? -Infinity : b > BYTE_MAX ? Infinity : srgbToLinear((b - 0.5) / BYTE_MAX)));
/**
 * Buckets of [0, 1) in linear light, each starting the search for its byte at the largest byte whose
 * floor is at or below the bucket's start: finer than the narrowest byte (12.92 × 255 buckets would
 * do), so the search takes a step or two. Replaces a Math.pow per channel, most of a mip chain's time.
 */
const ENCODE_BUCKETS = 4096;
const BUCKET_START_BYTE = bucketStarts(SRGB_BYTE_FLOORS, ENCODE_BUCKETS, (k) => k / ENCODE_BUCKETS);

/**
 * For each of `count` buckets, the largest byte whose floor (`floors`: ascending, one per byte and
 * one past the last) is at or below the bucket's first value (`start`, ascending): one pass, as
 * both bucket starts and floors ascend (a page builds these tables before optimising anything).
 */
export function bucketStarts(floors: ArrayLike<number>, count: number, start: (bucket: number) => number): Uint8Array {
  const starts = new Uint8Array(count);
  for (let k = 0, b = 0; k < count; k++) {
    const first = start(k);
    while (b < BYTE_MAX && floors[b + 1] <= first) b++;
    starts[k] = b;
  }
  return starts;
}

/** The sRGB byte nearest linear `l`'s encoding (round to nearest; clamped to 0…255; NaN gives 0). */
export function linearToSrgbByte(l: number): number {
  if (!(l > 0)) return 0;
  if (l >= 1) return BYTE_MAX;
  let b = BUCKET_START_BYTE[(l * ENCODE_BUCKETS) | 0];
  while (l >= SRGB_BYTE_FLOORS[b + 1]) b++;
  return b;
}
