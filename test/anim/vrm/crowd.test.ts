/**
 * Crowds of VRM avatars: every instance runs its own VRM steps on the CPU evaluator (spring
 * bones in its own world: its placement), equal to a single avatar stepped alone with the same
 * clip, time and world; the GPU evaluator cannot run them, so 'auto' stays on the CPU and
 * 'gpu' is refused, naming why.
 */
import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/anim/crowd.ts';
import { createModelInstance, updateMatricesAndPalettes } from '../../../src/anim/instance.ts';
import { setRestPose } from '../../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../../src/anim/sample.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { chooseCrowdEvaluator, gpuCrowdUnsupported } from '../../../src/crowd/evaluator-choice.ts';
import { loadGltf } from '../../../src/gltf/load.ts';

describe('VRM crowds', () => {
  it('each instance springs in its own world, as one avatar stepped alone', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    const crowd = new Crowd(model, 3);
    crowd.setPlacement(0, 0, 0, 0, 0);
    crowd.setPlacement(1, 2, 0, 0, 1.2);
    crowd.setPlacement(2, -2, 0, 1, -0.5);
    // Idle: a clip in place (the crowd would lock a travelling root).
    for (let k = 0; k < 3; k++) crowd.play(k, 1, k * 0.3);
    // One avatar alone, with instance 1's clip, time and placement.
    const alone = createModelInstance(model);
    const cursor = createClipCursor(model.animations[1]);
    const dt = 1 / 60;
    // Placed, not walked there: its springs start at rest where it stands (as setPlacement does for the crowd's).
    alone.vrm!.resetSpringBones();
    for (let f = 0; f < 90; f++) {
      crowd.update(dt);
      setRestPose(model, alone.pose);
      sampleClip(cursor, crowd.time[1], alone.pose);
      alone.vrm!.worldFromModel.set(crowd.placements.subarray(16, 32));
      alone.vrm!.dt = dt;
      updateMatricesAndPalettes(alone);
    }
    const a = crowd.instances[1].nodeMatrices, b = alone.nodeMatrices;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
    expect(diff).toBe(0);
    // The instances' hair differs: their walks and worlds differ.
    const hair = model.hierarchy.slotOf[model.nodes.findIndex((n) => n.name === 'HairBack3')];
    const r0 = crowd.instances[0].pose.rotation.subarray(hair * 4, hair * 4 + 4), r2 = crowd.instances[2].pose.rotation.subarray(hair * 4, hair * 4 + 4);
    expect(Math.max(...r0.map((v, i) => Math.abs(v - r2[i])))).toBeGreaterThan(1e-3);
  });

  it('a teleport (setPlacement, wrapping round the area) starts the hair at rest, not whipping across the jump', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    const crowd = new Crowd(model, 2);
    crowd.placeOnGrid(1.5);
    for (let k = 0; k < 2; k++) crowd.play(k, 1, 0);
    const dt = 1 / 60;
    for (let f = 0; f < 60; f++) crowd.update(dt);
    /** The fastest spring tail of instance k over the last step, m/s. */
    const fastestTail = (k: number): number => {
      const s = crowd.instances[k].vrm!.springs!;
      let max = 0;
      for (let i = 0; i < s.currentTail.length; i += 3) max = Math.max(max, Math.hypot(s.currentTail[i] - s.prevTail[i], s.currentTail[i + 1] - s.prevTail[i + 1], s.currentTail[i + 2] - s.prevTail[i + 2]) / dt);
      return max;
    };
    const walking = fastestTail(0);
    crowd.setPlacement(1, 40, 0, -25, 2);
    crowd.update(dt);
    // 47 m in one frame would drag the tails at ~2,800 m/s; reset, they move as the idle body does.
    expect(fastestTail(1)).toBeLessThan(Math.max(1, 4 * walking));
    const area = Float64Array.of(-5, -5, 5, 5);
    crowd.setPlacement(0, 4.9, 0, 0, 0);
    crowd.update(dt);
    crowd.placements[12] = 5.2;
    crowd.wrapPlacements(area);
    expect(crowd.placements[12]).toBeCloseTo(-4.8, 9);
    crowd.update(dt);
    expect(fastestTail(0)).toBeLessThan(Math.max(1, 4 * walking));
  });

  it("keeps a VRM crowd off the GPU evaluator: 'auto' takes the CPU, 'gpu' is refused naming why", async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    expect(gpuCrowdUnsupported(model)).toMatch(/VRM spring bones run per instance on the CPU/);
    const device = {} as GPUDevice;
    expect(chooseCrowdEvaluator({ evaluator: 'auto', device }, 5000, model)).toBe('cpu');
    expect(() => chooseCrowdEvaluator({ evaluator: 'gpu', device }, 10, model)).toThrow(/cannot draw .*VRM spring bones/);
    expect(gpuCrowdUnsupported(await loadGltf(buildBuiltinGlb('character')))).toBeUndefined();
  });
});
