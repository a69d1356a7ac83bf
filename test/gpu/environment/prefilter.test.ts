/**
 * The environment prefilter on a real device (Dawn on SwiftShader): the WGSL struct and
 * bindings against their TS layout module, and the numbers — a uniform environment stays
 * uniform at every level and in the irradiance, a sky/ground environment puts each colour
 * on its side, the BRDF table never reflects more than comes in.
 */
import { describe, expect, it } from 'vitest';
import environmentWgsl from '../../../shaders/environment.wgsl?raw';
import type { EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { acquireBrdfLut, brdfLutTexture, dominantDirection, prefilterEnvironment, releaseBrdfLut } from '../../../src/gpu/environment/prefilter.ts';
import {
  BRDF_LUT_SIZE, PREFILTER_PARAMS_SIZE, PrefilterBinding, PrefilterParamsOffset, radianceCubeSize, SPECULAR_LEVELS,
} from '../../../src/gpu/environment/prefilter-params.ts';
import { readHalfTexels } from '../../support/half-float.ts';
import { onOwnDevice } from '../../support/webgpu.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';
import { bindings, screamingSnake, structLayout } from '../wgsl-layout.ts';

const device = await testDevice('environment prefilter test device');

function uniformImage(l: readonly number[], width = 64): EquirectImage {
  const rgb = new Float32Array(width * (width / 2) * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = l[i % 3];
  return { width, height: width / 2, rgb };
}

/** Upper half `sky`, lower half `ground`. */
function skyGround(sky: readonly number[], ground: readonly number[], width = 64): EquirectImage {
  const height = width / 2, rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = (y < height / 2 ? sky : ground)[c];
  return { width, height, rgb };
}

/** Irradiance / π from stored SH coefficients in direction d (shaders/sh9.wgsl's basis). */
function evalSh(c: Float32Array, d: readonly number[], channel: number): number {
  const [x, y, z] = d;
  const basis = [0.282095, 0.488603 * y, 0.488603 * z, 0.488603 * x, 1.092548 * x * y, 1.092548 * y * z, 0.315392 * (3 * z * z - 1), 1.092548 * x * z, 0.546274 * (x * x - y * y)];
  return basis.reduce((s, b, j) => s + b * c[j * 4 + channel], 0);
}

describe('PrefilterParams ↔ prefilter-params.ts', () => {
  it('struct offsets, size and bindings match the WGSL', () => {
    const layout = structLayout(environmentWgsl, 'PrefilterParams');
    expect(Object.fromEntries(layout.fields.map((f) => [screamingSnake(f.name), f.offset]))).toEqual(PrefilterParamsOffset);
    expect(layout.size).toBe(PREFILTER_PARAMS_SIZE);
    const b = bindings(environmentWgsl);
    expect(b.get('params')?.binding).toBe(PrefilterBinding.PARAMS);
    expect(b.get('sourceSampler')?.binding).toBe(PrefilterBinding.SAMPLER);
    expect(b.get('equirect')?.binding).toBe(PrefilterBinding.EQUIRECT);
    expect(b.get('sourceCube')?.binding).toBe(PrefilterBinding.SOURCE_CUBE);
  });

  it('radianceCubeSize: a quarter of the image width, a power of two, 128…512', () => {
    expect([64, 256, 600, 1024, 2048, 8192].map(radianceCubeSize)).toEqual([128, 128, 256, 256, 512, 512]);
  });

  it('dominantDirection: band 1 of luminance, up when there is none', () => {
    const c = new Float32Array(36);
    c[0] = c[1] = c[2] = 1;
    expect(Array.from(dominantDirection(c))).toEqual([0, 1, 0]);
    c[3 * 4] = c[3 * 4 + 1] = c[3 * 4 + 2] = 0.5; // x
    expect(Array.from(dominantDirection(c))).toEqual([1, 0, 0]);
  });
});

describe.skipIf(!device)('prefilterEnvironment on the GPU', () => {
  const gpu = device!;

  it('a uniform environment: every specular level of every face, and the irradiance, equal its radiance', async () => {
    const L = [0.5, 1, 2];
    const env = await expectNoGpuErrors(gpu, () => prefilterEnvironment(gpu, uniformImage(L), 'uniform'));
    expect(env.specularLevels).toBe(SPECULAR_LEVELS);
    // A 64-wide image makes the smallest cube: 128², its specular chain from 32².
    expect(env.radiance.width).toBe(128);
    expect(env.specular.width).toBe(32);
    for (let level = 0; level < SPECULAR_LEVELS; level++) {
      for (const face of [0, 2, 5]) {
        const texels = await readHalfTexels(gpu, env.specular, level, face, 4);
        for (let i = 0; i < texels.length; i += 4) for (let c = 0; c < 3; c++) expect(Math.abs(texels[i + c] / L[c] - 1)).toBeLessThan(0.01);
      }
    }
    expect(env.irradianceCoefficients.length).toBe(36);
    for (const d of [[0, 1, 0], [1, 0, 0], [0, 0, -1], [0.6, -0.8, 0]]) {
      for (let c = 0; c < 3; c++) expect(evalSh(env.irradianceCoefficients, d, c) / L[c]).toBeCloseTo(1, 2);
    }
    expect(Array.from(env.dominantDirection)).toEqual([0, 1, 0]);
    env.destroy();
  });

  it('sky above, ground below: the specular chain and the irradiance keep each colour on its side', async () => {
    const sky = [0.2, 0.4, 1], ground = [0.6, 0.3, 0.05];
    const env = await expectNoGpuErrors(gpu, () => prefilterEnvironment(gpu, skyGround(sky, ground), 'sky-ground'));
    const mean = (t: Float32Array, c: number) => { let s = 0; for (let i = c; i < t.length; i += 4) s += t[i]; return s / (t.length / 4); };
    // Faces +Y (2) and −Y (3) of the mirror level are the two colours.
    const up = await readHalfTexels(gpu, env.specular, 0, 2, 4), down = await readHalfTexels(gpu, env.specular, 0, 3, 4);
    for (let c = 0; c < 3; c++) {
      expect(mean(up, c)).toBeCloseTo(sky[c], 2);
      expect(mean(down, c)).toBeCloseTo(ground[c], 2);
    }
    // Irradiance / π straight up: all sky would be sky; the cosine lobe sees only sky, SH9 rings a little.
    for (let c = 0; c < 3; c++) {
      expect(evalSh(env.irradianceCoefficients, [0, 1, 0], c)).toBeCloseTo(sky[c], 1);
      expect(evalSh(env.irradianceCoefficients, [0, -1, 0], c)).toBeCloseTo(ground[c], 1);
      expect(evalSh(env.irradianceCoefficients, [1, 0, 0], c)).toBeCloseTo((sky[c] + ground[c]) / 2, 2);
    }
    // The sky is brighter (luminance): the shadow comes from above.
    expect(env.dominantDirection[1]).toBeGreaterThan(0.99);
    env.destroy();
  });

  it('the BRDF table is made once per device while used, freed after its last user, and never reflects more than comes in (A + B ≤ 1)', () => onOwnDevice('BRDF table test device', async (gpu) => {
    // On a device of its own: files sharing the worker's device (test/support/webgpu.ts) may hold the table too.
    const view = await expectNoGpuErrors(gpu, () => acquireBrdfLut(gpu));
    expect(acquireBrdfLut(gpu)).toBe(view);
    const texture = brdfLutTexture(gpu)!;
    expect(texture.width).toBe(BRDF_LUT_SIZE);
    const lut = await readHalfTexels(gpu, texture, 0, 0, 2);
    const at = (nDotV: number, roughness: number) => {
      const x = Math.min(BRDF_LUT_SIZE - 1, Math.floor(nDotV * BRDF_LUT_SIZE)), y = Math.min(BRDF_LUT_SIZE - 1, Math.floor(roughness * BRDF_LUT_SIZE));
      return [lut[(y * BRDF_LUT_SIZE + x) * 2], lut[(y * BRDF_LUT_SIZE + x) * 2 + 1]];
    };
    for (let i = 0; i < lut.length; i += 2) {
      expect(lut[i]).toBeGreaterThanOrEqual(0);
      expect(lut[i + 1]).toBeGreaterThanOrEqual(0);
      expect(lut[i] + lut[i + 1]).toBeLessThanOrEqual(1.005);
    }
    // Smooth, head-on: f0 comes back whole (A ≈ 1, B ≈ 0); rough and grazing loses energy.
    const [a, b] = at(1, 0.05);
    expect(a).toBeGreaterThan(0.95);
    expect(b).toBeLessThan(0.02);
    const [ra, rb] = at(0.1, 1);
    expect(ra + rb).toBeLessThan(0.8);
    releaseBrdfLut(gpu);
    expect(brdfLutTexture(gpu)).toBe(texture);
    releaseBrdfLut(gpu);
    expect(brdfLutTexture(gpu)).toBeUndefined();
  }));
});
