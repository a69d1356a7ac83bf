/**
 * The CPU projection of an environment's irradiance on SH9 (src/gpu/environment/sh9.ts): its
 * constants are shaders/sh9.wgsl's (which the mesh shader evaluates), and the numbers: a
 * uniform environment gives its radiance in every direction, a linear one the exact cosine
 * convolution, a sky/ground split each colour on its side, and a bright spot the direction
 * equirect.ts's orientation gives it.
 */
import { describe, expect, it } from 'vitest';
import sh9Wgsl from '../../../shaders/sh9.wgsl?raw';
import type { EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { dominantDirection } from '../../../src/gpu/environment/prefilter.ts';
import * as sh9 from '../../../src/gpu/environment/sh9.ts';

/** An equirect image whose radiance is `radiance(direction)` (equirect.ts's orientation). */
function image(width: number, radiance: (x: number, y: number, z: number) => readonly number[]): EquirectImage {
  const height = width / 2, rgb = new Float32Array(width * height * 3);
  for (let v = 0; v < height; v++) {
    const theta = (Math.PI * (v + 0.5)) / height;
    for (let u = 0; u < width; u++) {
      const phi = 2 * Math.PI * ((u + 0.5) / width - 0.5);
      const l = radiance(Math.sin(phi) * Math.sin(theta), Math.cos(theta), -Math.cos(phi) * Math.sin(theta));
      rgb.set(l, (v * width + u) * 3);
    }
  }
  return { width, height, rgb };
}

/** Irradiance / π in direction (x, y, z), channel c, from the coefficients. */
function irradianceAt(coefficients: Float32Array, d: readonly number[], c: number): number {
  const basis = sh9.shBasis(d[0], d[1], d[2], new Float64Array(9));
  let sum = 0;
  for (let j = 0; j < 9; j++) sum += basis[j] * coefficients[j * 4 + c];
  return sum;
}

describe('irradianceSh9 (the environment\'s diffuse light, projected on the CPU)', () => {
  it('uses shaders/sh9.wgsl\'s constants', () => {
    const wgsl = Object.fromEntries([...sh9Wgsl.matchAll(/const (SH_\w+): f32 = ([\d.]+);/g)].map((m) => [m[1], Number(m[2])]));
    expect(wgsl).toEqual({ SH_C0: sh9.SH_C0, SH_C1: sh9.SH_C1, SH_C2_CROSS: sh9.SH_C2_CROSS, SH_C2_ZZ: sh9.SH_C2_ZZ, SH_C2_XX_YY: sh9.SH_C2_XX_YY });
  });

  it('a uniform environment: its radiance in every direction, no dominant direction (up)', () => {
    const L = [0.5, 1, 2];
    const c = sh9.irradianceSh9(image(256, () => L));
    expect(c.length).toBe(36);
    for (const d of [[0, 1, 0], [1, 0, 0], [0, 0, -1], [0.6, -0.8, 0]]) {
      for (let ch = 0; ch < 3; ch++) expect(irradianceAt(c, d, ch) / L[ch]).toBeCloseTo(1, 3);
    }
    for (let j = 0; j < 9; j++) expect(c[j * 4 + 3]).toBe(0);
    expect(Array.from(dominantDirection(c))).toEqual([0, 1, 0]);
  });

  it('radiance 1 + y: irradiance / π is 1 + (2/3) n·y, the clamped cosine\'s band-1 factor (exact in SH9)', () => {
    const c = sh9.irradianceSh9(image(512, (_x, y) => [1 + y, 1 + y, 1 + y]));
    expect(irradianceAt(c, [0, 1, 0], 0)).toBeCloseTo(5 / 3, 2);
    expect(irradianceAt(c, [0, -1, 0], 0)).toBeCloseTo(1 / 3, 2);
    expect(irradianceAt(c, [1, 0, 0], 0)).toBeCloseTo(1, 2);
  });

  it('sky above, ground below: each colour on its side, their mean at the horizon', () => {
    const sky = [0.2, 0.4, 1], ground = [0.6, 0.3, 0.05];
    const c = sh9.irradianceSh9(image(256, (_x, y) => (y > 0 ? sky : ground)));
    for (let ch = 0; ch < 3; ch++) {
      expect(irradianceAt(c, [0, 1, 0], ch)).toBeCloseTo(sky[ch], 1);
      expect(irradianceAt(c, [0, -1, 0], ch)).toBeCloseTo(ground[ch], 1);
      expect(irradianceAt(c, [1, 0, 0], ch)).toBeCloseTo((sky[ch] + ground[ch]) / 2, 2);
    }
    expect(dominantDirection(c)[1]).toBeGreaterThan(0.99);
  });

  it('a bright spot towards +X (and one towards −Z): the dominant direction points at it', () => {
    for (const target of [[1, 0, 0], [0, 0, -1]]) {
      const c = sh9.irradianceSh9(image(256, (x, y, z) => {
        const lit = x * target[0] + y * target[1] + z * target[2] > 0.95;
        return lit ? [50, 50, 50] : [0.1, 0.1, 0.1];
      }));
      const d = dominantDirection(c);
      expect(d[0] * target[0] + d[1] * target[1] + d[2] * target[2]).toBeGreaterThan(0.99);
    }
  });

  it('a wide image is box-filtered to SH9_SOURCE_WIDTH first: the same coefficients as from that width', () => {
    const radiance = (x: number, y: number, z: number) => [1 + x, 2 + y * z, 0.5 + z];
    const wide = sh9.irradianceSh9(image(4 * sh9.SH9_SOURCE_WIDTH, radiance));
    const narrow = sh9.irradianceSh9(image(sh9.SH9_SOURCE_WIDTH, radiance));
    for (let i = 0; i < 36; i++) expect(wide[i]).toBeCloseTo(narrow[i], 2);
  });
});
