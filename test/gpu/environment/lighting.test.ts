/**
 * Image-based lighting end to end (Renderer + prefiltered Environment, Dawn on SwiftShader):
 * the white furnace, a mirror sphere under sky and ground, metal and roughness sweeps, the
 * skybox, and `neutral` and a written .hdr over every shared asset on one device.
 */
import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltfFile } from '../../../src/cli/load-file.ts';
import type { Environment } from '../../../src/gpu/environment/environment.ts';
import type { EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { parseHdr, writeHdr } from '../../../src/gpu/environment/hdr.ts';
import { neutralEnvironment } from '../../../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../../../src/gpu/environment/prefilter.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { srgbToLinear } from '../../../src/gpu/textures/textures.ts';
import { sharedAssets } from '../../support/assets.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { buildSphere } from '../fixtures.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, pixel, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice('lighting test device');
const SIZE = 64;

function uniformImage(l: number): EquirectImage {
  return { width: 32, height: 16, rgb: new Float32Array(32 * 16 * 3).fill(l) };
}

function skyGround(sky: readonly number[], ground: readonly number[]): EquirectImage {
  const width = 64, height = 32, rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = (y < height / 2 ? sky : ground)[c];
  return { width, height, rgb };
}

/** Linear value of a stored sRGB byte. */
const linear = (byte: number) => srgbToLinear(byte / 255);

/** Pixels fully covered by the sphere, with their distance from the image centre in sphere radii. */
function spherePixels(frame: Frame, radiusPx: number): { x: number; y: number; r: number; rgb: number[] }[] {
  const out = [];
  for (let y = 0; y < frame.height; y++) for (let x = 0; x < frame.width; x++) {
    const p = pixel(frame, x, y);
    if (p[3] < 255) continue;
    const r = Math.hypot(x + 0.5 - frame.width / 2, y + 0.5 - frame.height / 2) / radiusPx;
    out.push({ x, y, r, rgb: [linear(p[0]), linear(p[1]), linear(p[2])] });
  }
  return out;
}

/** Mean linear green over the sphere's middle (normals within ~45° of the eye). */
function centreValue(frame: Frame, radiusPx: number): number {
  const px = spherePixels(frame, radiusPx).filter((p) => p.r < 0.7);
  return px.reduce((s, p) => s + p.rgb[1], 0) / px.length;
}

describe.skipIf(!device)('image-based lighting', () => {
  const gpu = device!;
  const scene = new OffscreenScene(gpu, SIZE, SIZE);
  const settings = scene.renderer.settings;
  settings.toneMapping = ToneMapping.NONE;
  // The sphere (radius 1) seen head-on from 4 units fills a known disc.
  const DISTANCE = 4;
  const radiusPx = () => (SIZE / 2) / Math.tan(scene.camera.fovY / 2) / Math.sqrt(DISTANCE * DISTANCE - 1);
  const environments = new Map<string, Promise<Environment>>();
  const environment = (name: string, image: () => EquirectImage) => {
    if (!environments.has(name)) environments.set(name, prefilterEnvironment(gpu, image(), name));
    return environments.get(name)!;
  };
  const L = 0.5;

  async function renderSphere(material: { base?: number[]; metallic: number; roughness: number }, env: Environment): Promise<Frame> {
    const bytes = buildSphere(48, 24, { pbrMetallicRoughness: { baseColorFactor: [...(material.base ?? [1, 1, 1]), 1], metallicFactor: material.metallic, roughnessFactor: material.roughness } });
    await scene.setModelHeadOn(await loadModel(bytes, 'sphere'), DISTANCE);
    scene.renderer.setEnvironment(env);
    return scene.render();
  }

  it('white furnace: a white rough dielectric sphere under uniform radiance L comes out ≈ L everywhere and never brighter', async () => {
    const env = await environment('uniform', () => uniformImage(L));
    const frame = await expectNoGpuErrors(gpu, () => renderSphere({ metallic: 0, roughness: 1 }, env));
    const px = spherePixels(frame, radiusPx());
    expect(px.length).toBeGreaterThan(0.5 * Math.PI * radiusPx() ** 2);
    // One 8-bit sRGB step around 0.5 is ~0.004 linear.
    const step = 0.005;
    for (const p of px) for (const v of p.rgb) {
      expect(v).toBeLessThanOrEqual(L + step);
      // Energy may be lost towards the rim (grazing), not in the middle.
      if (p.r < 0.8) expect(v).toBeGreaterThanOrEqual(L - step);
    }
  });

  it('with an environment the key light and hemisphere are off: a black sphere lit by a black environment is black', async () => {
    const env = await environment('black', () => uniformImage(0));
    settings.lightIntensity = 100;
    settings.skyColor.set([5, 5, 5]);
    try {
      const frame = await renderSphere({ metallic: 0, roughness: 0.5 }, env);
      for (const p of spherePixels(frame, radiusPx())) expect(Math.max(...p.rgb)).toBe(0);
      // Without it the legacy light shows.
      scene.renderer.setEnvironment(undefined);
      const legacy = await scene.render();
      expect(Math.max(...spherePixels(legacy, radiusPx()).map((p) => p.rgb[1]))).toBeGreaterThan(0.5);
    } finally {
      settings.lightIntensity = 3;
      settings.skyColor.set([0.42, 0.45, 0.5]);
    }
  });

  it('a mirror sphere under sky and ground: its upper half reflects the sky, its lower half the ground', async () => {
    const sky = [0.1, 0.25, 0.7], ground = [0.6, 0.3, 0.05];
    const env = await environment('sky-ground', () => skyGround(sky, ground));
    const frame = await renderSphere({ metallic: 1, roughness: 0 }, env);
    const px = spherePixels(frame, radiusPx());
    const upper = px.filter((p) => p.y + 0.5 < SIZE / 2 - 2 && p.r < 0.9), lower = px.filter((p) => p.y + 0.5 > SIZE / 2 + 2 && p.r < 0.9);
    expect(upper.length).toBeGreaterThan(100);
    expect(lower.length).toBeGreaterThan(100);
    for (const p of upper) expect(p.rgb[2], `(${p.x}, ${p.y}) blue over red`).toBeGreaterThan(p.rgb[0] * 2);
    for (const p of lower) expect(p.rgb[0], `(${p.x}, ${p.y}) red over blue`).toBeGreaterThan(p.rgb[2] * 2);
    // A white mirror gives back the colours themselves (f0 = 1), near the middle of each half.
    const mean = (set: typeof px, c: number) => set.reduce((s, p) => s + p.rgb[c], 0) / set.length;
    expect(mean(upper.filter((p) => p.r < 0.6), 2)).toBeGreaterThan(sky[2] * 0.85);
    expect(mean(lower.filter((p) => p.r < 0.6), 0)).toBeGreaterThan(ground[0] * 0.85);
  });

  it('metal and roughness sweeps are monotone and never brighter than the furnace', async () => {
    const env = await environment('uniform', () => uniformImage(L));
    const furnace = centreValue(await renderSphere({ metallic: 0, roughness: 1 }, env), radiusPx());
    const steps = [0, 0.25, 0.5, 0.75, 1];
    const metal: number[] = [], roughMetal: number[] = [], roughDielectric: number[] = [];
    for (const m of steps) metal.push(centreValue(await renderSphere({ metallic: m, roughness: 0.6 }, env), radiusPx()));
    for (const r of steps) roughMetal.push(centreValue(await renderSphere({ metallic: 1, roughness: r }, env), radiusPx()));
    for (const r of steps) roughDielectric.push(centreValue(await renderSphere({ metallic: 0, roughness: r }, env), radiusPx()));
    const quantum = 0.005;
    for (const series of [metal, roughMetal, roughDielectric]) {
      for (const v of series) expect(v).toBeLessThanOrEqual(furnace + quantum);
      // Non-increasing: more metal (white base) or rougher metal only loses energy.
      for (let i = 1; i < series.length; i++) expect(series[i]).toBeLessThanOrEqual(series[i - 1] + quantum);
    }
    // And it does lose some: rough white metal is visibly darker than the furnace.
    expect(roughMetal[4]).toBeLessThan(furnace * 0.97);
    expect(metal[4]).toBeLessThan(metal[0]);
  });

  it('the skybox shows the environment behind the model: sky above the horizon, ground below', async () => {
    const sky = [0.1, 0.25, 0.7], ground = [0.6, 0.3, 0.05];
    const env = await environment('sky-ground', () => skyGround(sky, ground));
    settings.skybox = true;
    try {
      await scene.renderer.prepareSkybox();
      const frame = await expectNoGpuErrors(gpu, () => renderSphere({ metallic: 0, roughness: 1 }, env));
      const top = pixel(frame, 2, 2), bottom = pixel(frame, 2, SIZE - 3);
      expect(top[3]).toBe(255);
      expect(linear(top[2])).toBeCloseTo(sky[2], 1);
      expect(linear(bottom[0])).toBeCloseTo(ground[0], 1);
    } finally {
      settings.skybox = false;
    }
  });

  it('AgX, ACES and PBR Neutral map a bright white to near white and keep black black; none clamps', async () => {
    const env = await environment('bright', () => uniformImage(8));
    for (const mode of [ToneMapping.AGX, ToneMapping.ACES, ToneMapping.PBR_NEUTRAL, ToneMapping.NONE]) {
      settings.toneMapping = mode;
      const frame = await renderSphere({ metallic: 0, roughness: 1 }, env);
      const v = centreValue(frame, radiusPx());
      expect(v, `tone mapping ${mode}`).toBeGreaterThan(0.7);
      expect(v).toBeLessThanOrEqual(1);
    }
    settings.toneMapping = ToneMapping.AGX;
    const black = await renderSphere({ metallic: 0, roughness: 1 }, await environment('black', () => uniformImage(0)));
    expect(centreValue(black, radiusPx())).toBeLessThan(0.01);
    settings.toneMapping = ToneMapping.NONE;
  });

  it('`neutral` and a written .hdr render every shared asset and the built-in character without a WebGPU error', async () => {
    const hdr = parseHdr(writeHdr(skyGround([0.8, 0.9, 1.2], [0.3, 0.25, 0.2])));
    const lit = [await environment('neutral', () => neutralEnvironment()), await environment('hdr', () => hdr)];
    settings.toneMapping = ToneMapping.PBR_NEUTRAL;
    const models = [{ name: 'character', load: () => loadModel(buildBuiltinGlb('character'), 'character') }, ...sharedAssets().map((a) => ({ name: a.name, load: () => loadGltfFile(a.path) }))];
    for (const { name, load } of models) {
      const model = await load();
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model);
        for (const env of lit) {
          scene.renderer.setEnvironment(env);
          const frame = await scene.render();
          expect(coverage(frame), `${name} drawn`).toBeGreaterThan(0.005);
          writeArtifactPng(`ibl-${name}-${env === lit[0] ? 'neutral' : 'hdr'}`, frame.width, frame.height, frame.rgba);
        }
      });
    }
  });
});
