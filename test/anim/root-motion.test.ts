import { describe, expect, it } from 'vitest';
import { findSlot } from '../../src/anim/mask.ts';
import { createPose } from '../../src/anim/pose.ts';
import {
  accumulateRootMotion, createRootMotionTrack, lockRootInPlace, motionOf, RootMotionJob, rootMotionMatrix,
} from '../../src/anim/root-motion.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { buildCharacter } from '../../src/builtin/character.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetPath } from '../support/assets.ts';
import { axisAngle, mulQ } from './fixtures.ts';

const SPEED = 1.5; // m per loop, along +Z
const TURN = Math.PI / 6; // yaw per loop, about +Y

/**
 * The built-in character plus a one-second clip "Stroll" whose Root walks 1.5 m forward
 * while turning 30° left, bobbing 2 cm and pitching ±5°: root motion to extract.
 */
async function strollingCharacter(): Promise<Model> {
  const b = buildCharacter();
  const root = b.json.nodes.findIndex((n) => n.name === 'Root');
  const keys = 31;
  const times = Float32Array.from({ length: keys }, (_, k) => k / (keys - 1));
  const t = new Float32Array(keys * 3), r = new Float32Array(keys * 4);
  for (let k = 0; k < keys; k++) {
    const s = times[k];
    t.set([0.01 * Math.sin(2 * Math.PI * s), 0.02 * (1 - Math.cos(2 * Math.PI * s)), SPEED * s], k * 3);
    r.set(mulQ(axisAngle([0, 1, 0], TURN * s), axisAngle([1, 0, 0], (5 * Math.PI / 180) * Math.sin(2 * Math.PI * s))), k * 4);
  }
  b.addAnimationTracks('Stroll', [
    { node: root, path: 'translation', input: times, output: t },
    { node: root, path: 'rotation', input: times, output: r },
  ]);
  return loadGltf(b.toGlb(), { name: 'stroll' });
}

function setup(model: Model, clip: number, root: number, up: number[] = [0, 1, 0]) {
  const track = createRootMotionTrack(model, model.animations[clip], root, up);
  const delta = new Float64Array(4);
  const job = new RootMotionJob(track, createClipCursor(track.clip), createPose(model), delta);
  return { track, job, delta };
}

function step(job: RootMotionJob, from: number, to: number, loops = 0): number[] {
  job.fromTime = from;
  job.toTime = to;
  job.loops = loops;
  job.run();
  return Array.from(job.delta);
}

/** Composes plain motions (x y z yaw about +Y). */
function compose(a: number[], b: number[]): number[] {
  const c = Math.cos(a[3]), s = Math.sin(a[3]);
  return [a[0] + c * b[0] + s * b[2], a[1] + b[1], a[2] - s * b[0] + c * b[2], a[3] + b[3]];
}

const closeMotion = (got: number[], expected: number[], eps: number) => {
  for (let i = 0; i < 3; i++) expect(Math.abs(got[i] - expected[i]), `component ${i}: ${got} vs ${expected}`).toBeLessThan(eps);
  const dy = got[3] - expected[3];
  expect(Math.abs(dy - 2 * Math.PI * Math.round(dy / (2 * Math.PI)))).toBeLessThan(eps);
};

describe('root motion: invalid inputs', () => {
  it('rejects a bad root, a zero up, a matrix node, a foreign cursor, times out of range and fractional loops', async () => {
    const model = await strollingCharacter();
    const clip = model.animations[3];
    const root = findSlot(model, 'Root');
    expect(() => createRootMotionTrack(model, clip, 99)).toThrow(/root slot 99 is not in \[0, 22\)/);
    expect(() => createRootMotionTrack(model, clip, root, [0, 0, 0])).toThrow(/up must be a non-zero finite vector/);
    const man = await loadGltfFile(assetPath('CesiumMan'));
    expect(() => createRootMotionTrack(man, man.animations[0], 0)).toThrow(/must be a TRS node/);
    const track = createRootMotionTrack(model, clip, root);
    expect(() => new RootMotionJob(track, createClipCursor(clip), createPose(model), new Float64Array(4)).run()).toThrow(/cursor is not of track.clip/);
    expect(() => new RootMotionJob(track, createClipCursor(track.clip), createPose(model), new Float64Array(3)).run()).toThrow(/delta needs 4 values/);
    const { job } = setup(model, 3, root);
    expect(() => step(job, 0, 1.5)).toThrow(/times 0 → 1.5 must lie in \[0, 1\]/);
    expect(() => step(job, -0.1, 0)).toThrow(/times -0.1 → 0/);
    expect(() => step(job, 0, 0.5, 0.5)).toThrow(/loops 0.5 is not an integer/);
  });
});

describe('root motion: numbers', () => {
  it('the track keeps only the root channels and knows both ends of the motion', async () => {
    const model = await strollingCharacter();
    const { track } = setup(model, 3, findSlot(model, 'Root'));
    expect(track.clip.channels).toHaveLength(2);
    closeMotion(Array.from(track.ends.subarray(0, 4)), [0, 0, 0, 0], 1e-12);
    closeMotion(Array.from(track.ends.subarray(4, 8)), [0, 0, SPEED, TURN], 1e-6);
  });

  it('per-frame deltas over a whole loop sum (compose) to the clip\'s root displacement', async () => {
    const model = await strollingCharacter();
    const { job } = setup(model, 3, findSlot(model, 'Root'));
    let world = [0, 0, 0, 0];
    for (let f = 0; f < 60; f++) world = compose(world, step(job, f / 60, (f + 1) / 60));
    closeMotion(world, [0, 0, SPEED, TURN], 1e-6);
    closeMotion(world, step(job, 0, 0, 1), 1e-12); // one call for the whole loop agrees with the frames
    closeMotion(step(job, 0, 1), step(job, 0, 0, 1), 1e-12);
  });

  it('wraps: stepping across the loop boundary equals one step with loops = 1; backwards undoes forwards; N loops compose', async () => {
    const model = await strollingCharacter();
    const { job } = setup(model, 3, findSlot(model, 'Root'));
    let time = 0.9, world = [0, 0, 0, 0];
    for (let f = 0; f < 20; f++) {
      const next = time + 1 / 60;
      const loops = Math.floor(next);
      world = compose(world, step(job, time, next - loops, loops));
      time = next - loops;
    }
    closeMotion(world, step(job, 0.9, time, 1), 1e-12);
    closeMotion(compose(step(job, 0.9, 0.2, 1), step(job, 0.2, 0.9, -1)), [0, 0, 0, 0], 1e-12);
    const loop = step(job, 0, 0, 1);
    closeMotion(step(job, 0, 0, 3), compose(compose(loop, loop), loop), 1e-12);
    const L = [0, 0, SPEED];
    const expected = [0, 1, 2].reduce((p, k) => p.map((x, i) => x + [Math.sin(k * TURN) * L[2], 0, Math.cos(k * TURN) * L[2]][i]), [0, 0, 0]);
    closeMotion(step(job, 0, 0, 3), [...expected, 3 * TURN], 1e-5);
  });

  it('takes the motions at either end from the caller when known: the same delta as sampling, and `to` left for the next step', async () => {
    const model = await strollingCharacter();
    const { track, job } = setup(model, 3, findSlot(model, 'Root'));
    const pose = createPose(model), cursor = createClipCursor(model.animations[3]);
    /** The root's motion at `time` from a full pose sampled there, as a caller would have it. */
    const motionAt = (time: number): Float64Array => {
      sampleClip(cursor, time, pose);
      const m = new Float64Array(4);
      motionOf(track, pose, m, 0);
      return m;
    };
    for (const [from, to, loops] of [[0.2, 0.35, 0], [0.9, 0.1, 1], [0.1, 0.8, -1], [0.4, 0.4, 2]] as const) {
      const sampled = step(job, from, to, loops);
      expect(Array.from(job.to), `to after sampling ${from} → ${to}`).toEqual(Array.from(motionAt(to)));
      for (const [fromKnown, toKnown] of [[true, false], [false, true], [true, true]]) {
        job.from.set(motionAt(from));
        job.to.set(toKnown ? motionAt(to) : [NaN, NaN, NaN, NaN]);
        job.fromKnown = fromKnown;
        job.toKnown = toKnown;
        expect(step(job, from, to, loops), `${from} → ${to} (${loops} loops), known ${fromKnown}/${toKnown}`).toEqual(sampled);
        expect(Array.from(job.to)).toEqual(Array.from(motionAt(to)));
      }
      job.fromKnown = job.toKnown = false;
    }
    // A known motion is used as given: a wrong one moves the delta.
    job.from.set(motionAt(0.2));
    job.from[0] += 0.5;
    job.fromKnown = true;
    const wrong = step(job, 0.2, 0.35);
    job.fromKnown = false;
    expect(wrong).not.toEqual(step(job, 0.2, 0.35));
  });

  it('a walking character moves through the scene while its root stays in place', async () => {
    const model = await strollingCharacter();
    const root = findSlot(model, 'Root');
    const { track, job, delta } = setup(model, 3, root);
    const cursor = createClipCursor(model.animations[3]);
    const original = createPose(model), pose = createPose(model);
    const world = new Float64Array(4), matrix = new Float64Array(16);
    const loop = step(job, 0, 0, 1);
    let time = 0, completed = [0, 0, 0, 0];
    for (let f = 1; f <= 150; f++) {
      const next = time + 1 / 60;
      const loops = Math.floor(next);
      job.fromTime = time; job.toTime = next - loops; job.loops = loops;
      job.run();
      accumulateRootMotion(track, delta, world);
      if (loops) completed = compose(completed, loop);
      time = next - loops;

      sampleClip(cursor, time, original);
      sampleClip(cursor, time, pose);
      lockRootInPlace(track, pose);
      // In place: ground position and heading of the first frame; bob kept.
      const T = Array.from(pose.translation.subarray(root * 3, root * 3 + 3));
      expect(Math.abs(T[0]) + Math.abs(T[2])).toBeLessThan(1e-12);
      expect(T[1]).toBe(original.translation[root * 3 + 1]);
      // World · in-place root = every completed loop's displacement · original root.
      rootMotionMatrix(track, world, matrix);
      const placed = [0, 1, 2].map((r) => matrix[r] * T[0] + matrix[4 + r] * T[1] + matrix[8 + r] * T[2] + matrix[12 + r]);
      const o = Array.from(original.translation.subarray(root * 3, root * 3 + 3));
      const c = Math.cos(completed[3]), s = Math.sin(completed[3]);
      const expected = [completed[0] + c * o[0] + s * o[2], o[1], completed[2] - s * o[0] + c * o[2]];
      for (let i = 0; i < 3; i++) expect(Math.abs(placed[i] - expected[i])).toBeLessThan(1e-9);
    }
    expect(Math.hypot(world[0], world[2])).toBeGreaterThan(3); // 2.5 loops of 1.5 m, turning
  });

  it('on a real clip: CesiumMan\'s torso over its whole walk loop (Z up under the file\'s Z_UP node)', async () => {
    const model = await loadGltfFile(assetPath('CesiumMan'));
    const root = findSlot(model, 'Skeleton_torso_joint_1');
    const { job, track } = setup(model, 0, root, [0, 0, 1]);
    const duration = model.animations[0].duration;
    const frames = 48;
    let world = [0, 0, 0, 0];
    const composeZ = (a: number[], b: number[]) => {
      const c = Math.cos(a[3]), s = Math.sin(a[3]);
      return [a[0] + c * b[0] - s * b[1], a[1] + s * b[0] + c * b[1], a[2] + b[2], a[3] + b[3]];
    };
    for (let f = 0; f < frames; f++) world = composeZ(world, step(job, (f * duration) / frames, ((f + 1) * duration) / frames));
    // Expected from the sampled root directly: anchor M0 = (p0, ψ0), end M1; D = M0 · M0⁻¹ M1 · M0⁻¹ = M1 · M0⁻¹.
    const p = createPose(model);
    const at = (t: number) => {
      sampleClip(createClipCursor(model.animations[0]), t, p);
      const r = p.rotation.subarray(root * 4, root * 4 + 4);
      return [p.translation[root * 3], p.translation[root * 3 + 1], 0, 2 * Math.atan2(r[2], r[3])];
    };
    const m0 = at(0), m1 = at(duration);
    const c = Math.cos(-m0[3]), s = Math.sin(-m0[3]);
    const inv0 = [-(c * m0[0] - s * m0[1]), -(s * m0[0] + c * m0[1]), 0, -m0[3]];
    closeMotion(world, composeZ(m1, inv0), 1e-9);
    expect(track.ends[2]).toBe(0); // the ground plane is across Z here
  });
});
