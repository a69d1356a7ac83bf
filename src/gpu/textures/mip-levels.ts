/**
 * Mip levels of decoded pixels made on the CPU (textures.ts createImageTexture, for power-of-two
 * images up to CPU_MIPMAP_MAX_TEXELS): each texel the alpha-weighted mean of its 2 × 2 footprint
 * in the level above, in linear light for sRGB colour textures. For power-of-two sizes that is the
 * MipmapGenerator's bilinear tap at the texel's centre (shaders/mipmap.wgsl), made without a
 * pipeline. Upload-time only.
 */
import type { DecodedPixels } from './downscale.ts';
import { linearToSrgbByte, SRGB_BYTE_TO_LINEAR } from './srgb.ts';

const RGBA8_BYTES = 4;
const BYTE_MAX = 255;
const UNORM_TO_FLOAT = Float32Array.from({ length: BYTE_MAX + 1 }, (_, i) => i / BYTE_MAX);

/**
 * The level below `above` (max(1, width / 2) × max(1, height / 2); sizes even or 1). A side of 1
 * keeps its one texel, counted twice (the mean is the same). Unrolled: a 1024² texture's chain is
 * ~350 000 footprints, at upload.
 */
export function nextMipLevel(above: DecodedPixels, srgb: boolean): DecodedPixels {
  const src = above.data;
  const width = Math.max(1, above.width >> 1), height = Math.max(1, above.height >> 1);
  const out = new Uint8Array(width * height * RGBA8_BYTES);
  const decode = srgb ? SRGB_BYTE_TO_LINEAR : UNORM_TO_FLOAT;
  const row = above.width * RGBA8_BYTES;
  const right = above.width > 1 ? RGBA8_BYTES : 0, down = above.height > 1 ? row : 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (down ? 2 * y : y) * row + (right ? 2 * x : x) * RGBA8_BYTES, j = i + right, k = i + down, l = k + right;
      // Colour weighted by alpha (transparent texels do not bleed their colour in); alpha in bytes here.
      const wi = src[i + 3], wj = src[j + 3], wk = src[k + 3], wl = src[l + 3];
      const a = wi + wj + wk + wl;
      const inv = a > 0 ? 1 / a : 0;
      const r = (decode[src[i]] * wi + decode[src[j]] * wj + decode[src[k]] * wk + decode[src[l]] * wl) * inv;
      const g = (decode[src[i + 1]] * wi + decode[src[j + 1]] * wj + decode[src[k + 1]] * wk + decode[src[l + 1]] * wl) * inv;
      const b = (decode[src[i + 2]] * wi + decode[src[j + 2]] * wj + decode[src[k + 2]] * wk + decode[src[l + 2]] * wl) * inv;
      const o = (y * width + x) * RGBA8_BYTES;
      out[o] = srgb ? linearToSrgbByte(r) : Math.round(r * BYTE_MAX);
      out[o + 1] = srgb ? linearToSrgbByte(g) : Math.round(g * BYTE_MAX);
      out[o + 2] = srgb ? linearToSrgbByte(b) : Math.round(b * BYTE_MAX);
      out[o + 3] = Math.round(a / 4);
    }
  }
  return { width, height, data: out };
}
