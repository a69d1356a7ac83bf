import { describe, expect, it } from 'vitest';
import { quat } from 'wgpu-matrix';
import { Interpolation, TargetPath } from '../../src/gltf/constants.ts';
import type { Clip, Sampler } from '../../src/gltf/model.ts';
import { createClipCursor, findKey, sampleClip } from '../../src/anim/sample.ts';
import type { Pose } from '../../src/anim/pose.ts';
import { prepareSlerpKeys } from '../../src/math/quat.ts';

function onePose(weights = 0): Pose {
  return {
    translation: new Float64Array(3), rotation: Float64Array.of(0, 0, 0, 1), scale: Float64Array.of(1, 1, 1),
    weights: new Float32Array(weights), weightOffsets: Int32Array.of(0, weights),
  };
}

function clipOf(path: number, sampler: Sampler): Clip {
  return { name: 'test', duration: sampler.times[sampler.times.length - 1], channels: [{ node: 0, slot: 0, path: path as 0, sampler, timeline: 0 }], timelines: [sampler.times] };
}

function sampler(interpolation: number, times: number[], values: number[], components: number): Sampler {
  const v = Float32Array.from(values);
  const slerp = interpolation === Interpolation.LINEAR && components === 4 ? prepareSlerpKeys(v, times.length) : undefined;
  return { interpolation: interpolation as 0, times: Float32Array.from(times), values: v, components, slerpAngle: slerp?.slerpAngle, slerpInvSin: slerp?.slerpInvSin };
}

const at = (clip: Clip, t: number, pose = onePose(), field: 'translation' | 'rotation' | 'scale' = 'translation') => {
  sampleClip(createClipCursor(clip), t, pose);
  return Array.from(pose[field]);
};

describe('findKey', () => {
  const times = Float32Array.of(0, 1, 2, 4);
  it('finds the key at or before t from any hint', () => {
    for (const hint of [0, 1, 2, 3, 7]) {
      expect(findKey(times, { time: -1 }, hint)).toBe(0);
      expect(findKey(times, { time: 0 }, hint)).toBe(0);
      expect(findKey(times, { time: 0.5 }, hint)).toBe(0);
      expect(findKey(times, { time: 1 }, hint)).toBe(1);
      expect(findKey(times, { time: 3.9 }, hint)).toBe(2);
      expect(findKey(times, { time: 4 }, hint)).toBe(3);
      expect(findKey(times, { time: 99 }, hint)).toBe(3);
    }
  });
  it('handles a single key', () => {
    expect(findKey(Float32Array.of(2), { time: 0 }, 0)).toBe(0);
    expect(findKey(Float32Array.of(2), { time: 5 }, 0)).toBe(0);
  });
});

describe('sampleClip', () => {
  const linear = clipOf(TargetPath.TRANSLATION, sampler(Interpolation.LINEAR, [1, 2, 4], [0, 0, 0, 10, 0, 0, 10, 20, 0], 3));

  it('LINEAR interpolates translation and clamps outside the keys', () => {
    expect(at(linear, 0)).toEqual([0, 0, 0]);
    expect(at(linear, 1.5)).toEqual([5, 0, 0]);
    expect(at(linear, 3)).toEqual([10, 10, 0]);
    expect(at(linear, 10)).toEqual([10, 20, 0]);
  });

  it('STEP holds the previous key until the next key time', () => {
    const step = clipOf(TargetPath.SCALE, sampler(Interpolation.STEP, [0, 1], [1, 1, 1, 2, 3, 4], 3));
    expect(at(step, 0.999, onePose(), 'scale')).toEqual([1, 1, 1]);
    expect(at(step, 1, onePose(), 'scale')).toEqual([2, 3, 4]);
  });

  it('LINEAR rotation is a shortest-arc slerp', () => {
    const s = Math.SQRT1_2;
    // The second key is stored negated (same rotation): the shortest arc is still 45°.
    const rot = clipOf(TargetPath.ROTATION, sampler(Interpolation.LINEAR, [0, 1], [0, 0, 0, 1, 0, 0, -s, -s], 4));
    const q = at(rot, 0.5, onePose(), 'rotation');
    const expected = [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)];
    const sign = Math.sign(q[3]);
    q.forEach((v, i) => expect(v * sign).toBeCloseTo(expected[i], 6));
  });

  it('LINEAR rotation matches wgpu-matrix slerp for random keys, tiny and near-opposite angles included', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const unit = (q: number[]) => { const l = Math.hypot(...q); return q.map((x) => x / l); };
    const pairs: number[][][] = [];
    for (let i = 0; i < 200; i++) pairs.push([unit([rand(), rand(), rand(), rand()]), unit([rand(), rand(), rand(), rand()])]);
    const q = unit([0.3, -0.2, 0.5, 0.7]);
    pairs.push([q, unit(q.map((x, i) => x + (i === 0 ? 1e-7 : 0)))]); // equal to float precision
    pairs.push([q, q.map((x) => -x)]); // same rotation, opposite sign
    pairs.push([[0, 0, 0, 1], unit([0, 0, 1, 1e-3])]); // almost 180°
    for (const [a, b] of pairs) {
      const clip = clipOf(TargetPath.ROTATION, sampler(Interpolation.LINEAR, [0, 1], [...a, ...b], 4));
      for (const u of [0.1, 0.5, 0.93]) {
        const got = at(clip, u, onePose(), 'rotation');
        const want = Array.from(quat.slerp(Float32Array.from(a), Float32Array.from(b), u));
        const sign = got[0] * want[0] + got[1] * want[1] + got[2] * want[2] + got[3] * want[3] < 0 ? -1 : 1;
        got.forEach((v, i) => expect(Math.abs(v - sign * want[i]), `pair ${a} → ${b} at ${u}`).toBeLessThan(2e-6));
      }
    }
  });

  it('CUBICSPLINE evaluates the Hermite spline with tangents scaled by the key interval', () => {
    // One component; keys at t=0 (v=0, out-tangent 1) and t=2 (v=1, in-tangent 0).
    // p(s) = h00·0 + h10·dt·1 + h01·1 + h11·dt·0 with dt=2, s=0.5:
    // h10 = s³-2s²+s = 0.125, h01 = -2s³+3s² = 0.5 → 0.25 + 0.5 = 0.75
    const spline = sampler(Interpolation.CUBICSPLINE, [0, 2], [/*in*/ 0, 0, 0, /*v*/ 0, 0, 0, /*out*/ 1, 0, 0, /*in*/ 0, 0, 0, /*v*/ 1, 0, 0, /*out*/ 0, 0, 0], 3);
    const clip = clipOf(TargetPath.TRANSLATION, spline);
    expect(at(clip, 1)[0]).toBeCloseTo(0.75, 12);
    expect(at(clip, 0)[0]).toBe(0);
    expect(at(clip, 2)[0]).toBe(1);
    expect(at(clip, 5)[0]).toBe(1);
    expect(at(clip, -1)[0]).toBe(0);
  });

  it('CUBICSPLINE rotations come out normalised', () => {
    const s = Math.SQRT1_2;
    const spline = sampler(Interpolation.CUBICSPLINE, [0, 1], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0, s, s, 0, 0, 0, 0], 4);
    const q = at(clipOf(TargetPath.ROTATION, spline), 0.5, onePose(), 'rotation');
    expect(Math.hypot(...q)).toBeCloseTo(1, 12);
    expect(q[2] / q[3]).toBeCloseTo(Math.tan(Math.PI / 8), 1); // about halfway
  });

  it('gives the same answer from a warm cursor (forward and backward) as from a fresh one', () => {
    const times = Array.from({ length: 50 }, (_, i) => i * 0.1);
    const values = times.flatMap((t) => [Math.sin(t), t * t, -t]);
    const clip = clipOf(TargetPath.TRANSLATION, sampler(Interpolation.LINEAR, times, values, 3));
    const cursor = createClipCursor(clip);
    const warm = onePose();
    for (const t of [0, 0.05, 0.33, 0.34, 1.2, 4.8, 5, 0.2, 3.3, 3.31, -1, 2]) {
      sampleClip(cursor, t, warm);
      expect(Array.from(warm.translation)).toEqual(at(clip, t));
    }
  });

  it('samples morph weights channels', () => {
    const w = clipOf(TargetPath.WEIGHTS, sampler(Interpolation.LINEAR, [0, 1], [0, 1, 1, 0], 2));
    const pose = onePose(2);
    sampleClip(createClipCursor(w), 0.25, pose);
    expect(Array.from(pose.weights)).toEqual([0.25, 0.75]);
  });
});
