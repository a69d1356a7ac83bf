/**
 * The GPU side of the PBR material extension fuzz (test/gltf/extensions/pbr-material-fuzz.test.ts):
 * the same mutated materials (test/support/pbr-fuzz.ts, same seed) that load are uploaded and drawn
 * by the Renderer, and none gives a WebGPU validation error; each draws something (the quad is
 * not dropped). FUZZ_PBR_GPU_CASES scales it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { Rng } from '../support/fuzz.ts';
import { everyExtensionQuad, mutatePbrJson } from '../support/pbr-fuzz.ts';
import { expectNoGpuErrors, OffscreenScene, testDevice } from './gpu-test.ts';

const device = await testDevice();
const CASES = Number(process.env.FUZZ_PBR_GPU_CASES ?? 24);
const SIZE = 24;

describe.skipIf(!device)('mutated PBR extension materials on the GPU (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  it(`the mutated materials that load draw with no WebGPU error (${CASES} loaded cases)`, async () => {
    const rng = new Rng(1, 26);
    const source = parseGlb(everyExtensionQuad());
    let drawn = 0, warned = 0;
    for (let c = 0; drawn < CASES && c < 50 * CASES; c++) {
      const json = structuredClone(source.json) as Record<string, any>;
      const notes = mutatePbrJson(json, rng);
      let model: Model;
      try {
        model = await loadGltf(encodeGlb(json, source.bin), { name: `case ${c}` });
      } catch {
        continue; // refused by name: the loader's fuzz checks how
      }
      if (model.warnings.length > 0) warned++;
      const frame = await expectNoGpuErrors(gpu, async () => {
        await scene.setModelHeadOn(model, 2.6);
        scene.pose(-1, 0);
        // Again once built when the first frame asked for pipelines (a mutated material's transmission pass).
        const f = await scene.renderSettled();
        await gpu.queue.onSubmittedWorkDone();
        return f;
      });
      let covered = 0;
      for (let p = 3; p < frame.rgba.length; p += 4) if (frame.rgba[p] > 0) covered++;
      expect(covered, `case ${c}: ${notes.join('; ')}`).toBeGreaterThan(SIZE * SIZE / 8);
      drawn++;
    }
    expect(drawn).toBe(CASES);
    // The clamps were exercised, not only values that were already in range.
    expect(warned).toBeGreaterThan(0);
  }, 600_000);
});
