/**
 * Decoded pixels scaled down on the CPU, for an image larger than the device's
 * maxTextureDimension2D (textures.ts fitImage): box-filtered like a mip level, in linear light
 * for sRGB colour textures, alpha-weighted. Imported only when an image needs it, so a page's
 * first load carries none of it. Upload-time only.
 */
import { linearToSrgbByte, SRGB_BYTE_TO_LINEAR } from './srgb.ts';

/** RGBA8 pixels, straight (not premultiplied) alpha, top row first. */
export interface DecodedPixels {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array | Uint8ClampedArray;
}

const RGBA8_BYTES = 4;

/** Box filter: each output texel averages the input texels its footprint covers. */
export function downscalePixels(image: DecodedPixels, width: number, height: number, srgb: boolean): DecodedPixels {
  const src = image.data;
  const out = new Uint8Array(width * height * RGBA8_BYTES);
  const sx = image.width / width, sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy), y1 = Math.max(y0 + 1, Math.ceil((y + 1) * sy));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * sx), x1 = Math.max(x0 + 1, Math.ceil((x + 1) * sx));
      let r = 0, g = 0, b = 0, a = 0, n = 0;
      for (let v = y0; v < y1; v++) {
        for (let u = x0; u < x1; u++) {
          const i = (v * image.width + u) * RGBA8_BYTES;
          // Colour weighted by alpha, so transparent texels do not bleed their colour in.
          const w = src[i + 3] / 255;
          r += (srgb ? SRGB_BYTE_TO_LINEAR[src[i]] : src[i] / 255) * w;
          g += (srgb ? SRGB_BYTE_TO_LINEAR[src[i + 1]] : src[i + 1] / 255) * w;
          b += (srgb ? SRGB_BYTE_TO_LINEAR[src[i + 2]] : src[i + 2] / 255) * w;
          a += w;
          n++;
        }
      }
      const o = (y * width + x) * RGBA8_BYTES;
      const inv = a > 0 ? 1 / a : 0;
      out[o] = srgb ? linearToSrgbByte(r * inv) : Math.round(r * inv * 255);
      out[o + 1] = srgb ? linearToSrgbByte(g * inv) : Math.round(g * inv * 255);
      out[o + 2] = srgb ? linearToSrgbByte(b * inv) : Math.round(b * inv * 255);
      out[o + 3] = Math.round((a / n) * 255);
    }
  }
  return { width, height, data: out };
}
