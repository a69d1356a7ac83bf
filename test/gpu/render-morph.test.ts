/**
 * Morph targets in the Renderer's vertex stage (shaders/morph.wgsl), before skinning, for
 * rigid and skinned draws, with weights from `instance.pose.weights` (animated by `weights`
 * channels). Checked by silhouette against the CPU reference (src/skin/morph.ts, and
 * bakeModel for morph + skin), on SimpleMorph, the code-built morphed skin, a row of ten
 * targets (the largest eight win) and RobotExpressive's face.
 * PNGs: test-artifacts/morph-*.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { TargetPath } from '../../src/gltf/constants.ts';
import type { Clip, Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { DebugView } from '../../src/gpu/debug/views.ts';
import { drawIndices } from '../../src/gltf/topology.ts';
import { MAX_ACTIVE_MORPH_TARGETS } from '../../src/gpu/model/morph-targets.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { SKINNING_METHODS, type SkinningMethod } from '../../src/anim/skinning-method.ts';
import { applyMorphTargets, createMorphedVertices } from '../../src/skin/morph.ts';
import { assetPath } from '../support/assets.ts';
import { buildMorphedSkin } from '../support/fixtures.ts';
import { nodeImageDecoder, writeArtifactPng } from '../support/png.ts';
import { buildMorphRow } from './fixtures.ts';
import { expectNoGpuErrors, loadModel, luma, OffscreenScene, pixel, projectToPixel, testDevice, countGpuCalls, type Frame } from './gpu-test.ts';
import { compareCoverage, overBackdrop, sampleMask, samplesCovered, transformPositions, type CoverageComparison } from './silhouette.ts';

const device = await testDevice();
const SIZE = 128;

/** World positions of every rigid primitive of the instance, morphed on the CPU by `weights` (default: the pose's). */
function rigidCoverage(scene: OffscreenScene, weights?: Float32Array): Uint8Array {
  const { model, nodeMatrices, pose } = scene.instance;
  const mask = new Uint8Array(scene.width * scene.height);
  for (const mn of model.meshNodes) {
    if (mn.skin >= 0) continue;
    const slot = model.hierarchy.slotOf[mn.node];
    for (const prim of model.meshes[mn.mesh].primitives) {
      const o = pose.weightOffsets[slot];
      const morphed = applyMorphTargets(prim, weights ?? pose.weights, weights ? 0 : o, pose.weightOffsets[slot + 1] - o, createMorphedVertices(prim));
      const material = prim.material >= 0 ? model.materials[prim.material] : undefined;
      sampleMask(scene.camera, scene.width, scene.height, {
        positions: transformPositions(morphed.positions, nodeMatrices, slot * 16), indices: drawIndices(prim), cull: material?.doubleSided ? 'none' : 'back',
      }, mask);
    }
  }
  return samplesCovered(mask);
}

/** CPU sample counts of the baked (morphed, skinned, world-space) primitives. */
function bakedCoverage(scene: OffscreenScene, model: Model, time: number, skinning: SkinningMethod): Uint8Array {
  const mask = new Uint8Array(scene.width * scene.height);
  for (const b of bakeModel(model, { animation: 0, time, skinning }).primitives) {
    const prim = model.meshes[b.mesh].primitives[b.primitive];
    sampleMask(scene.camera, scene.width, scene.height, { positions: b.positions, indices: drawIndices(prim), cull: 'back' }, mask);
  }
  return samplesCovered(mask);
}

/** Silhouette agreement: at most a few pixels off by 2+ samples, edge pixels off by one. */
function expectSameSilhouette(c: CoverageComparison, what: string): void {
  expect(c.covered, `${what}: ${JSON.stringify(c)}`).toBeGreaterThan(150);
  expect(c.wrong, `${what}: ${JSON.stringify(c)}`).toBeLessThanOrEqual(4);
  expect(c.offByOne, `${what}: ${JSON.stringify(c)}`).toBeLessThan(c.covered * 0.15);
}

function changedPixels(a: Frame, b: Frame, x0 = 0, y0 = 0, x1 = a.width, y1 = a.height): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) {
    const p = pixel(a, x, y), q = pixel(b, x, y);
    if (Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]) + Math.abs(p[3] - q[3]) > 12) n++;
  }
  return n;
}

/**
 * `model` with the weights channels of clip `name` keyed to blend its three expressions:
 * RobotExpressive's clips do carry `weights` channels for the face, but every key is 0.
 * Same key times; weights (1 − u, u, 0) at u = t / duration, so the face goes from
 * "Angry" to "Surprised" over the clip.
 */
function withExpressionKeys(model: Model, name: string): Model {
  const animations = model.animations.map((clip): Clip => {
    if (clip.name !== name) return clip;
    return {
      ...clip,
      channels: clip.channels.map((ch) => {
        if (ch.path !== TargetPath.WEIGHTS) return ch;
        const values = new Float32Array(ch.sampler.values.length);
        ch.sampler.times.forEach((t, k) => {
          const u = t / clip.duration;
          values.set([1 - u, u, 0], k * ch.sampler.components);
        });
        return { ...ch, sampler: { ...ch.sampler, values } };
      }),
    };
  });
  return { ...model, animations };
}

describe.skipIf(!device)('morph targets in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  function look(target: readonly number[], distance: number, yaw = 0, pitch = 0): void {
    const c = scene.camera;
    c.target.set(target);
    c.yaw = yaw;
    c.pitch = pitch;
    c.distance = distance;
    c.near = 0.05;
    c.far = 100;
  }

  it('SimpleMorph (rigid, 2 targets): at every time the triangle covers what the CPU-morphed one does', async () => {
    const model = await loadModel(readFileSync(assetPath('SimpleMorph')), 'SimpleMorph');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      look([0.5, 1.25, 0], 4.8);
      const frames: Frame[] = [];
      // Keys (0,0) (0,1) (1,1) (1,0) (0,0) at 0…4 s, and the node's rest weights (½, ½).
      for (const [clip, time] of [[-1, 0], [0, 0], [0, 0.5], [0, 1], [0, 2], [0, 2.75], [0, 3]] as const) {
        const frame = await scene.pose(clip, time).render();
        frames.push(frame);
        if (clip === 0 && time === 2) writeArtifactPng('morph-simple-t2', SIZE, SIZE, overBackdrop(frame));
        const what = clip < 0 ? 'rest weights' : `t=${time}`;
        expectSameSilhouette(compareCoverage(frame, rigidCoverage(scene)), what);
        const weights = scene.instance.pose.weights;
        if (weights[0] !== 0 || weights[1] !== 0) {
          // The unmorphed triangle is clearly another silhouette.
          expect(compareCoverage(frame, rigidCoverage(scene, new Float32Array(2))).wrong, `${what} vs no morph`).toBeGreaterThan(100);
        }
      }
      expect(changedPixels(frames[1], frames[4])).toBeGreaterThan(300);
    });
  });

  it(`more than ${MAX_ACTIVE_MORPH_TARGETS} non-zero weights: the ${MAX_ACTIVE_MORPH_TARGETS} largest are applied (all ten target indices reachable)`, async () => {
    // Ten targets, each lifting its own triangle; the smallest two weights (targets 3 and 8) are dropped.
    const weights = [0.9, 0.6, 0.8, 0.05, 0.7, -0.9, 1, 0.5, 0.1, 0.75];
    const model = await loadModel(buildMorphRow(weights), 'morph row');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      look([4.9, 0.9, 0], 14);
      const frame = await scene.pose(-1, 0).render();
      writeArtifactPng('morph-row-ten-targets', SIZE, SIZE, overBackdrop(frame));
      const chosen = Float32Array.from(weights, (w, t) => (t === 3 || t === 8 ? 0 : w));
      expectSameSilhouette(compareCoverage(frame, rigidCoverage(scene, chosen)), 'the largest eight');
      // With every weight (the CPU reference) targets 3 and 8 would lift their triangles too.
      expect(compareCoverage(frame, rigidCoverage(scene, Float32Array.from(weights))).wrong).toBeGreaterThan(20);
    });
  });

  it('morphed skin (1 joint, 2 targets, weights clip): morphed, then skinned, where the CPU bake puts it, for both methods', async () => {
    const model = await loadModel(buildMorphedSkin(), 'morphed skin');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      // Oblique: the targets push vertices along z, which a front view would not show.
      look([0.4, 2.5, 0.4], 3.1, -0.5, -0.3);
      for (const skinning of SKINNING_METHODS) {
        scene.renderer.settings.skinning = skinning;
        await scene.renderer.prepareSkinning();
        for (const time of [0, 0.5, 1]) {
          const frame = await scene.pose(0, time).render();
          expect(scene.renderer.skinning).toBe(skinning);
          writeArtifactPng(`morph-skin-${skinning}-t${time}`, SIZE, SIZE, overBackdrop(frame));
          expectSameSilhouette(compareCoverage(frame, bakedCoverage(scene, model, time, skinning)), `${skinning} t=${time}`);
        }
        // t = 1 (weights 1, ½) is not the rest triangle.
        const frame = await scene.pose(0, 1).render();
        expect(compareCoverage(frame, bakedCoverage(scene, model, 0, skinning)).wrong).toBeGreaterThan(100);
      }
    }).finally(() => {
      scene.renderer.settings.skinning = 'linear';
    });
  });

  it('debug NORMALS and TANGENTS of a morphed skin leave the morphed, skinned vertices along the morphed directions', async () => {
    const model = await loadModel(buildMorphedSkin(), 'morphed skin');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      // From above: x across, z down the image, so the morphed and unmorphed normals of vertex 0 part clearly.
      look([0.6, 2.5, 0.8], 4.5, 0, 1.2);
      s.debugLineLength = 0.6;
      s.debug = DebugView.NORMALS;
      await scene.renderer.prepareDebugViews();
      try {
        const frame = await scene.pose(0, 1).render();
        writeArtifactPng('morph-skin-normals-t1', SIZE, SIZE, overBackdrop(frame));
        const baked = bakeModel(model, { time: 1 }).primitives[0];
        const blueNear = (p: number[]): boolean => {
          const [x, y] = projectToPixel(scene.camera, SIZE, SIZE, p);
          for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
            const [r, g, b] = pixel(frame, x + dx, y + dy);
            if (b > 150 && b > r + 60 && b > g + 20) return true;
          }
          return false;
        };
        for (let v = 0; v < 3; v++) {
          const at = (k: number, n: ArrayLike<number>) => [0, 1, 2].map((c) => baked.positions[v * 3 + c] + k * n[v * 3 + c]);
          expect(blueNear(at(0.4, baked.normals!)), `vertex ${v}: line along the morphed normal`).toBe(true);
        }
        // Vertex 0's normal is morphed from +z to (1, 0, 1)/√2: nothing along the unmorphed one.
        expect(blueNear([0, 1, 2].map((c) => baked.positions[c] + (c === 2 ? 0.4 : 0)))).toBe(false);

        // TANGENTS (w = −1: the mirrored colour), from the front: vertex 1's tangent is morphed
        // from +x to (1, ½, 0)/‖·‖ by the second target (the block's third attribute).
        s.debug = DebugView.TANGENTS;
        await scene.renderer.prepareDebugViews();
        look([0.6, 2.5, 0.8], 4.5, 0, 0);
        const front = await scene.pose(0, 1).render();
        writeArtifactPng('morph-skin-tangents-t1', SIZE, SIZE, overBackdrop(front));
        const yellowNear = (p: number[]): boolean => {
          const [x, y] = projectToPixel(scene.camera, SIZE, SIZE, p);
          for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
            const [r, g, b] = pixel(front, x + dx, y + dy);
            if (r > 150 && g > 150 && b < 110) return true;
          }
          return false;
        };
        const t = baked.tangents!;
        expect(t[1 * 4 + 3]).toBe(-1);
        expect(t[1 * 4 + 1], 'the CPU morphs the tangent').toBeGreaterThan(0.4);
        // (Vertex 2's tangent runs behind the tilted triangle, which hides it.)
        for (let v = 0; v < 2; v++) {
          expect(yellowNear([0, 1, 2].map((c) => baked.positions[v * 3 + c] + 0.4 * t[v * 4 + c])), `vertex ${v}: line along the morphed tangent`).toBe(true);
        }
        expect(yellowNear([0, 1, 2].map((c) => baked.positions[3 + c] + (c === 0 ? 0.4 : 0)))).toBe(false);
      } finally {
        s.debug = 0;
        s.debugLineLength = 0;
      }
    });
  });

  it("RobotExpressive's face (a rigid head with 3 targets) follows its weights channels, where the CPU morphs it", async () => {
    const file = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    const model = withExpressionKeys(file, 'Yes');
    const clip = model.animations.findIndex((a) => a.name === 'Yes');
    const head = model.meshNodes.findIndex((mn) => model.nodes[mn.node].name === 'Head');
    expect(model.meshes[model.meshNodes[head].mesh].primitives.map((p) => p.targets.length)).toEqual([3, 3, 3]);
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      const { instance } = scene;
      const headSlot = model.hierarchy.slotOf[model.meshNodes[head].node];
      const weightsAt = instance.pose.weightOffsets[headSlot];
      // A close, frontal view of the head (the face looks along +z).
      const headCentre = (): number[] => Array.from(instance.nodeMatrices.subarray(headSlot * 16 + 12, headSlot * 16 + 15));
      const duration = model.animations[clip].duration;
      const [early, late] = [0.1 * duration, 0.9 * duration];
      scene.pose(clip, early);
      look(headCentre(), 4.5);
      const frames: Record<string, Frame> = {};
      for (const [name, time] of [['early', early], ['late', late]] as const) {
        scene.pose(clip, time);
        const w = Array.from(instance.pose.weights.subarray(weightsAt, weightsAt + 3));
        expect(w[0] + w[1], `weights at ${time}`).toBeCloseTo(1, 5);
        frames[name] = await scene.render();
        writeArtifactPng(`morph-robot-face-${name}`, SIZE, SIZE, overBackdrop(frames[name]));
        // The same pose with the weights zeroed: the morph alone changes the face.
        instance.pose.weights.fill(0, weightsAt, weightsAt + 3);
        frames[`${name} unmorphed`] = await scene.render();
        scene.pose(clip, time);
      }
      writeArtifactPng('morph-robot-face-unmorphed', SIZE, SIZE, overBackdrop(frames['late unmorphed']));
      expect(changedPixels(frames.early, frames['early unmorphed']), 'early: morphed vs not').toBeGreaterThan(40);
      expect(changedPixels(frames.late, frames['late unmorphed']), 'late: morphed vs not').toBeGreaterThan(40);
      expect(changedPixels(frames.early, frames.late), 'early vs late').toBeGreaterThan(40);

      // The face features (material "Black", the only morphed primitive) are the dark pixels
      // of the head: they sit where the CPU-morphed features project, not where the unmorphed ones do.
      const face = model.meshes[model.meshNodes[head].mesh].primitives[2];
      expect(model.materials[face.material].name).toBe('Black');
      const iou = (frame: Frame, weights: Float32Array): number => {
        const morphed = applyMorphTargets(face, weights, 0, 3, createMorphedVertices(face));
        const mask = sampleMask(scene.camera, SIZE, SIZE, {
          positions: transformPositions(morphed.positions, instance.nodeMatrices, headSlot * 16), indices: drawIndices(face), cull: 'back',
        });
        let both = 0, either = 0;
        for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
          const dark = pixel(frame, x, y)[3] === 255 && luma(frame, x, y) < 40;
          const cpu = mask[y * SIZE + x] === 0xf;
          if (dark && cpu) both++;
          if (dark || cpu) either++;
        }
        return both / Math.max(1, either);
      };
      scene.pose(clip, late);
      const lateWeights = Float32Array.from(instance.pose.weights.subarray(weightsAt, weightsAt + 3));
      const morphedIou = iou(frames.late, lateWeights);
      const unmorphedIou = iou(frames.late, new Float32Array(3));
      expect(morphedIou, `IoU with the CPU-morphed face ${morphedIou.toFixed(3)}, unmorphed ${unmorphedIou.toFixed(3)}`).toBeGreaterThan(0.6);
      expect(morphedIou - unmorphedIou).toBeGreaterThan(0.2);
    });
  });

  it('the frame path with morph targets (and DQS): 3 writeBuffers and 1 submit per frame, nothing created', async () => {
    const model = withExpressionKeys(await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive'), 'Yes');
    const clip = model.animations.findIndex((a) => a.name === 'Yes');
    const renderer = new Renderer(gpu, { format: 'rgba8unorm-srgb', imageDecoder: nodeImageDecoder, label: 'morph frame renderer' });
    renderer.settings.skinning = 'dual-quaternion';
    try {
      await expectNoGpuErrors(gpu, async () => {
        await renderer.setModel(model);
        const instance = createModelInstance(model);
        scene.camera.frame(computeInstanceBounds(instance), 1);
        renderer.render(scene.target, scene.camera, instance);
        expect(renderer.skinning).toBe('dual-quaternion');
        const frames = 6;
        const counts = countGpuCalls(gpu, () => {
          for (let f = 0; f < frames; f++) {
            updateModelInstance(instance, clip, f * 0.25);
            renderer.render(scene.target, scene.camera, instance);
          }
        });
        expect(counts).toEqual({ writeBuffer: 3 * frames, submit: frames, createCommandEncoder: frames });
        await gpu.queue.onSubmittedWorkDone();
      });
    } finally {
      renderer.destroy();
    }
  });
});
