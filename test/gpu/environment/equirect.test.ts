import { describe, expect, it } from 'vitest';
import { checkEnvironmentSize, downsampleEquirect, EnvironmentError, toHalf, toHalfRgba } from '../../../src/gpu/environment/equirect.ts';
import { neutralEnvironment } from '../../../src/gpu/environment/neutral.ts';
import { srgbPixelsToEquirect } from '../../../src/gpu/environment/srgb-image.ts';
import { fromHalf } from '../../support/half-float.ts';

describe('equirect images', () => {
  it('toHalf: exact values, rounding to nearest, subnormals, overflow, NaN', () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(0)).toBe(0);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(1e6)).toBe(0x7c00);
    expect(toHalf(NaN) & 0x7c00).toBe(0x7c00);
    expect(fromHalf(toHalf(2 ** -24))).toBe(2 ** -24);
    for (const v of [0.1, 0.333, 3.14159, 1234.5, 6e-5, 1e-7]) {
      expect(Math.abs(fromHalf(toHalf(v)) - v)).toBeLessThanOrEqual(Math.max(Math.abs(v) * 2 ** -11, 2 ** -25));
    }
  });

  it('toHalfRgba: four halves per pixel, alpha 1', () => {
    const out = toHalfRgba({ width: 1, height: 1, rgb: Float32Array.of(0.5, 2, 0) });
    expect(Array.from(out).map(fromHalf)).toEqual([0.5, 2, 0, 1]);
  });

  it('downsampleEquirect averages whole blocks (mean radiance kept) and leaves small images alone', () => {
    const rgb = new Float32Array(8 * 4 * 3).map((_, i) => i % 7);
    const image = { width: 8, height: 4, rgb };
    expect(downsampleEquirect(image, 8)).toBe(image);
    const half = downsampleEquirect(image, 4);
    expect([half.width, half.height]).toEqual([4, 2]);
    const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(half.rgb)).toBeCloseTo(mean(rgb), 5);
  });

  it('checkEnvironmentSize refuses non-integers and absurd sizes', () => {
    expect(() => checkEnvironmentSize(1.5, 2, 'x')).toThrow(EnvironmentError);
    expect(() => checkEnvironmentSize(20000, 2, 'x')).toThrow(/beyond the limit/);
    expect(() => checkEnvironmentSize(2048, 1024, 'x')).not.toThrow();
  });

  it('srgbPixelsToEquirect decodes sRGB to linear and checks the byte count', () => {
    const img = srgbPixelsToEquirect(Uint8Array.of(255, 188, 0, 255), 1, 1);
    expect(img.rgb[0]).toBe(1);
    expect(img.rgb[1]).toBeCloseTo(0.5, 2);
    expect(img.rgb[2]).toBe(0);
    expect(() => srgbPixelsToEquirect(new Uint8Array(3), 1, 1)).toThrow(/3 bytes for 1 × 1/);
  });

  it('neutral: a soft studio, brighter above than below, positive and finite everywhere', () => {
    const env = neutralEnvironment(64);
    expect([env.width, env.height]).toEqual([64, 32]);
    for (const v of env.rgb) expect(v > 0 && Number.isFinite(v)).toBe(true);
    const rowMean = (y: number) => { let s = 0; for (let x = 0; x < 64; x++) s += env.rgb[(y * 64 + x) * 3 + 1]; return s / 64; };
    expect(rowMean(4)).toBeGreaterThan(rowMean(28));
    // Soft: no pixel is more than 100× the dimmest (a hard sun would be thousands).
    let min = Infinity, max = 0;
    for (const v of env.rgb) { min = Math.min(min, v); max = Math.max(max, v); }
    expect(max / min).toBeLessThan(100);
  });
});
