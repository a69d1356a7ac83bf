import { describe, expect, it } from 'vitest';
import { AimJob } from '../../src/anim/aim.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { createPose, type Pose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetPath } from '../support/assets.ts';
import { axisOf, cross, dot, loadCharacter, modelMatrices, norm, positionOf, sub } from './fixtures.ts';

const angleBetween = (a: number[], b: number[]) => Math.atan2(norm(cross(a, b)), dot(a, b));

function aim(model: Model, pose: Pose, slot: number, target: number[], setup: (job: AimJob) => void = () => {}, axes?: { forward: number[]; up: number[]; pole: number[] }) {
  const job = axes
    ? new AimJob(model.hierarchy, pose, modelMatrices(model, pose), slot, Float64Array.from(target), Float64Array.from(axes.forward), Float64Array.from(axes.up), Float64Array.from(axes.pole))
    : new AimJob(model.hierarchy, pose, modelMatrices(model, pose), slot, Float64Array.from(target));
  setup(job);
  job.run();
  return { job, after: modelMatrices(model, pose) };
}

describe('AimJob: invalid inputs', () => {
  it('rejects a bad slot, parallel axes, weights outside [0, 1], a negative limit and short arrays', async () => {
    const model = await loadCharacter();
    const pose = createPose(model), m = modelMatrices(model, pose);
    const head = findSlot(model, 'Head');
    const t = new Float64Array(3);
    expect(() => new AimJob(model.hierarchy, pose, m, 40, t).run()).toThrow(/slot 40 is not in \[0, 22\)/);
    expect(() => new AimJob(model.hierarchy, pose, m, head, t, Float64Array.of(0, 0, 1), Float64Array.of(0, 0, 2)).run()).toThrow(/forward and up must be non-zero and not parallel/);
    expect(() => new AimJob(model.hierarchy, pose, m, head, t, new Float64Array(3)).run()).toThrow(/not parallel/);
    expect(() => new AimJob(model.hierarchy, pose, m, head, new Float64Array(2)).run()).toThrow(/need 3 components/);
    const job = new AimJob(model.hierarchy, pose, m, head, t);
    job.weight = -1;
    expect(() => job.run()).toThrow(/weight -1 is not in \[0, 1\]/);
    job.weight = 1;
    job.limit = -0.1;
    expect(() => job.run()).toThrow(/limit -0.1 must be ≥ 0/);
  });
});

describe('AimJob: numbers', () => {
  it('points the head\'s forward axis at the target (within 1e-6 rad), up leaning to the pole', async () => {
    const model = await loadCharacter();
    const head = findSlot(model, 'Head');
    for (const [clip, time, target] of [[-1, 0, [0.8, 2.1, 1.5]], [1, 0.7, [-1, 1.2, 0.4]], [0, 0.2, [0.3, 1.7, -2]]] as const) {
      const pose = createPose(model);
      if (clip >= 0) sampleClip(createClipCursor(model.animations[clip]), time, pose);
      const { after } = aim(model, pose, head, [...target]);
      const toTarget = sub([...target], positionOf(after, head));
      const forward = axisOf(after, head, [0, 0, 1]), up = axisOf(after, head, [0, 1, 0]);
      expect(angleBetween(forward, toTarget)).toBeLessThan(1e-6);
      // Up lies in the plane of the look direction and the pole (+Y), on the pole's side.
      expect(Math.abs(dot(up, cross(toTarget, [0, 1, 0])) / norm(cross(toTarget, [0, 1, 0])))).toBeLessThan(1e-9);
      expect(up[1]).toBeGreaterThan(0);
    }
  });

  it('weight 0 changes nothing bit for bit; weight 0.5 turns half way; limit caps the turn', async () => {
    const model = await loadCharacter();
    const head = findSlot(model, 'Head');
    const pose = createPose(model);
    const before = Array.from(pose.rotation);
    const headPos = positionOf(modelMatrices(model, pose), head);
    // 60° to the left of straight ahead, level: a pure yaw from the rest pose.
    const target = [headPos[0] + Math.sin(Math.PI / 3), headPos[1], headPos[2] + Math.cos(Math.PI / 3)];
    aim(model, pose, head, target, (job) => { job.weight = 0; });
    expect(Array.from(pose.rotation)).toEqual(before);

    const half = aim(model, createPose(model), head, target, (job) => { job.weight = 0.5; });
    expect(half.job.angle).toBeCloseTo(Math.PI / 6, 12);
    expect(angleBetween(axisOf(half.after, head, [0, 0, 1]), [0, 0, 1])).toBeCloseTo(Math.PI / 6, 12);

    const limited = aim(model, createPose(model), head, target, (job) => { job.limit = Math.PI / 18; });
    expect(limited.job.angle).toBeCloseTo(Math.PI / 18, 12);
    const forward = axisOf(limited.after, head, [0, 0, 1]);
    expect(angleBetween(forward, [0, 0, 1])).toBeCloseTo(Math.PI / 18, 12);
    expect(angleBetween(forward, sub(target, headPos))).toBeCloseTo(Math.PI / 3 - Math.PI / 18, 12);
  });

  it('with a zero pole it turns by the shortest arc, keeping the animated roll', async () => {
    const model = await loadCharacter();
    const head = findSlot(model, 'Head');
    const pose = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.5, pose);
    const before = modelMatrices(model, pose);
    const f0 = axisOf(before, head, [0, 0, 1]), up0 = axisOf(before, head, [0, 1, 0]);
    const target = positionOf(before, head).map((x, i) => x + [0.4, 0.3, 1][i]);
    const { after } = aim(model, pose, head, target, () => {}, { forward: [0, 0, 1], up: [0, 1, 0], pole: [0, 0, 0] });
    const f1 = axisOf(after, head, [0, 0, 1]), up1 = axisOf(after, head, [0, 1, 0]);
    expect(angleBetween(f1, sub(target, positionOf(after, head)))).toBeLessThan(1e-6);
    // Shortest arc: the rotation axis is f0 × f1, so the part of up along that axis is unchanged.
    const axis = cross(f0, f1).map((x) => x / norm(cross(f0, f1)));
    expect(dot(up1, axis)).toBeCloseTo(dot(up0, axis), 7); // sampled float32 keys: ~1e-9 of slack
  });

  it('aims a real asset\'s joint along any local axis (Fox head, bone axis +X)', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const head = findSlot(model, 'b_Head_05');
    const pose = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 1.5, pose);
    const p = positionOf(modelMatrices(model, pose), head);
    const target = [p[0] + 30, p[1] + 10, p[2] + 50];
    const { after } = aim(model, pose, head, target, () => {}, { forward: [1, 0, 0], up: [0, 1, 0], pole: [0, 1, 0] });
    expect(angleBetween(axisOf(after, head, [1, 0, 0]), sub(target, positionOf(after, head)))).toBeLessThan(1e-6);
  });
});
