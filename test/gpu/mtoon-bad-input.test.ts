/**
 * The GPU side of MToon's bad input (the loader's side is test/gltf/extensions/mtoon-fuzz.test.ts
 * and vrmc-materials-mtoon.test.ts): files whose MToon JSON was mutated, whose MToon values lie
 * outside their ranges or whose MToon textures are missing are drawn by the Renderer on Dawn
 * inside validation, out-of-memory and internal error scopes. None may raise a WebGPU error,
 * and each must still draw its model (a broken MToon value never drops the surface).
 * FUZZ_MTOON_GPU_CASES scales the fuzz part (default 24; every case builds pipelines on
 * SwiftShader, so it is kept small here and the loader's pass does the volume).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { GltfError } from '../../src/gltf/errors.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { Rng } from '../support/fuzz.ts';
import { buildMToonFile, mtoonFuzzSources, mtoonMaterial, mutateMToonJson } from '../support/mtoon-fixtures.ts';
import { coverage, expectNoGpuErrors, OffscreenScene, testDevice } from './gpu-test.ts';

const CASES = Number(process.env.FUZZ_MTOON_GPU_CASES ?? 24);
const SEED = Number(process.env.FUZZ_MTOON_SEED ?? 1);
const SIZE = 48;

const device = await testDevice();

describe.skipIf(!device)('MToon bad input on the GPU (Dawn)', () => {
  const gpu = device!;

  /** Draws `model` framed, inside the error scopes; returns the share of pixels it covers. */
  async function drawn(scene: OffscreenScene, model: Model): Promise<number> {
    await expectNoGpuErrors(gpu, () => scene.setModel(model));
    return coverage(await expectNoGpuErrors(gpu, () => scene.render()));
  }

  it(`${CASES} mutated MToon files draw without a WebGPU error`, async () => {
    const rng = new Rng(SEED, 25);
    const sources = mtoonFuzzSources().map((s) => ({ name: s.name, glb: parseGlb(s.bytes) }));
    sources.push({ name: 'UV animation sample', glb: parseGlb(readFileSync('../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm')) });
    const scene = new OffscreenScene(gpu, SIZE, SIZE);
    let drawnCases = 0, mtoonCases = 0;
    for (let c = 0; c < CASES; c++) {
      const source = sources[c % sources.length];
      const json = structuredClone(source.glb.json) as Record<string, unknown>;
      const notes = mutateMToonJson(json, rng);
      let model: Model;
      try {
        model = await loadGltf(encodeGlb(json, source.glb.bin));
      } catch (e) {
        // The only refusal (glTF's schema): an extension value that is not an object.
        expect(e instanceof GltfError && /\.extensions\.VRMC_materials_mtoon$/.test(e.path), `case ${c}: ${(e as Error).message}`).toBe(true);
        continue;
      }
      if (model.materials.some((m) => m.mtoon)) mtoonCases++;
      const covered = await drawn(scene, model).catch((e: Error) => { throw new Error(`case ${c} (${source.name}): ${notes.join('; ')}: ${e.message}`); });
      if (covered > 0.02) drawnCases++;
    }
    scene.destroy();
    expect(mtoonCases).toBeGreaterThan(CASES * 0.8);
    expect(drawnCases).toBeGreaterThan(CASES * 0.8);
  }, 600_000);

  it('out-of-range values and missing textures warn by JSON path, and the material still draws as MToon', async () => {
    const file = buildMToonFile({
      spheres: [{ center: [0, 0, 0], radius: 0.5, material: 0 }],
      materials: [mtoonMaterial({
        shadingToonyFactor: 7, giEqualizationFactor: -3, shadeColorFactor: [2, -1, 0.5], outlineWidthMode: 'worldCoordinates', outlineWidthFactor: -0.2,
        parametricRimFresnelPowerFactor: -4, renderQueueOffsetNumber: 40,
        shadeMultiplyTexture: { index: 99 }, matcapTexture: { index: -1 }, outlineWidthMultiplyTexture: { index: 0, texCoord: 7 },
      })],
    });
    const model = await loadGltf(file);
    const paths = model.warnings.map((w) => w.path);
    for (const key of ['shadingToonyFactor', 'giEqualizationFactor', 'shadeColorFactor', 'outlineWidthFactor', 'parametricRimFresnelPowerFactor', 'renderQueueOffsetNumber', 'shadeMultiplyTexture', 'matcapTexture']) {
      expect(paths.some((p) => p.startsWith(`materials[0].extensions.VRMC_materials_mtoon.${key}`)), `${key} in ${JSON.stringify(paths)}`).toBe(true);
    }
    expect(model.materials[0].mtoon).toBeDefined();
    const scene = new OffscreenScene(gpu, SIZE, SIZE);
    expect(await drawn(scene, model)).toBeGreaterThan(0.05);
    scene.destroy();
  });
});
