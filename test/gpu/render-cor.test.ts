/**
 * Centre-of-rotation skinning in the Renderer (RenderSettings.skinning 'center-of-rotation'):
 * the built-in limb bent and the twist cylinder turned 180°, each image the silhouette of its
 * CPU reference (bakeModel, double precision) and told apart from the other methods'; the
 * switch waits for the model's centres as for a shader compile (frames keep the previous
 * method, never half of each); a file carrying `_CENTER_OF_ROTATION` (bake --write-centers)
 * draws the same pixels without the precomputation; a primitive over the precomputation's
 * budget warns through `onWarning` and draws as linear blending; the frame path stays at
 * three writeBuffers. PNGs: test-artifacts/cor-*.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import type { SkinningMethod } from '../../src/anim/skinning-method.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { writeCentersGlb } from '../../src/bake/write-centers.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import type { AccessorData } from '../../src/gltf/accessors.ts';
import { ComponentType } from '../../src/gltf/constants.ts';
import type { GltfWarning } from '../../src/gltf/errors.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { centersOfRotationCounters, readyCenters } from '../../src/skin/centers-of-rotation/centers.ts';
import { sharedAssets } from '../support/assets.ts';
import { nodeImageDecoder, writeArtifactPng } from '../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';
import { bakedCoverage, compareCoverage, overBackdrop } from './silhouette.ts';

const device = await testDevice();
const W = 160, H = 160;


const differingPixels = (a: Frame, b: Frame): number => {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) if (a.rgba[i] !== b.rgba[i] || a.rgba[i + 1] !== b.rgba[i + 1] || a.rgba[i + 2] !== b.rgba[i + 2] || a.rgba[i + 3] !== b.rgba[i + 3]) n++;
  return n;
};

describe.skipIf(!device)('centre-of-rotation skinning in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, W, H);
  });
  afterAll(() => scene?.destroy());
  afterEach(() => {
    scene.renderer.settings.skinning = 'linear';
  });

  async function renderWith(skinning: SkinningMethod): Promise<Frame> {
    scene.renderer.settings.skinning = skinning;
    await scene.renderer.prepareSkinning();
    const frame = await scene.render();
    expect(scene.renderer.skinning).toBe(skinning);
    return frame;
  }

  for (const [name, clip, time] of [['limb', 'Bend', 0.5], ['twist-cylinder', 'Twist', 2]] as const) {
    it(`${name} (${clip}): each method's image is the silhouette of its CPU reference, and centres of rotation are told apart`, async () => {
      await expectNoGpuErrors(gpu, async () => {
        const model = await loadModel(buildBuiltinGlb(name), name);
        await scene.setModel(model, false);
        const animation = model.animations.findIndex((c) => c.name === clip);
        scene.camera.yaw = 0;
        scene.camera.pitch = 0;
        scene.pose(-1, 0);
        scene.camera.frame(computeInstanceBounds(scene.instance), W / H);
        scene.pose(animation, time);
        const frames = { linear: await renderWith('linear'), dq: await renderWith('dual-quaternion'), cor: await renderWith('center-of-rotation') };
        writeArtifactPng(`cor-${name}`, W, H, overBackdrop(frames.cor));
        const cpu = {
          linear: bakedCoverage(scene.camera, W, H, model, { animation, time, skinning: 'linear' }),
          cor: bakedCoverage(scene.camera, W, H, model, { animation, time, skinning: 'center-of-rotation' }),
        };
        const results = {
          cor: compareCoverage(frames.cor, cpu.cor), linear: compareCoverage(frames.linear, cpu.linear),
          corVsCpuLinear: compareCoverage(frames.cor, cpu.linear),
        };
        const detail = JSON.stringify(results);
        expect(results.cor.covered, detail).toBeGreaterThan(1000);
        expect(results.cor.wrong, detail).toBeLessThanOrEqual(8);
        expect(results.cor.offByOne, detail).toBeLessThan(results.cor.covered * 0.1);
        // The comparison can tell centres of rotation from linear blending (beyond the ≤ 8 a method's own reference allows).
        expect(results.corVsCpuLinear.wrong, detail).toBeGreaterThan(8);
        if (name === 'limb') {
          // Bent, the two rotation blends differ: DQS bulges at the elbow, centres of rotation less.
          expect(differingPixels(frames.cor, frames.dq), 'centres of rotation draw what dual quaternions draw').toBeGreaterThan(20);
        } else {
          // A pure twist about the bone: the centres lie on the axis, and both methods turn the rings rigidly about it.
          expect(differingPixels(frames.cor, frames.dq)).toBeLessThanOrEqual(8);
        }
      });
    });
  }

  it('switching to centres of rotation: frames keep the old method until the centres and pipelines are ready, then switch whole', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const warnings: GltfWarning[] = [];
      const renderer = new Renderer(gpu, { format: 'rgba8unorm-srgb', imageDecoder: nodeImageDecoder, label: 'cor switch renderer', onWarning: (w) => warnings.push(w) });
      try {
        const character = await loadModel(buildBuiltinGlb('character'), 'character');
        await renderer.setModel(character);
        expect(renderer.skinning).toBe('linear');
        const instance = createModelInstance(character);
        renderer.settings.skinning = 'center-of-rotation';
        renderer.render(scene.target, scene.camera, instance);
        // The first frame that asks starts the centres and the build, and is drawn linear.
        expect(renderer.skinning).toBe('linear');
        await renderer.prepareSkinning();
        for (const mesh of character.meshes) for (const p of mesh.primitives) if (p.influences > 0) expect(readyCenters(p)?.source).toBe('computed');
        renderer.render(scene.target, scene.camera, instance);
        expect(renderer.skinning).toBe('center-of-rotation');
        // Shadows and the compute path of the method come with it.
        renderer.settings.shadows = true;
        await Promise.all([renderer.prepareShadows(), renderer.prepareComputeSkinning()]);
        renderer.settings.skinningPath = 'compute';
        renderer.render(scene.target, scene.camera, instance);
        expect(renderer.skinningPath).toBe('compute');
        expect(renderer.shadowsReady).toBe(true);
        expect(warnings).toEqual([]);
        await gpu.queue.onSubmittedWorkDone();
      } finally {
        renderer.destroy();
      }
    });
  });

  it('a model set while the setting is centres of rotation waits for its centres, as for its pipelines; the file\'s centres draw the same pixels without a precomputation', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const bytes = buildBuiltinGlb('limb');
      const withCenters = (await writeCentersGlb(bytes, await loadModel(bytes, 'limb'))).glb;
      scene.renderer.settings.skinning = 'center-of-rotation';
      const fresh = await loadModel(bytes, 'limb');
      await scene.setModel(fresh);
      expect(scene.renderer.skinning).toBe('center-of-rotation');
      scene.pose(0, 0.5);
      const computed = await scene.render();
      const before = centersOfRotationCounters.precomputed;
      const fromFile = await loadModel(withCenters, 'limb with centres');
      await scene.setModel(fromFile);
      expect(scene.renderer.skinning).toBe('center-of-rotation');
      scene.pose(0, 0.5);
      const read = await scene.render();
      expect(centersOfRotationCounters.precomputed).toBe(before);
      expect(readyCenters(fromFile.meshes[0].primitives[0])?.source).toBe('file');
      expect(differingPixels(read, computed)).toBe(0);
    });
  });

  it('a primitive over the precomputation\'s budget: a warning through onWarning, and its positions drawn as linear blending draws them', async () => {
    await expectNoGpuErrors(gpu, async () => {
      // The limb with random weights on its three joints at every vertex: the subdivision
      // makes far more joint-pair entries than the budget allows.
      const model = await loadModel(buildBuiltinGlb('limb'), 'limb');
      const prim = model.meshes[0].primitives[0];
      let seed = 5;
      const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
      const weights = new Float32Array(prim.vertexCount * 4), joints = new Uint16Array(prim.vertexCount * 4);
      for (let v = 0; v < prim.vertexCount; v++) {
        const w = [random(), random(), random()], sum = w[0] + w[1] + w[2];
        for (let i = 0; i < 3; i++) { joints[v * 4 + i] = i; weights[v * 4 + i] = w[i] / sum; }
      }
      const weightSet: AccessorData = { ...prim.weightSets[0], array: weights, componentType: ComponentType.FLOAT, normalized: false };
      const jointSet: AccessorData = { ...prim.jointSets[0], array: joints, componentType: ComponentType.UNSIGNED_SHORT };
      const noisy: Model = { ...model, meshes: [{ ...model.meshes[0], primitives: [{ ...prim, weights, joints, weightSets: [weightSet], jointSets: [jointSet] }] }] };
      const warnings: GltfWarning[] = [];
      const renderer = new Renderer(gpu, { format: 'rgba8unorm-srgb', imageDecoder: nodeImageDecoder, label: 'cor budget renderer', onWarning: (w) => warnings.push(w) });
      try {
        renderer.settings.skinning = 'center-of-rotation';
        await renderer.setModel(noisy);
        expect(renderer.skinning).toBe('center-of-rotation');
        expect(warnings).toEqual([{ path: 'meshes[0].primitives[0]', message: expect.stringMatching(/^no centres of rotation \(over the budget: .*\); its centres are its rest positions, so its positions skin as with linear blending$/) }]);
        expect(readyCenters(noisy.meshes[0].primitives[0])?.source).toBe('linear');
        // Same positions as linear blending, vertex for vertex (CPU), so the same silhouette on the GPU.
        const a = bakeModel(noisy, { time: 0.5, skinning: 'center-of-rotation' }).primitives[0].positions;
        const b = bakeModel(noisy, { time: 0.5 }).primitives[0].positions;
        // (The polar decomposition's rounding: 1e-7 of a 2.5-unit limb.)
        for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-7);
      } finally {
        renderer.destroy();
      }
    });
  });

  it('a crowd (one instanced draw per primitive, the CPU evaluator) draws each character as it draws alone', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      scene.renderer.settings.skinning = 'center-of-rotation';
      await scene.renderer.prepareSkinning();
      scene.camera.target.set([0, 0.9, 0]);
      scene.camera.distance = 7;
      const crowd = new Crowd(model, 3);
      [-2, 0, 2].forEach((x, k) => {
        crowd.setPlacement(k, x, 0, 0, 0);
        crowd.play(k, k % model.animations.length, 0.3 * k);
      });
      crowd.update(0.2);
      scene.renderer.renderCrowd(scene.target, scene.camera, crowd);
      expect(scene.renderer.skinning).toBe('center-of-rotation');
      expect(scene.renderer.stats.instances).toBe(3);
      const together = await scene.read();
      // Each alone, at its own placement, into a composite.
      const composite = new Uint8Array(together.rgba.length);
      for (let k = 0; k < 3; k++) {
        scene.renderer.renderInstances(scene.target, scene.camera, [crowd.instances[k]], 1, crowd.placements.subarray(k * 16, k * 16 + 16));
        const alone = await scene.read();
        for (let i = 0; i < alone.rgba.length; i += 4) if (alone.rgba[i + 3] > 0) composite.set(alone.rgba.subarray(i, i + 4), i);
      }
      let differing = 0, covered = 0;
      for (let i = 0; i < composite.length; i += 4) {
        if (together.rgba[i + 3] > 0) covered++;
        for (let c = 0; c < 4; c++) if (Math.abs(together.rgba[i + c] - composite[i + c]) > 1) { differing++; break; }
      }
      expect(covered).toBeGreaterThan(300);
      expect(differing).toBe(0);
    });
  });

  it('every skinned shared asset at three clip times: the vertex path draws the compute path\'s image (which the GPU bake tests hold to the CPU)', async () => {
    const small = new OffscreenScene(gpu, 96, 96);
    try {
      const s = small.renderer.settings;
      s.skinning = 'center-of-rotation';
      let checked = 0;
      for (const asset of sharedAssets()) {
        const model = await loadModel(readFileSync(asset.path), asset.name);
        if (!model.meshNodes.some((mn) => mn.skin >= 0)) continue;
        await expectNoGpuErrors(gpu, async () => {
          await small.setModel(model);
          await small.renderer.prepareSkinning();
          await small.renderer.prepareComputeSkinning();
          const duration = model.animations[0]?.duration ?? 0;
          for (const fraction of [0.1, 0.45, 0.8]) {
            small.pose(model.animations.length > 0 ? 0 : -1, duration * fraction);
            s.skinningPath = 'vertex';
            const vertex = await small.render();
            s.skinningPath = 'compute';
            const compute = await small.render();
            expect(small.renderer.skinningPath).toBe('compute');
            expect(small.renderer.skinning).toBe('center-of-rotation');
            let covered = 0, worst = 0;
            for (let i = 0; i < vertex.rgba.length; i++) {
              worst = Math.max(worst, Math.abs(vertex.rgba[i] - compute.rgba[i]));
              if (i % 4 === 3 && vertex.rgba[i] > 0) covered++;
            }
            expect(covered, `${asset.name} at ${fraction}`).toBeGreaterThan(20);
            // Identical on SwiftShader; a driver contracting differently may round a level.
            expect(worst, `${asset.name} at ${fraction}`).toBeLessThanOrEqual(2);
          }
        });
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(6);
    } finally {
      small.destroy();
    }
  });

  it('the centre-of-rotation frame path: 3 writeBuffers and 1 submit per frame, nothing created after the first frame', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    await scene.setModel(model);
    scene.renderer.settings.skinning = 'center-of-rotation';
    await scene.renderer.prepareSkinning();
    await expectNoGpuErrors(gpu, async () => {
      scene.renderer.render(scene.target, scene.camera, scene.instance);
      expect(scene.renderer.skinning).toBe('center-of-rotation');
      const frames = 5;
      const counts = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) {
          scene.pose(0, f * 0.1);
          scene.renderer.render(scene.target, scene.camera, scene.instance);
        }
      });
      expect(counts).toEqual({ writeBuffer: 3 * frames, submit: frames, createCommandEncoder: frames });
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
