import { describe, expect, it } from 'vitest';
import { linearToSrgbByte, SRGB_BYTE_TO_LINEAR, srgbToLinear } from '../../../src/gpu/textures/srgb.ts';

/** The sRGB encoding of linear `l`, rounded to a byte: the formula linearToSrgbByte replaces with tables. */
function encodedByte(l: number): number {
  const c = l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
  return Math.round(Math.min(1, Math.max(0, c)) * 255);
}

describe('linearToSrgbByte', () => {
  it('is the sRGB encoding rounded to the nearest byte, clamped, across [−0.01, 1.01] in steps of 1/500 000', () => {
    const wrong: string[] = [];
    for (let k = 0; k <= 510_000; k++) {
      const l = k / 500_000 - 0.01;
      if (linearToSrgbByte(l) !== encodedByte(l) && wrong.length < 5) wrong.push(`${l}: ${linearToSrgbByte(l)} ≠ ${encodedByte(l)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives each byte back from its decoded value, and 0 for NaN (as a Uint8Array stores NaN)', () => {
    for (let b = 0; b < 256; b++) {
      expect(linearToSrgbByte(srgbToLinear(b / 255))).toBe(b);
      expect(linearToSrgbByte(SRGB_BYTE_TO_LINEAR[b])).toBe(b);
    }
    expect(linearToSrgbByte(Number.NaN)).toBe(0);
  });
});
