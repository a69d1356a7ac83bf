/**
 * Frustum culling in the Renderer (src/gpu/draw/cpu-culling.ts) on Dawn (SwiftShader): instances
 * wholly outside the view are not drawn (stats and pixels), instances inside or partly
 * inside are, culling never changes the picture, and the BOUNDS debug view draws each
 * drawn instance's box as lines where the box projects.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../../src/anim/instance.ts';
import { createSkinnedBounds, SkinnedBoundsJob } from '../../../src/anim/skinned-bounds.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { InstanceCuller } from '../../../src/gpu/draw/cpu-culling.ts';
import { DebugView } from '../../../src/gpu/debug/views.ts';
import { measureAllocation } from '../../support/allocation.ts';
import { assetPath } from '../../support/assets.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, pixel, projectToPixel, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice();
const W = 160, H = 120;

function translation(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

function differing(a: Frame, b: Frame): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i++) if (a.rgba[i] !== b.rgba[i]) n++;
  return n;
}

describe.skipIf(!device)('frustum culling in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let model: Model;
  let a: ModelInstance, b: ModelInstance;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, W, H);
    model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    await scene.setModel(model);
    a = createModelInstance(model);
    b = createModelInstance(model);
    updateModelInstance(a, 0, 0.3);
    updateModelInstance(b, 0, 0.9);
  });
  afterAll(() => scene?.destroy());

  async function frame(instances: ModelInstance[], placements: number[][]): Promise<Frame> {
    scene.renderer.renderInstances(scene.target, scene.camera, instances, instances.length, Float64Array.from(placements.flat()));
    return scene.read();
  }

  it('an instance far outside the view is culled; one inside is drawn; the picture is the same as without culling', async () => {
    const r = scene.renderer;
    await expectNoGpuErrors(gpu, async () => {
      const placements = [translation(0, 0, 0), translation(50, 0, 0)];
      r.settings.culling = true;
      const culled = await frame([a, b], placements);
      expect(r.stats.instances).toBe(1);
      expect(r.stats.culled).toBe(1);
      // One instance's triangles, not two.
      const perInstance = model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + (p.indices ? p.indices.length : p.vertexCount) / 3, 0), 0);
      expect(r.stats.triangles).toBe(perInstance);
      r.settings.culling = false;
      const all = await frame([a, b], placements);
      expect(r.stats.instances).toBe(2);
      expect(r.stats.culled).toBe(0);
      r.settings.culling = true;
      writeArtifactPng('culling-one-of-two', W, H, culled.rgba);
      expect(coverage(culled)).toBeGreaterThan(0.05);
      expect(differing(culled, all)).toBe(0);
    });
  });

  it('an instance partly inside the view (straddling the left edge) is drawn', async () => {
    const r = scene.renderer;
    await expectNoGpuErrors(gpu, async () => {
      // Slide the second instance left until its box straddles the left frustum plane.
      let x = 0;
      let seen: Frame | undefined;
      for (let step = 0; step < 40; step++) {
        x -= 0.1;
        const f = await frame([b], [translation(x, 0, 0)]);
        let leftColumn = 0, rightColumn = 0;
        for (let y = 0; y < H; y++) {
          if (pixel(f, 0, y)[3] > 0) leftColumn++;
          if (pixel(f, 2, y)[3] > 0) rightColumn++;
        }
        if (leftColumn > 0 && rightColumn > 0 && coverage(f) < 0.02) {
          seen = f;
          break;
        }
      }
      expect(seen, 'found a placement that cuts the figure at the left edge').toBeDefined();
      expect(r.stats.culled).toBe(0);
      expect(r.stats.instances).toBe(1);
      writeArtifactPng('culling-partly-inside', W, H, seen!.rgba);
    });
  });

  it('render() of one instance behind the camera draws nothing and counts it culled', async () => {
    const r = scene.renderer;
    await expectNoGpuErrors(gpu, async () => {
      scene.camera.update(W / H);
      // Twice the eye's distance from the target, on the far side of the eye.
      const eye = scene.camera.position, target = scene.camera.target;
      const behind = [0, 1, 2].map((c) => 2 * eye[c] - target[c]);
      const f = await frame([a], [translation(behind[0], behind[1], behind[2])]);
      expect(r.stats.culled).toBe(1);
      expect(r.stats.instances).toBe(0);
      expect(r.stats.drawCalls).toBe(0);
      expect(coverage(f)).toBe(0);
      r.render(scene.target, scene.camera, a);
      expect(r.stats.culled).toBe(0);
      expect(r.stats.instances).toBe(1);
    });
  });

  it('the BOUNDS view draws the box edges where the skinned bound projects', async () => {
    const r = scene.renderer;
    await expectNoGpuErrors(gpu, async () => {
      r.settings.debug = DebugView.BOUNDS;
      await r.prepareDebugViews();
      expect(r.debugViewsReady & DebugView.BOUNDS).toBe(DebugView.BOUNDS);
      // Pulled back so the whole box is on screen.
      const distance = scene.camera.distance;
      scene.camera.distance = distance * 1.6;
      const withBox = await frame([a], [translation(0, 0, 0)]);
      expect(r.stats.drawCalls).toBeGreaterThanOrEqual(2);
      r.settings.debug = 0;
      const without = await frame([a], [translation(0, 0, 0)]);
      scene.camera.distance = distance;
      writeArtifactPng('culling-bounds-view', W, H, withBox.rgba);

      const min = new Float32Array(3), max = new Float32Array(3);
      new SkinnedBoundsJob(createSkinnedBounds(model), a, min, max).run();
      const corner = (bits: number) => [bits & 1 ? max[0] : min[0], bits & 2 ? max[1] : min[1], bits & 4 ? max[2] : min[2]];
      // Amber over the background, or over the figure (MSAA mixes the two): more red, less blue than without the box.
      const isBoundsColour = (x: number, y: number) => {
        const [r1, g1, b1, a1] = pixel(withBox, x, y), [r0, , b0] = pixel(without, x, y);
        return a1 > 0 && r1 > 100 && g1 > 50 && (r1 - b1) - (r0 - b0) > 30;
      };
      let edges = 0;
      for (let axis = 0; axis < 3; axis++) {
        for (let k = 0; k < 4; k++) {
          const other = [0, 1, 2].filter((c) => c !== axis);
          const bits = ((k & 1) << other[0]) | ((k & 2) >> 1 << other[1]);
          const p0 = projectToPixel(scene.camera, W, H, corner(bits));
          const p1 = projectToPixel(scene.camera, W, H, corner(bits | (1 << axis)));
          // A quarter of the way along (not the midpoint, where edges of the box may cross).
          for (const t of [0.3, 0.7]) {
            const x = p0[0] + t * (p1[0] - p0[0]), y = p0[1] + t * (p1[1] - p0[1]);
            if (x < 2 || y < 2 || x > W - 3 || y > H - 3) continue;
            let found = false;
            for (let dy = -1; dy <= 1 && !found; dy++) for (let dx = -1; dx <= 1 && !found; dx++) {
              if (isBoundsColour(x + dx, y + dy)) found = true;
            }
            expect(found, `edge along axis ${axis} (${k}) at (${x.toFixed(1)}, ${y.toFixed(1)})`).toBe(true);
            edges++;
          }
        }
      }
      expect(edges).toBeGreaterThanOrEqual(16);
      // Away from the box's projection nothing changes.
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((c) => projectToPixel(scene.camera, W, H, corner(c)));
      const left = Math.min(...corners.map((c) => c[0])), right = Math.max(...corners.map((c) => c[0]));
      const top = Math.min(...corners.map((c) => c[1])), bottom = Math.max(...corners.map((c) => c[1]));
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
        if (x >= left - 2 && x <= right + 2 && y >= top - 2 && y <= bottom + 2) continue;
        expect(pixel(withBox, x, y), `(${x}, ${y})`).toEqual(pixel(without, x, y));
      }
      expect(differing(withBox, without)).toBeGreaterThan(0);
    });
  });
});

describe('InstanceCuller', () => {
  it('keeps visible instances nearest first with their placements and boxes; allocates nothing per frame', async () => {
    const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const culler = new InstanceCuller(model);
    const instances = [0, 1, 2, 3].map(() => createModelInstance(model));
    // Eye at z = 10 looking down −z: z = −5 is farthest, z = 100 behind the eye.
    const { mat4 } = await import('wgpu-matrix');
    const view = mat4.lookAt([0, 1, 10], [0, 1, 0], [0, 1, 0]);
    const viewProjection = mat4.multiply(mat4.perspective(Math.PI / 3, 1, 0.1, 100), view);
    const zs = [-5, 100, 2, 0];
    const placements = Float64Array.from(zs.flatMap((z) => translation(0, 0, z)));
    culler.run(viewProjection, view, instances, 4, placements, 'linear');
    expect(culler.visibleCount).toBe(3);
    expect(culler.culledCount).toBe(1);
    expect(culler.instances.slice(0, 3)).toEqual([instances[2], instances[3], instances[0]]);
    expect(Array.from(culler.placements.subarray(0, 48)).filter((_, i) => i % 16 === 14)).toEqual([2, 0, -5]);
    // Boxes follow the placements.
    expect(culler.boxes[2]).toBeLessThan(2);
    expect(culler.boxes[5]).toBeGreaterThan(2);
    culler.run(viewProjection, view, instances, 4, placements, 'linear', false, false);
    expect(culler.visibleCount).toBe(4);
    expect(culler.instances.slice(0, 4)).toEqual(instances);
    const { rounds, clean } = await measureAllocation(() => culler.run(viewProjection, view, instances, 4, placements, 'linear'), 2_000, 32 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});
