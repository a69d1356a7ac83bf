/**
 * Dual-quaternion skinning in the Renderer (RenderSettings.skinning): the built-in
 * twist-cylinder turned 180° collapses at the waist under linear blend skinning and keeps
 * its width under DQS; each method's image has the silhouette of its CPU reference
 * (bakeModel, double precision); the debug views follow the DQ palette; switching method
 * builds pipelines once and keeps the frame at three writeBuffers.
 * PNGs: test-artifacts/twist-lbs.png, twist-dqs.png, twist-dqs-debug-*.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { DebugView } from '../../src/gpu/debug/views.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import type { SkinningMethod } from '../../src/anim/skinning-method.ts';
import { assetPath } from '../support/assets.ts';
import { nodeImageDecoder, writeArtifactPng } from '../support/png.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, pixel, projectToPixel, testDevice, countGpuCalls, type Frame } from './gpu-test.ts';
import { bakedCoverage, compareCoverage, overBackdrop } from './silhouette.ts';

const device = await testDevice();
const W = 128, H = 256;
/** The Twist clip turns Middle 90° per second: 180° at 2 s. */
const TWIST_TIME = 2;

/** Pixels with any coverage in row y. */
function rowWidth(frame: Frame, y: number): number {
  let n = 0;
  for (let x = 0; x < frame.width; x++) if (pixel(frame, x, y)[3] > 0) n++;
  return n;
}


describe.skipIf(!device)('dual-quaternion skinning in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let twist: Model;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, W, H);
    twist = await loadModel(buildBuiltinGlb('twist-cylinder'), 'twist-cylinder');
  });
  afterAll(() => scene?.destroy());
  afterEach(() => {
    scene.renderer.settings.skinning = 'linear';
    scene.renderer.settings.debug = 0;
  });

  async function renderTwist(skinning: SkinningMethod): Promise<Frame> {
    scene.renderer.settings.skinning = skinning;
    await scene.renderer.prepareSkinning();
    const frame = await scene.render();
    expect(scene.renderer.skinning).toBe(skinning);
    return frame;
  }

  it('twist-cylinder at 180°: LBS collapses the waist, DQS keeps it; each is the silhouette of its CPU reference', async () => {
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(twist, false);
      const cam = scene.camera;
      cam.yaw = 0;
      cam.pitch = 0;
      scene.pose(-1, 0);
      cam.frame(computeInstanceBounds(scene.instance), W / H);
      scene.pose(0, TWIST_TIME);
      const lbs = await renderTwist('linear');
      const dqs = await renderTwist('dual-quaternion');
      writeArtifactPng('twist-lbs', W, H, overBackdrop(lbs));
      writeArtifactPng('twist-dqs', W, H, overBackdrop(dqs));

      // The waist: the Middle joint at y = 1, where both joints weigh ½.
      const [, waistY] = projectToPixel(cam, W, H, [0, 1, 0]);
      const diameter = projectToPixel(cam, W, H, [0.25, 1, 0])[0] - projectToPixel(cam, W, H, [-0.25, 1, 0])[0];
      const lbsWaist = rowWidth(lbs, waistY), dqsWaist = rowWidth(dqs, waistY);
      const lbsBase = rowWidth(lbs, projectToPixel(cam, W, H, [0, 0.2, 0])[1]);
      expect(diameter, 'projected cylinder diameter, pixels').toBeGreaterThan(20);
      expect(lbsWaist, `LBS waist ${lbsWaist}px of ${diameter.toFixed(1)}`).toBeLessThan(diameter * 0.2);
      expect(dqsWaist, `DQS waist ${dqsWaist}px of ${diameter.toFixed(1)}`).toBeGreaterThan(diameter * 0.9);
      // Away from the blend both methods agree: the rigid base keeps its full width.
      expect(lbsBase).toBeGreaterThan(diameter * 0.9);

      // GPU = CPU: each frame's coverage against the double-precision reference of its method.
      const cpuLbs = bakedCoverage(scene.camera, W, H, twist, { animation: 0, time: TWIST_TIME, skinning: 'linear' });
      const cpuDqs = bakedCoverage(scene.camera, W, H, twist, { animation: 0, time: TWIST_TIME, skinning: 'dual-quaternion' });
      const results = {
        lbs: compareCoverage(lbs, cpuLbs), dqs: compareCoverage(dqs, cpuDqs),
        dqsVsCpuLbs: compareCoverage(dqs, cpuLbs), lbsVsCpuDqs: compareCoverage(lbs, cpuDqs),
      };
      const detail = JSON.stringify(results);
      expect(results.lbs.covered, detail).toBeGreaterThan(1000);
      expect(results.lbs.wrong, detail).toBeLessThanOrEqual(8);
      expect(results.dqs.wrong, detail).toBeLessThanOrEqual(8);
      expect(results.lbs.offByOne, detail).toBeLessThan(results.lbs.covered * 0.1);
      expect(results.dqs.offByOne, detail).toBeLessThan(results.dqs.covered * 0.1);
      // …and the comparison can tell the methods apart.
      expect(results.dqsVsCpuLbs.wrong, detail).toBeGreaterThan(100);
      expect(results.lbsVsCpuDqs.wrong, detail).toBeGreaterThan(100);
    });
  });

  it('debug views follow the DQ palette: skeleton on the posed joints, weights/normals/wireframe on the DQS surface', async () => {
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(twist, false);
      const cam = scene.camera;
      cam.yaw = 0;
      cam.pitch = 0;
      scene.pose(-1, 0);
      cam.frame(computeInstanceBounds(scene.instance), W / H);
      scene.pose(0, TWIST_TIME);
      const s = scene.renderer.settings;
      s.skinning = 'dual-quaternion';
      await scene.renderer.prepareSkinning();
      s.debug = 0;
      const plain = await scene.render();
      const all = DebugView.SKELETON | DebugView.NORMALS | DebugView.TANGENTS | DebugView.WEIGHTS | DebugView.WIREFRAME;
      await scene.renderer.prepareDebugViews(all);
      expect(scene.renderer.debugViewsReady & all).toBe(all);
      const [, waistY] = projectToPixel(cam, W, H, [0, 1, 0]);
      const diameter = projectToPixel(cam, W, H, [0.25, 1, 0])[0] - projectToPixel(cam, W, H, [-0.25, 1, 0])[0];
      try {
        for (const [name, view] of Object.entries(DebugView)) {
          // BOUNDS draws the culling box, not the surface or the palette (test/gpu/draw/cpu-culling.test.ts); here
          // the DQS-padded box of the twisted strip lies outside the tight framing.
          if (view === DebugView.BOUNDS) continue;
          s.debug = view;
          const frame = await scene.render();
          writeArtifactPng(`twist-dqs-debug-${name.toLowerCase()}`, W, H, overBackdrop(frame));
          let changed = 0;
          for (let i = 0; i < frame.rgba.length; i += 4) if (Math.abs(frame.rgba[i] - plain.rgba[i]) + Math.abs(frame.rgba[i + 1] - plain.rgba[i + 1]) + Math.abs(frame.rgba[i + 2] - plain.rgba[i + 2]) > 24) changed++;
          expect(changed, `${name} changes the image`).toBeGreaterThan(40);
          // The surface-based views are drawn on the DQS surface: the waist keeps its width.
          if (view !== DebugView.SKELETON) expect(rowWidth(frame, waistY), `${name} waist`).toBeGreaterThan(diameter * 0.9);
          if (view === DebugView.WEIGHTS) {
            // Same vertex stage as the shaded DQS surface: same coverage.
            let differing = 0;
            for (let i = 3; i < frame.rgba.length; i += 4) if (frame.rgba[i] !== plain.rgba[i]) differing++;
            expect(differing, 'weights-view coverage vs shaded').toBe(0);
          }
          if (view === DebugView.SKELETON) {
            // Joint discs at the CPU's posed joints (DqJoint entries applied to bind positions).
            const skin = twist.skins[0];
            for (let j = 0; j < skin.joints.length; j++) {
              const slot = skin.jointSlots[j];
              const world = Array.from(scene.instance.nodeMatrices.subarray(slot * 16 + 12, slot * 16 + 15));
              const [x, y] = projectToPixel(cam, W, H, world);
              const [r, g, b] = pixel(frame, x, y);
              expect(r > 200 && g > 60 && g < 200 && b < 110, `joint ${j} disc at (${x.toFixed(1)}, ${y.toFixed(1)}): ${[r, g, b]}`).toBe(true);
            }
          }
        }
      } finally {
        s.debug = 0;
      }
    });
  });

  it('switching method: frames keep the old one until its pipelines are built, once; rigid pipelines are shared', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const renderer = new Renderer(gpu, { format: 'rgba8unorm-srgb', imageDecoder: nodeImageDecoder, label: 'dqs switch renderer' });
      try {
        // Four skinned primitives sharing one layout and alpha mode: one pipeline per method.
        const character = await loadModel(buildBuiltinGlb('character'), 'character');
        await renderer.setModel(character);
        expect(renderer.pipelineCount).toBe(1);
        expect(renderer.skinning).toBe('linear');
        const instance = createModelInstance(character);
        renderer.settings.skinning = 'dual-quaternion';
        renderer.render(scene.target, scene.camera, instance);
        // The first DQS frame starts the build and is drawn linear.
        expect(renderer.skinning).toBe('linear');
        await renderer.prepareSkinning();
        expect(renderer.pipelineCount).toBe(2);
        renderer.render(scene.target, scene.camera, instance);
        expect(renderer.skinning).toBe('dual-quaternion');
        // Back to linear: already built, switches on the next frame.
        renderer.settings.skinning = 'linear';
        renderer.render(scene.target, scene.camera, instance);
        expect(renderer.skinning).toBe('linear');
        expect(renderer.pipelineCount).toBe(2);
        // A rigid model: the method changes nothing, so no pipeline is added for it.
        const rigid = await loadModel(readFileSync(assetPath('SimpleMorph')), 'SimpleMorph');
        await renderer.setModel(rigid);
        const before = renderer.pipelineCount;
        await renderer.prepareSkinning('dual-quaternion');
        expect(renderer.pipelineCount).toBe(before);
        await gpu.queue.onSubmittedWorkDone();
      } finally {
        renderer.destroy();
      }
    });
  });

  it('the DQS frame path: 3 writeBuffers and 1 submit per frame, nothing created after the first frame', async () => {
    const model = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    await scene.setModel(model);
    scene.renderer.settings.skinning = 'dual-quaternion';
    await scene.renderer.prepareSkinning();
    await expectNoGpuErrors(gpu, async () => {
      scene.renderer.render(scene.target, scene.camera, scene.instance);
      expect(scene.renderer.skinning).toBe('dual-quaternion');
      const frames = 5;
      try {
        const counts = countGpuCalls(gpu, () => {
          for (let f = 0; f < frames; f++) {
            scene.pose(0, f * 0.1);
            scene.renderer.render(scene.target, scene.camera, scene.instance);
          }
        });
        expect(counts).toEqual({ writeBuffer: 3 * frames, submit: frames, createCommandEncoder: frames });
      } finally {
        scene.renderer.settings.skinning = 'linear';
      }
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
