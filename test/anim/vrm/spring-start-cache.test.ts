/**
 * VrmRuntime.updateNodeMatrices leaves the spring nodes to the springs (SpringStartCache): the
 * same frames through it and through a full localToModel give bit-identical tails and node
 * matrices, while the world moves, the head turns (a chain root's parent), a hair joint's
 * translation or rotation changes, in fixed steps with held frames, after a reset and with the
 * springs turned off and on. A cache that ignored the parent's matrix or the local T/S gives
 * tails apart from the first changed frame (checked by hand: 1.2e-2 and 1.2e-3 apart).
 */
import { describe, expect, it } from 'vitest';
import { createModelInstance, type ModelInstance } from '../../../src/anim/instance.ts';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { SpringStartCache } from '../../../src/anim/vrm/spring-start-cache.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { buildSpringBenchAvatar } from '../../support/vrm-fixtures.ts';

type Change = (inst: ModelInstance, model: Model, frame: number) => void;

const FRAMES = 240;

async function avatar(): Promise<Model> {
  return loadGltf(buildSpringBenchAvatar(buildBuiltinGlb('vrm-avatar')), { name: 'spring-bench-avatar' });
}

/** The first frame whose tails or node matrices differ between the two ways (-1: none). */
function firstDifference(model: Model, change: Change, mode: 'variable' | 'fixed', dts: readonly number[]): number {
  const full = createModelInstance(model), leftOut = createModelInstance(model);
  for (const inst of [full, leftOut]) inst.vrm!.springMode = mode;
  for (let f = 0; f < FRAMES; f++) {
    const t = f / 60;
    for (const inst of [full, leftOut]) {
      const vrm = inst.vrm!;
      vrm.worldFromModel[12] = 0.3 * Math.sin(3 * t);
      vrm.worldFromModel[14] = 0.2 * Math.cos(2 * t);
      vrm.dt = dts[f % dts.length];
      change(inst, model, f);
      if (f === 100) vrm.resetSpringBones();
      vrm.springsEnabled = !(f >= 150 && f < 160);
    }
    localToModel(model.hierarchy, full.pose, full.nodeMatrices);
    full.vrm!.run();
    leftOut.vrm!.updateNodeMatrices();
    leftOut.vrm!.run();
    const a = full.vrm!.springs!.currentTail, b = leftOut.vrm!.springs!.currentTail;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return f;
    for (let i = 0; i < full.nodeMatrices.length; i++) if (full.nodeMatrices[i] !== leftOut.nodeMatrices[i]) return f;
  }
  return -1;
}

const still: Change = () => {};
const headTurns: Change = (inst, model, f) => {
  if (f % 7 >= 4) return;
  const s = model.hierarchy.slotOf[model.humanoid!.head!] * 4, angle = 0.3 * Math.sin(f / 30);
  const R = inst.pose.rotation;
  R[s] = 0; R[s + 1] = Math.sin(angle / 2); R[s + 2] = 0; R[s + 3] = Math.cos(angle / 2);
};
const hairMoves: Change = (inst, model, f) => {
  if (f % 3 !== 0) return;
  const h = model.hierarchy, joints = model.vrm!.springBones!.jointNode;
  inst.pose.translation[h.slotOf[joints[5]] * 3 + 1] += f % 2 ? 1e-3 : -1e-3;
  // A clip's rotation on another hair joint: the springs give it back the rotation they applied.
  const r = h.slotOf[joints[13]] * 4;
  inst.pose.rotation.set([0.1, 0, 0, Math.sqrt(0.99)], r);
};

describe('VrmRuntime.updateNodeMatrices (the spring nodes computed once a frame)', () => {
  it('leaves the spring nodes out of the caller pass on the bench avatar', async () => {
    const model = await avatar();
    const vrm = createModelInstance(model).vrm!;
    const runs = vrm.springs!.startCache.outsideRuns;
    let outside = 0;
    for (let i = 0; i < runs.length; i += 2) outside += runs[i + 1] - runs[i];
    // 100 joints and their chain ends are the springs'; the body is the caller's.
    expect(model.hierarchy.count - outside).toBeGreaterThanOrEqual(100);
    expect(outside).toBeGreaterThan(0);
    vrm.updateNodeMatrices();
    expect(vrm.springs!.springNodesChecked).toBe(true);
    vrm.run();
    expect(vrm.springs!.springNodesChecked).toBe(false);
  });

  for (const [name, change] of [['the world moves', still], ['the head turns', headTurns], ['hair joints change under a clip', hairMoves]] as const) {
    it(`bit-identical to a full localToModel: ${name} (variable and fixed steps, held frames, reset, springs off and on)`, async () => {
      const model = await avatar();
      expect(firstDifference(model, change, 'variable', [1 / 60, 1 / 60, 1 / 30, 0])).toBe(-1);
      expect(firstDifference(model, change, 'fixed', [1 / 60, 1 / 30, 0.005, 0, 1 / 45])).toBe(-1);
    });
  }

  it('is not used for a joint order that is not parents-first', async () => {
    const model = await avatar();
    const springs = model.vrm!.springBones!;
    const job = createModelInstance(model).vrm!.springs!;
    expect(job.startCache.usable).toBe(true);
    const slots = Int32Array.from(springs.jointNode, (n) => model.hierarchy.slotOf[n]);
    const reversed = Int32Array.from(springs.order).reverse();
    const cache = new SpringStartCache(model.hierarchy, createModelInstance(model).pose, reversed, slots, new Int32Array(0));
    expect(cache.usable).toBe(false);
  });
});
