import { describe, expect, it } from 'vitest';
import { BlendingJob } from '../../src/anim/blend.ts';
import { LayerBlendingJob, type BlendLayer } from '../../src/anim/blend-layers.ts';
import { findSlot, subtreeMask } from '../../src/anim/mask.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { slerpQuat } from '../../src/math/quat.ts';
import { assetPath } from '../support/assets.ts';
import { axisAngle, loadCharacter, quatAngle } from './fixtures.ts';

const fox = () => loadGltfFile(assetPath('Fox'));
const layer = (pose: BlendLayer['pose'], weight: number, mask: Float32Array | null = null): BlendLayer => ({ pose, weight, mask });

describe('LayerBlendingJob: invalid inputs', () => {
  it('rejects bad weights, thresholds, masks and poses of other skeletons', async () => {
    const model = await fox();
    const man = await loadGltfFile(assetPath('CesiumMan'));
    const a = createPose(model), rest = createPose(model), out = createPose(model);
    const l = layer(a, 1);
    const job = new LayerBlendingJob([l], rest, out);
    l.weight = -0.5;
    expect(() => job.run()).toThrow(/layers\[0\] weight -0.5 must be finite and ≥ 0/);
    l.weight = NaN;
    expect(() => job.run()).toThrow(/weight NaN/);
    l.weight = Infinity;
    expect(() => job.run()).toThrow(/weight Infinity/);
    l.weight = 1;
    job.threshold = 0;
    expect(() => job.run()).toThrow(/threshold 0 must be finite and > 0/);
    job.threshold = 0.1;
    l.mask = new Float32Array(3);
    expect(() => job.run()).toThrow(/layers\[0\] mask has 3 weights, the skeleton has 26 slots/);
    expect(() => new LayerBlendingJob([layer(createPose(man), 1)], rest, out).run()).toThrow(/layers\[0\] pose is of a different skeleton/);
    expect(() => new LayerBlendingJob([], rest, createPose(man)).run()).toThrow(/output and rest poses are of different skeletons/);
  });
});

describe('LayerBlendingJob: numbers', () => {
  it('two layers equal BlendingJob (slerp/lerp of the two sampled poses) bit for bit', async () => {
    const model = await fox();
    const walk = createPose(model), run = createPose(model), rest = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.3, walk);
    sampleClip(createClipCursor(model.animations[2]), 0.7, run);
    for (const w of [0.25, 0.3, 0.5, 0.75, 0.9]) {
      const expected = createPose(model), got = createPose(model);
      const two = new BlendingJob(walk, run, expected);
      two.weight = w;
      two.run();
      new LayerBlendingJob([layer(walk, 1 - w), layer(run, w)], rest, got).run();
      expect(Array.from(got.rotation)).toEqual(Array.from(expected.rotation));
      expect(Array.from(got.translation)).toEqual(Array.from(expected.translation));
      expect(Array.from(got.scale)).toEqual(Array.from(expected.scale));
    }
  });

  it('weights are normalised per joint: (2, 6) equals (0.25, 0.75); a weight-0 layer is skipped exactly', async () => {
    const model = await fox();
    const walk = createPose(model), run = createPose(model), rest = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.1, walk);
    sampleClip(createClipCursor(model.animations[2]), 0.5, run);
    const a = createPose(model), b = createPose(model), c = createPose(model);
    new LayerBlendingJob([layer(walk, 2), layer(run, 6)], rest, a).run();
    new LayerBlendingJob([layer(walk, 0.25), layer(run, 0.75)], rest, b).run();
    expect(Array.from(a.rotation)).toEqual(Array.from(b.rotation));
    new LayerBlendingJob([layer(walk, 0), layer(run, 0.5)], rest, c).run();
    expect(Array.from(c.rotation)).toEqual(Array.from(run.rotation));
    expect(Array.from(c.translation)).toEqual(Array.from(run.translation));
  });

  it('slerp midpoint: 0° and 90° about z at equal weights give 45°; translation and scale the mean', async () => {
    const model = await loadCharacter();
    const a = createPose(model), b = createPose(model), rest = createPose(model), out = createPose(model);
    const s = findSlot(model, 'Head');
    a.rotation.set(axisAngle([0, 0, 1], 0), s * 4);
    b.rotation.set(axisAngle([0, 0, 1], Math.PI / 2), s * 4);
    a.translation.set([0, 0, 0], s * 3);
    b.translation.set([2, -4, 6], s * 3);
    a.scale.set([1, 1, 1], s * 3);
    b.scale.set([3, 1, 2], s * 3);
    new LayerBlendingJob([layer(a, 1), layer(b, 1)], rest, out).run();
    const expected = axisAngle([0, 0, 1], Math.PI / 4);
    for (let i = 0; i < 4; i++) expect(out.rotation[s * 4 + i]).toBeCloseTo(expected[i], 15);
    expect(Array.from(out.translation.subarray(s * 3, s * 3 + 3))).toEqual([1, -2, 3]);
    expect(Array.from(out.scale.subarray(s * 3, s * 3 + 3))).toEqual([2, 1, 1.5]);
  });

  it('three layers: successive slerp in layer order, weighted mean of translations, continuous as a layer fades in', async () => {
    const model = await fox();
    const poses = [0, 1, 2].map(() => createPose(model));
    sampleClip(createClipCursor(model.animations[0]), 1.2, poses[0]);
    sampleClip(createClipCursor(model.animations[1]), 0.3, poses[1]);
    sampleClip(createClipCursor(model.animations[2]), 0.8, poses[2]);
    const rest = createPose(model), out = createPose(model);
    const w = [0.5, 0.3, 0.2];
    new LayerBlendingJob(poses.map((p, i) => layer(p, w[i])), rest, out).run();
    const q01 = new Float64Array(4), q = new Float64Array(4);
    for (let s = 0; s < model.hierarchy.count; s++) {
      slerpQuat(poses[0].rotation, s * 4, poses[1].rotation, s * 4, [w[1] / (w[0] + w[1])], 0, q01, 0);
      slerpQuat(q01, 0, poses[2].rotation, s * 4, [w[2] / (w[0] + w[1] + w[2])], 0, q, 0);
      expect(quatAngle(q, out.rotation.subarray(s * 4))).toBeLessThan(1e-6);
      for (let c = 0; c < 3; c++) {
        const mean = (w[0] * poses[0].translation[s * 3 + c] + w[1] * poses[1].translation[s * 3 + c] + w[2] * poses[2].translation[s * 3 + c]) / (w[0] + w[1] + w[2]);
        expect(Math.abs(out.translation[s * 3 + c] - mean)).toBeLessThan(1e-9 * (1 + Math.abs(mean)));
      }
    }
    // Fading a third layer in from ~0 starts from the two-layer slerp, with no jump.
    const two = createPose(model), three = createPose(model);
    new LayerBlendingJob([layer(poses[0], 0.4), layer(poses[1], 0.6)], rest, two).run();
    new LayerBlendingJob([layer(poses[0], 0.4), layer(poses[1], 0.6), layer(poses[2], 1e-9)], rest, three).run();
    for (let i = 0; i < two.rotation.length; i++) expect(Math.abs(three.rotation[i] - two.rotation[i])).toBeLessThan(1e-8);
  });

  it('falls back to the rest pose: exactly when every weight is 0, blended in below the threshold', async () => {
    const model = await fox();
    const walk = createPose(model), rest = createPose(model), out = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.3, walk);
    const l = layer(walk, 0);
    const job = new LayerBlendingJob([l], rest, out);
    job.run();
    expect(Array.from(out.rotation)).toEqual(Array.from(rest.rotation));
    expect(Array.from(out.translation)).toEqual(Array.from(rest.translation));
    // 0.05 of a layer against a 0.1 threshold: the rest pose fills the other 0.05, half and half.
    l.weight = 0.05;
    job.run();
    const half = createPose(model);
    const two = new BlendingJob(walk, rest, half);
    two.weight = 0.5;
    two.run();
    for (let i = 0; i < out.rotation.length; i++) expect(out.rotation[i]).toBeCloseTo(half.rotation[i], 12);
    // At or above the threshold the rest pose takes no part.
    l.weight = 0.1;
    job.run();
    expect(Array.from(out.rotation)).toEqual(Array.from(walk.rotation));
  });

  it('a masked layer leaves joints outside its mask bit-for-bit as the base layer has them', async () => {
    const model = await loadCharacter();
    const walk = createPose(model), wave = createPose(model), rest = createPose(model), out = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 0.35, walk);
    sampleClip(createClipCursor(model.animations[2]), 1.2, wave);
    const upper = subtreeMask(model.hierarchy, findSlot(model, 'Spine'));
    new LayerBlendingJob([layer(walk, 1), layer(wave, 1, upper)], rest, out).run();
    const half = createPose(model);
    const two = new BlendingJob(walk, wave, half);
    two.weight = 0.5;
    two.run();
    let inside = 0, outside = 0;
    for (let s = 0; s < model.hierarchy.count; s++) {
      const r = Array.from(out.rotation.subarray(s * 4, s * 4 + 4)), t = Array.from(out.translation.subarray(s * 3, s * 3 + 3));
      if (upper[s] === 0) {
        outside++;
        expect(r).toEqual(Array.from(walk.rotation.subarray(s * 4, s * 4 + 4)));
        expect(t).toEqual(Array.from(walk.translation.subarray(s * 3, s * 3 + 3)));
      } else {
        inside++;
        expect(r).toEqual(Array.from(half.rotation.subarray(s * 4, s * 4 + 4)));
      }
    }
    expect(inside).toBe(12); // Spine, Chest, Neck, Head and 2 × (Shoulder, UpperArm, LowerArm, Hand)
    expect(outside).toBe(model.hierarchy.count - 12);
  });

  it('may write over one of its layers; morph weights blend like translations', async () => {
    const model = await fox();
    const a = createPose(model), b = createPose(model), rest = createPose(model), expected = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), 2, a);
    sampleClip(createClipCursor(model.animations[2]), 0.4, b);
    new LayerBlendingJob([layer(a, 0.4), layer(b, 0.6)], rest, expected).run();
    new LayerBlendingJob([layer(a, 0.4), layer(b, 0.6)], rest, b).run();
    expect(Array.from(b.rotation)).toEqual(Array.from(expected.rotation));
    expect(Array.from(b.translation)).toEqual(Array.from(expected.translation));

    const morph = await loadGltfFile(assetPath('SimpleMorph'));
    const m0 = createPose(morph), m1 = createPose(morph), out = createPose(morph);
    expect(m0.weights.length).toBeGreaterThan(1);
    m0.weights.fill(0);
    m1.weights.fill(1);
    new LayerBlendingJob([layer(m0, 3), layer(m1, 1)], createPose(morph), out).run();
    for (const w of out.weights) expect(w).toBeCloseTo(0.25, 7);
  });
});
