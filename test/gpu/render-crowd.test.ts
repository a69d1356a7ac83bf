/**
 * Renderer.renderCrowd: a Crowd's instances drawn by renderInstances at their placements,
 * palettes straight from the crowd's one array.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { writeArtifactPng } from '../support/png.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, pixel, projectToPixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const W = 192, H = 96;

describe.skipIf(!device)('Renderer.renderCrowd (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, W, H);
  });
  afterAll(() => scene?.destroy());

  /** Covered pixels in the column band of width `half`·2 around x, over the whole height. */
  function covered(f: Frame, x: number, half: number): number {
    let n = 0;
    for (let y = 0; y < H; y++) for (let px = Math.max(0, Math.round(x - half)); px < Math.min(W, Math.round(x + half)); px++) if (pixel(f, px, y)[3] > 0) n++;
    return n;
  }

  it('draws three walking characters at their placements, in one draw call per primitive, and follows their root motion', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      scene.camera.target.set([0, 0.9, 0]);
      scene.camera.distance = 7;
      const crowd = new Crowd(model, 3);
      crowd.setPlacement(0, -2, 0, 0, 0);
      crowd.setPlacement(1, 0, 0, 0, 0);
      crowd.setPlacement(2, 2, 0, 0, 0);
      crowd.play(1, 1); // Idle: stays put
      crowd.update(0);
      scene.renderer.renderCrowd(scene.target, scene.camera, crowd);
      const first = await scene.read();
      writeArtifactPng('crowd-three-characters', W, H, first.rgba);
      const stats = scene.renderer.stats;
      expect(stats.instances).toBe(3);
      expect(stats.drawCalls).toBe(model.meshes[0].primitives.length);
      expect(stats.joints).toBe(3 * crowd.paletteMatrices);
      const columns = [-2, 0, 2].map((x) => projectToPixel(scene.camera, W, H, [x, 0.9, 0])[0]);
      const gaps = [-1, 1].map((x) => projectToPixel(scene.camera, W, H, [x, 0.9, 0])[0]);
      for (const x of columns) expect(covered(first, x, 4)).toBeGreaterThan(60);

      // The crowd's palettes go up in one write straight from crowd.palettes; copies of the
      // same instances with palettes of their own (staged by the renderer) draw the same pixels.
      const writes: { source: unknown; size: number }[] = [];
      const queue = gpu.queue as unknown as Record<string, unknown>;
      const original = queue.writeBuffer as (...a: unknown[]) => unknown;
      queue.writeBuffer = (...args: unknown[]) => {
        writes.push({ source: args[2], size: args[4] as number });
        return original.apply(gpu.queue, args);
      };
      try {
        scene.renderer.renderCrowd(scene.target, scene.camera, crowd);
      } finally {
        queue.writeBuffer = original;
      }
      const paletteBytes = crowd.paletteMatrices * 64;
      expect(writes.filter((w) => w.source === crowd.palettes.buffer)).toEqual([{ source: crowd.palettes.buffer, size: 3 * paletteBytes }]);
      const copies = crowd.instances.map((instance) => ({ ...instance, palette: instance.palette.slice() }));
      scene.renderer.renderInstances(scene.target, scene.camera, copies, 3, crowd.placements);
      const staged = await scene.read();
      let differing = 0;
      for (let i = 0; i < staged.rgba.length; i++) if (staged.rgba[i] !== first.rgba[i]) differing++;
      expect(differing).toBe(0);
      for (const x of gaps) expect(covered(first, x, 1)).toBe(0);

      // Turn the outer two to walk towards +X for a second: they move by one stride, the Idle one does not.
      const turns = Float64Array.of(Math.PI / 2, 0, Math.PI / 2);
      crowd.turn(0, turns);
      crowd.turn(2, turns);
      for (let i = 0; i < 60; i++) crowd.update(1 / 60);
      scene.renderer.renderCrowd(scene.target, scene.camera, crowd);
      const moved = await scene.read();
      writeArtifactPng('crowd-three-characters-walked', W, H, moved.rgba);
      const stride = crowd.placements[12] - -2;
      expect(stride).toBeGreaterThan(1.3);
      for (const x of [-2 + stride, 0, 2 + stride]) expect(covered(moved, projectToPixel(scene.camera, W, H, [x, 0.9, 0])[0], 4)).toBeGreaterThan(60);
      expect(covered(moved, columns[0], 1)).toBe(0);
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
