import { describe, expect, it } from 'vitest';
import { AdditiveJob, makeAdditiveClip, poseDelta, referencePose, setIdentityPose } from '../../src/anim/additive.ts';
import { findSlot, subtreeMask } from '../../src/anim/mask.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { Interpolation, TargetPath } from '../../src/gltf/constants.ts';
import type { Clip } from '../../src/gltf/model.ts';
import { assetPath } from '../support/assets.ts';
import { axisAngle, loadCharacter, quatAngle } from './fixtures.ts';

/** Hamilton product a · b of plain arrays. */
const mul = (a: number[], b: number[]) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const X = [1, 0, 0], Y = [0, 1, 0];

describe('additive: invalid inputs', () => {
  it('rejects weights outside [0, 1], masks of another size and poses of other skeletons', async () => {
    const model = await loadCharacter();
    const fox = await loadGltfFile(assetPath('Fox'));
    const job = new AdditiveJob(createPose(model), createPose(model), createPose(model));
    job.weight = 1.01;
    expect(() => job.run()).toThrow(/weight 1.01 is not in \[0, 1\]/);
    job.weight = NaN;
    expect(() => job.run()).toThrow(/weight NaN/);
    job.weight = 1;
    job.mask = new Float32Array(2);
    expect(() => job.run()).toThrow(/mask has 2 weights, the skeleton has 22 slots/);
    expect(() => new AdditiveJob(createPose(model), createPose(fox), createPose(model)).run()).toThrow(/different skeletons/);
  });

  it('makeAdditiveClip rejects a reference of another model and a zero reference scale', async () => {
    const model = await loadCharacter();
    const fox = await loadGltfFile(assetPath('Fox'));
    expect(() => makeAdditiveClip(model, model.animations[0], createPose(fox))).toThrow(/reference pose is of a different model/);
    // A one-channel scale clip built in place.
    const slot = findSlot(model, 'Head');
    const times = Float32Array.of(0, 1);
    const scaled: Clip = {
      name: 'grow', duration: 1, timelines: [times],
      channels: [{ node: model.hierarchy.order[slot], slot, path: TargetPath.SCALE, timeline: 0,
        sampler: { interpolation: Interpolation.LINEAR, times, values: Float32Array.of(1, 1, 1, 2, 2, 2), components: 3, slerpAngle: undefined, slerpInvSin: undefined } }],
    };
    const ref = createPose(model);
    expect(makeAdditiveClip(model, scaled, ref).channels[0].sampler.values).toEqual(Float32Array.of(1, 1, 1, 2, 2, 2));
    ref.scale[slot * 3 + 1] = 0;
    expect(() => makeAdditiveClip(model, scaled, ref)).toThrow(/channels\[0\]: the reference scale of node \d+ is 0/);
  });
});

describe('additive: numbers', () => {
  it('weight 0 changes nothing, bit for bit, in place or into another pose', async () => {
    const model = await loadCharacter();
    const base = createPose(model), delta = createPose(model), out = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 0.4, base);
    sampleClip(createClipCursor(makeAdditiveClip(model, model.animations[2])), 1.1, setIdentityPose(delta));
    const before = { r: Array.from(base.rotation), t: Array.from(base.translation), s: Array.from(base.scale) };
    const job = new AdditiveJob(base, delta, out);
    job.weight = 0;
    job.run();
    expect(Array.from(out.rotation)).toEqual(before.r);
    expect(Array.from(out.translation)).toEqual(before.t);
    expect(Array.from(out.scale)).toEqual(before.s);
    const inPlace = new AdditiveJob(base, delta, base);
    inPlace.weight = 0;
    inPlace.run();
    expect(Array.from(base.rotation)).toEqual(before.r);
  });

  it('convention: ΔR = r · r_ref⁻¹ applied on the left (parent frame); ΔT = t − t_ref; ΔS = s / s_ref', async () => {
    const model = await loadCharacter();
    const s = findSlot(model, 'Head');
    const ref = createPose(model), pose = createPose(model), delta = createPose(model), base = createPose(model), out = createPose(model);
    ref.rotation.set(axisAngle(X, Math.PI / 2), s * 4);
    pose.rotation.set(mul(axisAngle(Y, Math.PI / 2), axisAngle(X, Math.PI / 2)), s * 4);
    ref.translation.set([1, 2, 3], s * 3);
    pose.translation.set([1.5, 2, 2], s * 3);
    ref.scale.set([2, 2, 2], s * 3);
    pose.scale.set([3, 2, 1], s * 3);
    poseDelta(pose, ref, delta);
    expect(quatAngle(delta.rotation.subarray(s * 4), axisAngle(Y, Math.PI / 2))).toBeLessThan(1e-12);
    expect(Array.from(delta.translation.subarray(s * 3, s * 3 + 3))).toEqual([0.5, 0, -1]);
    expect(Array.from(delta.scale.subarray(s * 3, s * 3 + 3))).toEqual([1.5, 1, 0.5]);

    base.rotation.set(axisAngle(X, Math.PI / 4), s * 4);
    base.translation.set([0, 0, 0], s * 3);
    base.scale.set([1, 1, 1], s * 3);
    const job = new AdditiveJob(base, delta, out);
    job.run();
    const left = mul(axisAngle(Y, Math.PI / 2), axisAngle(X, Math.PI / 4)), right = mul(axisAngle(X, Math.PI / 4), axisAngle(Y, Math.PI / 2));
    expect(quatAngle(out.rotation.subarray(s * 4), left)).toBeLessThan(1e-12);
    expect(quatAngle(out.rotation.subarray(s * 4), right)).toBeGreaterThan(0.5);
    expect(Array.from(out.translation.subarray(s * 3, s * 3 + 3))).toEqual([0.5, 0, -1]);

    // Half weight: half the angle (slerp from identity), half the offset, half-way scale factor.
    job.weight = 0.5;
    job.run();
    expect(quatAngle(out.rotation.subarray(s * 4), mul(axisAngle(Y, Math.PI / 4), axisAngle(X, Math.PI / 4)))).toBeLessThan(1e-12);
    expect(Array.from(out.translation.subarray(s * 3, s * 3 + 3))).toEqual([0.25, 0, -0.5]);
    expect(Array.from(out.scale.subarray(s * 3, s * 3 + 3))).toEqual([1.25, 1, 0.75]);
  });

  it('an additive clip samples to the delta of the sampled clip, and on its reference gives the clip back', async () => {
    const model = await loadCharacter();
    const wave = model.animations[2];
    const additive = makeAdditiveClip(model, wave);
    expect(additive.channels).toHaveLength(wave.channels.length);
    const ref = referencePose(model, wave);
    const cursor = createClipCursor(wave), addCursor = createClipCursor(additive);
    const sampled = createPose(model), delta = createPose(model), expected = createPose(model), out = createPose(model);
    for (const t of [0, 0.37, 1.2, 2.5]) {
      sampleClip(cursor, t, sampled);
      sampleClip(addCursor, t, setIdentityPose(delta));
      poseDelta(sampled, ref, expected);
      for (let i = 0; i < delta.rotation.length; i++) expect(Math.abs(delta.rotation[i] - expected.rotation[i])).toBeLessThan(1e-6);
      for (let i = 0; i < delta.translation.length; i++) expect(Math.abs(delta.translation[i] - expected.translation[i])).toBeLessThan(1e-6);
      new AdditiveJob(ref, delta, out).run();
      for (let s = 0; s < model.hierarchy.count; s++) expect(quatAngle(out.rotation.subarray(s * 4), sampled.rotation.subarray(s * 4))).toBeLessThan(1e-6);
      for (let i = 0; i < out.translation.length; i++) expect(Math.abs(out.translation[i] - sampled.translation[i])).toBeLessThan(1e-6);
    }
    // Its first frame is the identity everywhere.
    sampleClip(addCursor, 0, setIdentityPose(delta));
    for (let s = 0; s < model.hierarchy.count; s++) expect(quatAngle(delta.rotation.subarray(s * 4), [0, 0, 0, 1])).toBeLessThan(1e-6);
  });

  it('a mask leaves excluded joints bit-for-bit unchanged', async () => {
    const model = await loadCharacter();
    const base = createPose(model), delta = createPose(model), out = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 0.6, base);
    sampleClip(createClipCursor(makeAdditiveClip(model, model.animations[1])), 0.5, setIdentityPose(delta));
    const upper = subtreeMask(model.hierarchy, findSlot(model, 'Spine'));
    const job = new AdditiveJob(base, delta, out);
    job.mask = upper;
    job.run();
    let changed = 0;
    for (let s = 0; s < model.hierarchy.count; s++) {
      const same = (a: Float64Array, b: Float64Array, n: number) => Array.from(a.subarray(s * n, s * n + n)).every((v, i) => Object.is(v, b[s * n + i]));
      if (upper[s] === 0) {
        expect(same(out.rotation, base.rotation, 4) && same(out.translation, base.translation, 3) && same(out.scale, base.scale, 3)).toBe(true);
      } else if (!same(out.rotation, base.rotation, 4)) {
        changed++;
      }
    }
    expect(changed).toBeGreaterThan(0); // Idle breathes the spine, chest, head and arms
  });
});
