import { describe, expect, it } from 'vitest';
import { studioHdr, studioSky } from '../../src/demo/studio-hdr.ts';

/** Radiance's decoding: (mantissa + 0.5) · 2^(e − 136). */
const decode = (b: Uint8Array, at: number) => (b[at + 3] === 0 ? [0, 0, 0] : [0, 1, 2].map((c) => (b[at + c] + 0.5) * 2 ** (b[at + 3] - 136)));

describe('the demo\'s generated .hdr', () => {
  it('is a Radiance file: header, size line, width × height pixels; sky above, ground below, one sun', () => {
    const bytes = studioHdr(64);
    const text = new TextDecoder().decode(bytes.subarray(0, 60));
    expect(text.startsWith('#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 32 +X 64\n')).toBe(true);
    const start = '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 32 +X 64\n'.length;
    expect(bytes.length).toBe(start + 64 * 32 * 4);
    const at = (row: number, col: number) => decode(bytes, start + (row * 64 + col) * 4);
    const zenith = at(0, 10), ground = at(31, 10);
    expect(zenith[2]).toBeGreaterThan(zenith[0]); // blue sky
    expect(ground[0]).toBeGreaterThan(ground[2]); // warm ground
    let bright = 0;
    for (let i = start; i < bytes.length; i += 4) if (decode(bytes, i)[0] > 10) bright++;
    expect(bright).toBeGreaterThan(0);
    expect(bright).toBeLessThan(20);
    expect(studioSky(0, 1, 0, new Float32Array(3))[2]).toBeCloseTo(0.95, 5);
    expect(() => studioHdr(7)).toThrow(/even integer/);
  });
});
