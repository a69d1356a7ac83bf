import { describe, expect, it } from 'vitest';
import { quat, vec3 } from 'wgpu-matrix';
import { BlendingJob } from '../../src/anim/blend.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { assetPath } from '../support/assets.ts';

describe('BlendingJob', () => {
  it('rejects a weight outside [0, 1] and poses of different skeletons', async () => {
    const fox = await loadGltfFile(assetPath('Fox'));
    const man = await loadGltfFile(assetPath('CesiumMan'));
    const job = new BlendingJob(createPose(fox), createPose(fox), createPose(fox));
    job.weight = 1.5;
    expect(() => job.run()).toThrow(/weight 1.5/);
    job.weight = NaN;
    expect(() => job.run()).toThrow(/weight NaN/);
    expect(() => new BlendingJob(createPose(fox), createPose(man), createPose(fox)).run()).toThrow(/different skeletons/);
  });

  it('equals lerp of translations/scales and slerp of rotations of two sampled clips', async () => {
    const fox = await loadGltfFile(assetPath('Fox'));
    const walk = createPose(fox), run = createPose(fox), out = createPose(fox);
    sampleClip(createClipCursor(fox.animations[1]), 0.3, walk);
    sampleClip(createClipCursor(fox.animations[2]), 0.7, run);
    for (const w of [0, 0.25, 0.5, 1]) {
      const job = new BlendingJob(walk, run, out);
      job.weight = w;
      job.run();
      for (let s = 0; s < fox.hierarchy.count; s++) {
        const t = vec3.lerp(walk.translation.subarray(s * 3, s * 3 + 3), run.translation.subarray(s * 3, s * 3 + 3), w);
        t.forEach((v, i) => expect(out.translation[s * 3 + i]).toBeCloseTo(v, 5));
        const q = quat.slerp(walk.rotation.subarray(s * 4, s * 4 + 4), run.rotation.subarray(s * 4, s * 4 + 4), w);
        const sign = Math.sign(q[0] * out.rotation[s * 4] + q[1] * out.rotation[s * 4 + 1] + q[2] * out.rotation[s * 4 + 2] + q[3] * out.rotation[s * 4 + 3]) || 1;
        q.forEach((v, i) => expect(Math.abs(out.rotation[s * 4 + i] - sign * v)).toBeLessThan(1e-5));
      }
    }
  });

  it('may write its output over the `to` pose', async () => {
    const fox = await loadGltfFile(assetPath('Fox'));
    const a = createPose(fox), b = createPose(fox), expected = createPose(fox);
    sampleClip(createClipCursor(fox.animations[0]), 1, a);
    sampleClip(createClipCursor(fox.animations[1]), 0.2, b);
    const separate = new BlendingJob(a, b, expected);
    separate.weight = 0.4;
    separate.run();
    const inPlace = new BlendingJob(a, b, b);
    inPlace.weight = 0.4;
    inPlace.run();
    expect(Array.from(b.rotation)).toEqual(Array.from(expected.rotation));
    expect(Array.from(b.translation)).toEqual(Array.from(expected.translation));
  });
});
