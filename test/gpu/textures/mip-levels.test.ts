import { describe, expect, it } from 'vitest';
import { nextMipLevel } from '../../../src/gpu/textures/mip-levels.ts';
import { srgbToLinear } from '../../../src/gpu/textures/srgb.ts';

function encodedByte(l: number): number {
  const c = l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
  return Math.round(Math.min(1, Math.max(0, c)) * 255);
}

/** The next level by its definition, term by term in f64: each footprint's alpha-weighted mean (a side of 1 keeps its texel). */
function nextLevelByDefinition(width: number, height: number, data: Uint8Array, srgb: boolean): number[] {
  const out: number[] = [];
  const decode = (v: number) => (srgb ? srgbToLinear(v / 255) : v / 255);
  const columns = width > 1 ? 2 : 1, rows = height > 1 ? 2 : 1;
  for (let y = 0; y < Math.max(1, height >> 1); y++) {
    for (let x = 0; x < Math.max(1, width >> 1); x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let v = y * rows; v < (y + 1) * rows; v++) {
        for (let u = x * columns; u < (x + 1) * columns; u++) {
          const i = (v * width + u) * 4, w = data[i + 3] / 255;
          r += decode(data[i]) * w; g += decode(data[i + 1]) * w; b += decode(data[i + 2]) * w; a += w;
        }
      }
      const inv = a > 0 ? 1 / a : 0;
      const encode = (c: number) => (srgb ? encodedByte(c * inv) : Math.round(c * inv * 255));
      out.push(encode(r), encode(g), encode(b), Math.round((a / (columns * rows)) * 255));
    }
  }
  return out;
}

function noise(width: number, height: number, opaque: boolean): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = Math.imul(i + 7, 2654435761) >>> 24;
  if (opaque) for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return data;
}

describe('nextMipLevel', () => {
  it('is the alpha-weighted mean of each 2 × 2 footprint (2 × 1 where a side is 1), in linear light for sRGB', () => {
    for (const [width, height] of [[16, 8], [8, 1], [1, 4]]) {
      for (const opaque of [true, false]) {
        const data = noise(width, height, opaque);
        for (const srgb of [true, false]) {
          const level = nextMipLevel({ width, height, data }, srgb);
          const what = `${width}×${height}, opaque ${opaque}, sRGB ${srgb}`;
          expect([level.width, level.height], what).toEqual([Math.max(1, width >> 1), Math.max(1, height >> 1)]);
          const expected = nextLevelByDefinition(width, height, data, srgb);
          // A mean of bytes is often exactly halfway between two (linear data: a sum of 4k + 2; dark sRGB:
          // the encoding's linear segment), and the two sides' float errors round such a tie either way.
          const off = Array.from(level.data, (v, i) => Math.abs(v - expected[i]));
          expect(Math.max(...off), what).toBeLessThanOrEqual(1);
          expect(off.filter((d) => d > 0).length, `${what}: bytes off by one`).toBeLessThan(Math.max(2, off.length / 20));
        }
      }
    }
  });

  it('keeps a transparent texel\'s colour out of its neighbours\' mean', () => {
    // Transparent red beside three opaque greens: green, three quarters covered.
    const data = Uint8Array.from([255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255]);
    expect(Array.from(nextMipLevel({ width: 2, height: 2, data }, true).data)).toEqual([0, 255, 0, 191]);
    // Nothing covered: black, transparent (not NaN).
    expect(Array.from(nextMipLevel({ width: 2, height: 2, data: new Uint8Array(16) }, true).data)).toEqual([0, 0, 0, 0]);
  });
});
