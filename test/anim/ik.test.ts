import { describe, expect, it } from 'vitest';
import { TwoBoneIKJob } from '../../src/anim/ik.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { createPose, type Pose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetPath } from '../support/assets.ts';
import { conjQ, cross, dot, loadCharacter, modelMatrices, mulQ, norm, positionOf, sub } from './fixtures.ts';

interface Chain { a: number; b: number; c: number }
const chainOf = (model: Model, start: string, mid: string, end: string): Chain => ({ a: findSlot(model, start), b: findSlot(model, mid), c: findSlot(model, end) });

/** Runs IK on `pose` (in place) and returns the chain's model-space positions afterwards. */
function solve(model: Model, pose: Pose, chain: Chain, target: number[], pole: number[], setup: (job: TwoBoneIKJob) => void = () => {}) {
  const job = new TwoBoneIKJob(model.hierarchy, pose, modelMatrices(model, pose), chain.a, chain.b, chain.c, Float64Array.from(target), Float64Array.from(pole));
  setup(job);
  job.run();
  const after = modelMatrices(model, pose);
  return { job, a: positionOf(after, chain.a), b: positionOf(after, chain.b), c: positionOf(after, chain.c) };
}

function lengths(model: Model, pose: Pose, chain: Chain) {
  const m = modelMatrices(model, pose);
  return [norm(sub(positionOf(m, chain.b), positionOf(m, chain.a))), norm(sub(positionOf(m, chain.c), positionOf(m, chain.b)))];
}

/** The mid joint's offset from the line a → target, across it. */
function elbowSide(a: number[], b: number[], target: number[]): number[] {
  const u = sub(target, a).map((x) => x / norm(sub(target, a)));
  const ab = sub(b, a);
  const along = dot(ab, u);
  return ab.map((x, i) => x - along * u[i]);
}

describe('TwoBoneIKJob: invalid inputs', () => {
  it('rejects slots that are not a chain, weights and soften outside [0, 1], a zero mid axis and short arrays', async () => {
    const model = await loadCharacter();
    const pose = createPose(model), models = modelMatrices(model, pose);
    const { a, b, c } = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const t = new Float64Array(3), p = Float64Array.of(0, 0, -1);
    const make = (s: number, m: number, e: number) => new TwoBoneIKJob(model.hierarchy, pose, models, s, m, e, t, p);
    expect(() => make(-1, b, c).run()).toThrow(/startSlot -1 is not in \[0, 22\)/);
    expect(() => make(a, b, 99).run()).toThrow(/endSlot 99/);
    expect(() => make(a, findSlot(model, 'Hand.R'), c).run()).toThrow(/midSlot \d+ is not a descendant of startSlot/);
    expect(() => make(a, b, findSlot(model, 'Head')).run()).toThrow(/endSlot \d+ is not a descendant of midSlot/);
    expect(() => make(a, a, c).run()).toThrow(/not a descendant/);
    const job = make(a, b, c);
    job.weight = 2;
    expect(() => job.run()).toThrow(/weight 2 is not in \[0, 1\]/);
    job.weight = 1;
    job.soften = -0.1;
    expect(() => job.run()).toThrow(/soften -0.1/);
    job.soften = 1;
    job.midAxis = new Float64Array(3);
    expect(() => job.run()).toThrow(/midAxis must be a non-zero 3-vector/);
    expect(() => new TwoBoneIKJob(model.hierarchy, pose, new Float64Array(16), a, b, c, t, p).run()).toThrow(/models holds 1 matrices/);
    expect(() => new TwoBoneIKJob(model.hierarchy, pose, models, a, b, c, new Float64Array(2), p).run()).toThrow(/need 3 components/);
  });
});

describe('TwoBoneIKJob: numbers', () => {
  it('reaches a reachable target from the straight rest arm, keeps bone lengths, elbow toward the pole', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    for (const [offset, pole] of [[[0.1, -0.3, 0.2], [0, 0, -1]], [[-0.15, -0.2, 0.25], [0, -1, 0]], [[0.3, 0.1, -0.1], [0, 1, 0]]]) {
      const pose = createPose(model);
      const before = lengths(model, pose, chain);
      const a0 = positionOf(modelMatrices(model, pose), chain.a);
      const target = a0.map((x, i) => x + offset[i]);
      const { job, a, b, c } = solve(model, pose, chain, target, pole);
      expect(job.reached).toBe(true);
      expect(norm(sub(c, target))).toBeLessThan(1e-4);
      expect(norm(sub(c, target))).toBeLessThan(1e-10); // analytic: far better than required
      expect(norm(sub(a, a0))).toBeLessThan(1e-12); // the start joint does not move
      const after = lengths(model, pose, chain);
      expect(Math.abs(after[0] - before[0])).toBeLessThan(1e-12);
      expect(Math.abs(after[1] - before[1])).toBeLessThan(1e-12);
      expect(dot(elbowSide(a, b, target), pole)).toBeGreaterThan(0);
    }
  });

  it('from a bent, animated arm: reaches the target and bends the elbow only about its hinge', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const pose = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 0.3, pose); // Walk: the elbow is flexed about its local x
    const elbowBefore = Array.from(pose.rotation.subarray(chain.b * 4, chain.b * 4 + 4));
    const a0 = positionOf(modelMatrices(model, pose), chain.a);
    const target = [a0[0] + 0.15, a0[1] - 0.25, a0[2] + 0.2];
    const { c } = solve(model, pose, chain, target, [0, 0, -1]);
    // Sampled float32 keys give quaternions off unit length by ~1e-7, which localToModel turns into a
    // matching distortion of the matrices: the residual is that, not the solver.
    expect(norm(sub(c, target))).toBeLessThan(1e-7);
    // correction = before⁻¹ · after has no y or z part: a pure rotation about local x.
    const correction = mulQ(conjQ(elbowBefore), pose.rotation.subarray(chain.b * 4, chain.b * 4 + 4));
    expect(Math.abs(correction[0])).toBeGreaterThan(1e-3);
    expect(Math.abs(correction[1])).toBeLessThan(1e-7); // n comes from the (float32-distorted) model positions
    expect(Math.abs(correction[2])).toBeLessThan(1e-7);
  });

  it('with midAxis the straight elbow flexes the anatomical way (positive about local x)', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const pose = createPose(model);
    const rest = Array.from(pose.rotation.subarray(chain.b * 4, chain.b * 4 + 4));
    const a0 = positionOf(modelMatrices(model, pose), chain.a);
    const target = [a0[0] + 0.1, a0[1] - 0.2, a0[2] + 0.25];
    const { c } = solve(model, pose, chain, target, [0, 0, -1], (job) => { job.midAxis = Float64Array.of(1, 0, 0); });
    expect(norm(sub(c, target))).toBeLessThan(1e-10);
    const correction = mulQ(conjQ(rest), pose.rotation.subarray(chain.b * 4, chain.b * 4 + 4));
    expect(Math.sign(correction[3]) * correction[0]).toBeGreaterThan(0.1);
    expect(Math.abs(correction[1]) + Math.abs(correction[2])).toBeLessThan(1e-12);
  });

  it('an unreachable target: the chain stretches straight toward it, bone lengths kept', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const pose = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 0.6, pose);
    const [l1, l2] = lengths(model, pose, chain);
    const a0 = positionOf(modelMatrices(model, pose), chain.a);
    const target = [a0[0] + 1.2, a0[1] + 0.9, a0[2] - 0.5];
    const { job, a, b, c } = solve(model, pose, chain, target, [0, 0, -1]);
    expect(job.reached).toBe(false);
    const u = sub(target, a).map((x) => x / norm(sub(target, a)));
    expect(norm(sub(b, a.map((x, i) => x + u[i] * l1)))).toBeLessThan(1e-7);
    expect(norm(sub(c, a.map((x, i) => x + u[i] * (l1 + l2))))).toBeLessThan(1e-7);
    const after = lengths(model, pose, chain); // sampled pose: see the float32 note above
    expect(Math.abs(after[0] - l1)).toBeLessThan(1e-7);
    expect(Math.abs(after[1] - l2)).toBeLessThan(1e-7);
  });

  it('a target nearer than the bones allow folds the chain toward it as far as it goes', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const pose = createPose(model);
    const [l1, l2] = lengths(model, pose, chain);
    const a0 = positionOf(modelMatrices(model, pose), chain.a);
    const target = [a0[0], a0[1] - 0.005, a0[2]];
    const { job, a, c } = solve(model, pose, chain, target, [0, 0, -1]);
    expect(job.reached).toBe(false);
    expect(Math.abs(norm(sub(c, a)) - Math.abs(l1 - l2))).toBeLessThan(1e-9);
    expect(dot(sub(c, a), [0, -1, 0])).toBeGreaterThan(0.99 * Math.abs(l1 - l2));
  });

  it('weight 0 changes nothing bit for bit; weight 0.5 ends between; soften falls short smoothly, never overshooting', async () => {
    const model = await loadCharacter();
    const chain = chainOf(model, 'UpperArm.L', 'LowerArm.L', 'Hand.L');
    const pose = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.5, pose);
    const before = Array.from(pose.rotation);
    const a0 = positionOf(modelMatrices(model, pose), chain.a);
    const c0 = positionOf(modelMatrices(model, pose), chain.c);
    const target = [a0[0] + 0.2, a0[1] - 0.1, a0[2] + 0.3];
    solve(model, pose, chain, target, [0, 0, -1], (job) => { job.weight = 0; });
    expect(Array.from(pose.rotation)).toEqual(before);
    const half = solve(model, pose, chain, target, [0, 0, -1], (job) => { job.weight = 0.5; });
    expect(norm(sub(half.c, target))).toBeGreaterThan(1e-3);
    expect(norm(sub(half.c, target))).toBeLessThan(norm(sub(c0, target)));

    const [l1, l2] = lengths(model, createPose(model), chain);
    let previous = 0;
    for (const f of [0.85, 0.95, 1, 1.05, 1.5, 3]) {
      const p = createPose(model);
      const a = positionOf(modelMatrices(model, p), chain.a);
      const t = [a[0] + 0.6 * f * (l1 + l2), a[1] - 0.8 * f * (l1 + l2), a[2]];
      const { job, c } = solve(model, p, chain, t, [0, 0, -1], (j) => { j.soften = 0.9; });
      const reach = norm(sub(c, a));
      expect(reach).toBeLessThan(l1 + l2);
      expect(reach).toBeGreaterThan(previous);
      if (f === 0.85) expect(reach).toBeCloseTo(0.85 * (l1 + l2), 10); // below the soften start: exact
      else expect(job.reached).toBe(false);
      previous = reach;
    }
  });

  it('works on real assets under a matrix node: CesiumMan leg while walking, Fox foreleg', async () => {
    for (const [asset, names, pole, time] of [
      ['CesiumMan', ['leg_joint_L_1', 'leg_joint_L_2', 'leg_joint_L_3'], [0, -1, 0], 0.6],
      ['Fox', ['b_LeftUpperArm_09', 'b_LeftForeArm_010', 'b_LeftHand_011'], [0, 0, -1], 0.3],
    ] as const) {
      const model = await loadGltfFile(assetPath(asset));
      const chain = chainOf(model, names[0], names[1], names[2]);
      const pose = createPose(model);
      sampleClip(createClipCursor(model.animations[asset === 'Fox' ? 1 : 0]), time, pose);
      const before = lengths(model, pose, chain);
      const m = modelMatrices(model, pose);
      const a0 = positionOf(m, chain.a), c0 = positionOf(m, chain.c);
      // Move the end a fifth of the way toward the start and sideways: always reachable.
      const side = cross(sub(c0, a0), [...pole]);
      const target = c0.map((x, i) => x + 0.2 * (a0[i] - x) + 0.1 * side[i] / norm(side) * norm(sub(c0, a0)));
      const { c } = solve(model, pose, chain, target, [...pole]);
      const scale = before[0] + before[1];
      expect(norm(sub(c, target))).toBeLessThan(1e-4);
      // Relative to the chain: float32 keys leave ~1e-7 of distortion in sampled poses.
      expect(norm(sub(c, target)) / scale).toBeLessThan(1e-6);
      const after = lengths(model, pose, chain);
      expect(Math.abs(after[0] - before[0]) / scale).toBeLessThan(1e-6);
      expect(Math.abs(after[1] - before[1]) / scale).toBeLessThan(1e-6);
    }
  });
});
