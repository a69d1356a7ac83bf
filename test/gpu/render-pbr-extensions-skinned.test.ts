/**
 * A skinned character with every PBR material extension (CesiumMan as test/support/material-corpus.ts
 * writes it: all ten on its material) through the skinning paths: the vertex and the pre-skinned
 * compute path draw the same image under linear and dual-quaternion skinning, alone and as a
 * crowd of three instances, with no WebGPU error; and the extensions show (the plain CesiumMan,
 * drawn the same way, differs), so the comparisons are not of a plain material.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import type { SkinningMethod } from '../../src/anim/skinning-method.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import type { SkinningPath } from '../../src/gpu/frame/render-settings.ts';
import { assetPath } from '../support/assets.ts';
import { materialCorpusFile } from '../support/material-corpus.ts';
import { drawSettled, expectNoGpuErrors, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 128;
const CLIP_TIME = 0.6;
/** Three placements side by side (column-major 4×4, translation in x). */
const CROWD = Float64Array.from([-1, 0, 1].flatMap((x) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, 0, 1]));

/** Mean RGB difference in levels, and the share of pixels off by more than 8 levels in any channel. */
function difference(a: Frame, b: Frame): { mean: number; off: number } {
  let sum = 0, off = 0;
  for (let p = 0; p < a.rgba.length; p += 4) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a.rgba[p + c] - b.rgba[p + c]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > 8) off++;
  }
  const pixels = a.rgba.length / 4;
  return { mean: sum / (3 * pixels), off: off / pixels };
}

/** The same image up to the paths' float rounding: what "draws the same" means here. */
function expectSameImage(a: Frame, b: Frame, what: string): void {
  const d = difference(a, b);
  expect(d.mean, `${what}: mean ${d.mean.toFixed(3)} levels`).toBeLessThan(0.25);
  expect(d.off, `${what}: ${(100 * d.off).toFixed(2)}% of pixels off by > 8`).toBeLessThan(0.005);
}

describe.skipIf(!device)('PBR material extensions on a skinned character (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let extended: Model;
  let plain: Model;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    const path = assetPath('CesiumMan');
    extended = await loadGltf(await materialCorpusFile(path, 'every-extension'), { name: 'CesiumMan (every extension)' });
    plain = await loadGltf(new Uint8Array(readFileSync(path)), { name: 'CesiumMan', resolveUri: async (uri) => new Uint8Array(readFileSync(join(dirname(path), uri))) });
  }, 120_000);
  afterAll(() => scene?.destroy());

  /** `model` at CLIP_TIME with `method` on `path`: one instance, or the crowd's three. */
  async function draw(model: Model, method: SkinningMethod, path: SkinningPath, crowd: boolean): Promise<Frame> {
    const renderer = scene.renderer;
    // Each model is uploaded once (the frames below switch it twice): uploading CesiumMan with its ten extensions' textures is what a draw here costs most.
    if (renderer.model !== model) await scene.setModel(model, false);
    renderer.settings.skinning = method;
    renderer.settings.skinningPath = path;
    await renderer.prepareSkinning();
    if (path === 'compute') await renderer.prepareComputeSkinning();
    const instances = (crowd ? [0, 1, 2] : [0]).map((k) => {
      const instance = createModelInstance(model);
      updateModelInstance(instance, 0, CLIP_TIME + 0.2 * k);
      return instance;
    });
    const frame = () => {
      if (crowd) renderer.renderInstances(scene.target, scene.camera, instances, instances.length, CROWD);
      else renderer.render(scene.target, scene.camera, instances[0]);
    };
    await drawSettled(renderer, frame);
    expect(renderer.skinningPath).toBe(path);
    expect(renderer.skinning).toBe(method);
    return scene.read();
  }

  it('the vertex and compute paths draw the same image, under both skinning methods, alone and as a crowd', async () => {
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(extended);
      scene.camera.distance *= 1.6;
      const cases = (['linear', 'dual-quaternion'] as const).flatMap((method) => [false, true].map((crowd) => ({ method, crowd, name: `${method}${crowd ? ', crowd' : ''}` })));
      // Every frame of the extended character first, then the plain one's: each model set once.
      const extendedFrames = [];
      for (const c of cases) extendedFrames.push({ ...c, vertex: await draw(extended, c.method, 'vertex', c.crowd), compute: await draw(extended, c.method, 'compute', c.crowd) });
      for (const { method, crowd, name, vertex, compute } of extendedFrames) {
        expectSameImage(vertex, compute, name);
        // Wrong input: the plain material. The extensions change the picture, far beyond the paths' rounding.
        const original = await draw(plain, method, 'vertex', crowd);
        const d = difference(vertex, original);
        const rounding = difference(vertex, compute).mean;
        expect(d.mean, `${name}: extended vs plain, mean ${d.mean.toFixed(3)} (paths: ${rounding.toFixed(3)})`)
          .toBeGreaterThan(Math.max(0.5, 10 * rounding));
        expect(() => expectSameImage(vertex, original, 'plain')).toThrow();
      }
      await gpu.queue.onSubmittedWorkDone();
    });
  }, 300_000);
});
