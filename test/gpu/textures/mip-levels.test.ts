import { describe, expect, it } from 'vitest';
import { nextMipLevel } from '../../../src/gpu/textures/mip-levels.ts';
import { srgbToLinear } from '../../../src/gpu/textures/srgb.ts';

function encodedByte(l: number): number {
  const c = l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
  return Math.round(Math.min(1, Math.max(0, c)) * 255);
}

/** The next level by its definition, term by term in f64: each footprint's mean (a side of 1 keeps its texel), colour in linear light for sRGB. */
function nextLevelByDefinition(width: number, height: number, data: Uint8Array, srgb: boolean): number[] {
  const out: number[] = [];
  const decode = (v: number) => srgbToLinear(v / 255);
  const columns = width > 1 ? 2 : 1, rows = height > 1 ? 2 : 1;
  for (let y = 0; y < Math.max(1, height >> 1); y++) {
    for (let x = 0; x < Math.max(1, width >> 1); x++) {
      const sums = [0, 0, 0, 0];
      for (let v = y * rows; v < (y + 1) * rows; v++) {
        for (let u = x * columns; u < (x + 1) * columns; u++) {
          const i = (v * width + u) * 4;
          // Bytes summed as integers where no decoding is wanted: their mean is exact (n is 2 or 4).
          for (let c = 0; c < 3; c++) sums[c] += srgb ? decode(data[i + c]) : data[i + c];
          sums[3] += data[i + 3];
        }
      }
      const n = columns * rows;
      for (let c = 0; c < 3; c++) out.push(srgb ? encodedByte(sums[c] / n) : Math.round(sums[c] / n));
      out.push(Math.round(sums[3] / n));
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
  it('is the mean of each 2 × 2 footprint (2 × 1 where a side is 1), colour in linear light for sRGB, alpha as stored', () => {
    for (const [width, height] of [[16, 8], [8, 1], [1, 4]]) {
      for (const opaque of [true, false]) {
        const data = noise(width, height, opaque);
        for (const srgb of [true, false]) {
          const level = nextMipLevel({ width, height, data }, srgb);
          const what = `${width}×${height}, opaque ${opaque}, sRGB ${srgb}`;
          expect([level.width, level.height], what).toEqual([Math.max(1, width >> 1), Math.max(1, height >> 1)]);
          const expected = nextLevelByDefinition(width, height, data, srgb);
          // Linear bytes and alpha: exact (the mean rounded half up). sRGB colour: the level works in 16-bit
          // fixed point, the definition in f64; in the encoding's linear segment (dark values) a mean is
          // often exactly halfway between two bytes, and such a tie may round either way.
          const exact = Array.from(level.data).filter((_, i) => !srgb || i % 4 === 3);
          expect(exact, what).toEqual(expected.filter((_, i) => !srgb || i % 4 === 3));
          const off = Array.from(level.data, (v, i) => Math.abs(v - expected[i]));
          expect(Math.max(...off), what).toBeLessThanOrEqual(1);
          expect(off.filter((d) => d > 0).length, `${what}: bytes off by one`).toBeLessThan(Math.max(2, off.length / 20));
        }
      }
    }
  });

  it('weights colour by nothing, as the GPU generator\'s bilinear tap does: a transparent texel\'s colour counts', () => {
    // Transparent red beside three opaque greens: a quarter of red's and three quarters of green's light.
    const data = Uint8Array.from([255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255]);
    expect(Array.from(nextMipLevel({ width: 2, height: 2, data }, true).data)).toEqual([encodedByte(0.25), encodedByte(0.75), 0, 191]);
    expect(Array.from(nextMipLevel({ width: 2, height: 2, data }, false).data)).toEqual([64, 191, 0, 191]);
  });
});
