/**
 * The sheen albedo table (src/gpu/environment/sheen-albedo.ts) against reference values of the
 * Charlie sheen's directional albedo E(n·v, roughness) = ∫ D_Charlie · V_Sheen · n·l dω: the
 * KHR_materials_sheen specification's lobe (Estevez and Kulla 2017, the sample viewer's
 * visibility clamped to [0, 1]) integrated here in double precision on a 400 × 400 midpoint grid
 * over (cos θ, φ), at 16 texels of the table. Tolerance 0.01 absolute plus 3% of the value: the
 * table stores r16float (about 0.05% relative) of a 2048-sample stratified sum, whose error is
 * largest at low roughness and grazing view, where the lobe is narrowest. The grid integral is
 * checked against itself at a finer grid (800 × 800: within 0.001). A wrong input fails: the
 * same reference with the table's roughness and n·v axes swapped differs by more than the
 * tolerance at most points. (three.js r187's curve fit of the albedo, IBLSheenBRDF, is no
 * reference for this lobe: at n·v 0.1 it lies 0.15–0.34 below these values; both give 0.164 at
 * roughness 1 and normal view.)
 */
import { describe, expect, it } from 'vitest';
import { SHEEN_ALBEDO_SIZE, sheenAlbedoTable } from '../../../src/gpu/environment/sheen-albedo.ts';
import { readHalfTexels } from '../../support/half-float.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';

const device = await testDevice('sheen albedo test device');

/** Estevez and Kulla's fitted Λ exponent (lerped by (1 − α)²), as the specification gives it. */
function lambdaFit(x: number, alpha: number): number {
  const t = (1 - alpha) ** 2;
  const mix = (p: number, q: number) => p + (q - p) * t;
  return mix(21.5473, 25.3245) / (1 + mix(3.82987, 3.32435) * x ** mix(0.19823, 0.16801)) + mix(-1.9776, -1.27393) * x + mix(-4.32054, -4.85967);
}

function lambda(cosTheta: number, alpha: number): number {
  return cosTheta < 0.5 ? Math.exp(lambdaFit(cosTheta, alpha)) : Math.exp(2 * lambdaFit(0.5, alpha) - lambdaFit(1 - cosTheta, alpha));
}

/** E(n·v, roughness) on an n × n grid over cos θ ∈ [0, 1] and φ. */
function referenceAlbedo(nDotV: number, roughness: number, n = 400): number {
  const alpha = Math.max(roughness, 1e-6) ** 2;
  const v = [Math.sqrt(1 - nDotV * nDotV), 0, nDotV];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const cosTheta = (i + 0.5) / n, sinTheta = Math.sqrt(1 - cosTheta * cosTheta);
    const visibility = Math.min(1, 1 / ((1 + lambda(nDotV, alpha) + lambda(cosTheta, alpha)) * 4 * nDotV * cosTheta));
    for (let j = 0; j < n; j++) {
      const phi = (2 * Math.PI * (j + 0.5)) / n;
      const h = [sinTheta * Math.cos(phi) + v[0], sinTheta * Math.sin(phi) + v[1], cosTheta + v[2]];
      const nDotH = h[2] / Math.hypot(h[0], h[1], h[2]);
      const distribution = ((2 + 1 / alpha) * Math.max(1 - nDotH * nDotH, 0) ** (0.5 / alpha)) / (2 * Math.PI);
      sum += distribution * visibility * cosTheta;
    }
  }
  // dω = d(cos θ) dφ over [0, 1] × [0, 2π].
  return (sum * 2 * Math.PI) / (n * n);
}

/** Texel indices (n·v = i / 31, roughness = j / 31) from grazing to normal view and smooth to rough. */
const POINTS: readonly (readonly [number, number])[] = [3, 10, 20, 31].flatMap((i) => [6, 12, 22, 31].map((j) => [i, j] as const));
const TOLERANCE = 0.01, RELATIVE = 0.03;

describe.skipIf(!device)('the sheen albedo table', () => {
  const gpu = device!;

  it('the reference integral has converged (400 × 400 against 800 × 800)', () => {
    for (const [nDotV, roughness] of [[0.1, 0.2], [0.5, 0.6], [1, 1]] as const) {
      expect(Math.abs(referenceAlbedo(nDotV, roughness) - referenceAlbedo(nDotV, roughness, 800))).toBeLessThan(0.001);
    }
  });

  it(`matches the Charlie albedo at ${POINTS.length} (n·v, roughness) points within ${TOLERANCE} + ${RELATIVE * 100}%; not with its axes swapped`, async () => {
    const table = await expectNoGpuErrors(gpu, async () => readHalfTexels(gpu, await sheenAlbedoTable(gpu), 0, 0, 1));
    const last = SHEEN_ALBEDO_SIZE - 1;
    const at = (i: number, j: number) => table[j * SHEEN_ALBEDO_SIZE + i];
    const close = (value: number, reference: number) => Math.abs(value - reference) <= TOLERANCE + RELATIVE * reference;
    let swappedFails = 0;
    for (const [i, j] of POINTS) {
      const reference = referenceAlbedo(Math.max(i / last, 1e-3), j / last);
      expect(close(at(i, j), reference), `n·v ${(i / last).toFixed(3)}, roughness ${(j / last).toFixed(3)}: table ${at(i, j).toFixed(4)}, reference ${reference.toFixed(4)}`).toBe(true);
      if (!close(at(j, i), reference)) swappedFails++;
    }
    expect(swappedFails).toBeGreaterThan(POINTS.length / 2);
  }, 60_000);
});
