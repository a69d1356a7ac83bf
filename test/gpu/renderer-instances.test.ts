/**
 * Renderer.renderInstances: many instances of one model in one pass (one instanced draw
 * call per primitive), each with its own pose and placement, blended draws sorted back to
 * front across instances. Checked against single-instance renders of the same poses.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { assetPath } from '../support/assets.ts';
import { writeArtifactPng } from '../support/png.ts';
import { buildBlendedPair } from './fixtures.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, pixel, testDevice } from './gpu-test.ts';

const device = await testDevice();
const W = 128, H = 64;

function translation(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

describe.skipIf(!device)('Renderer.renderInstances (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, W, H);
  });
  afterAll(() => scene?.destroy());

  it('two differently posed, placed instances look exactly like each rendered alone', async () => {
    const model = await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      scene.camera.target.set([0, 1, 0]);
      scene.camera.distance = 7;
      const a = createModelInstance(model);
      const b = createModelInstance(model);
      updateModelInstance(a, 0, 0);
      updateModelInstance(b, 0, 1);
      const placements = Float64Array.from([...translation(-1.6, 0, 0), ...translation(1.6, 0, 0)]);
      const r = scene.renderer;
      r.renderInstances(scene.target, scene.camera, [a, b], 2, placements);
      const both = await scene.read();
      writeArtifactPng('instances-two-simple-skins', W, H, both.rgba);
      expect(r.stats.drawCalls).toBe(1);
      r.renderInstances(scene.target, scene.camera, [a], 1, placements.subarray(0, 16));
      const alone = [await scene.read()];
      r.renderInstances(scene.target, scene.camera, [b], 1, placements.subarray(16, 32));
      alone.push(await scene.read());
      let covered = [0, 0], mismatched = 0;
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
        const [pa, pb, p] = [pixel(alone[0], x, y), pixel(alone[1], x, y), pixel(both, x, y)];
        // The copies do not overlap: each pixel is one copy's or background.
        const expected = pa[3] > 0 ? pa : pb;
        if (pa[3] > 0) covered[0]++;
        if (pb[3] > 0) covered[1]++;
        if (expected.some((c, i) => c !== p[i])) mismatched++;
      }
      expect(covered[0]).toBeGreaterThan(100);
      expect(covered[1]).toBeGreaterThan(100);
      expect(mismatched).toBe(0);
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  it('blended draws of all instances are sorted back to front together', async () => {
    const model = await loadModel(buildBlendedPair(), 'blended pair');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      s.toneMapping = ToneMapping.NONE;
      const near = createModelInstance(model);
      const far = createModelInstance(model);
      // The far copy 2 units behind the near one; each has red at z + 0.5 and blue at z − 0.5.
      const placements = Float64Array.from([...translation(0, 0, 0), ...translation(0, 0, -2)]);
      try {
        for (const yaw of [0, Math.PI]) {
          scene.camera.target.set([0, 0, -1]);
          scene.camera.yaw = yaw;
          scene.camera.distance = 5;
          // Listing order must not matter.
          for (const order of [[near, far], [far, near]]) {
            const p = order[0] === near ? placements : Float64Array.from([...placements.subarray(16), ...placements.subarray(0, 16)]);
            scene.renderer.renderInstances(scene.target, scene.camera, order, 2, p);
            const [r, , b, a] = pixel(await scene.read(), W / 2, H / 2);
            // Four half-transparent layers: the nearest one dominates (0.5 vs 0.25, 0.125, …).
            if (yaw === 0) expect(r, `front view: rgba ${[r, b, a]}`).toBeGreaterThan(b + 30);
            else expect(b, `back view: rgba ${[r, b, a]}`).toBeGreaterThan(r + 30);
          }
        }
      } finally {
        s.toneMapping = ToneMapping.PBR_NEUTRAL;
        scene.camera.yaw = 0;
      }
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  it('grows its buffers for more instances once, then allocates nothing; rejects too few placements and other models', async () => {
    const model = await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      const crowd = Array.from({ length: 5 }, () => createModelInstance(model));
      scene.renderer.renderInstances(scene.target, scene.camera, crowd, 5);
      const created: string[] = [];
      const dev = gpu as unknown as Record<string, unknown>;
      const original = dev.createBuffer as (...a: unknown[]) => unknown;
      dev.createBuffer = (...args: unknown[]) => { created.push('createBuffer'); return original.apply(gpu, args); };
      try {
        for (const n of [1, 3, 5, 2]) scene.renderer.renderInstances(scene.target, scene.camera, crowd, n);
      } finally {
        dev.createBuffer = original;
      }
      expect(created).toEqual([]);
      expect(() => scene.renderer.renderInstances(scene.target, scene.camera, crowd, 2, new Float64Array(16))).toThrow(/placement floats/);
      const other = createModelInstance(await loadModel(buildBlendedPair(), 'other'));
      expect(() => scene.renderer.renderInstances(scene.target, scene.camera, [crowd[0], other], 2)).toThrow(/instance is of model/);
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
