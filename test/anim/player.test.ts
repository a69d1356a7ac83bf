import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { BlendingJob } from '../../src/anim/blend.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { measureAllocation } from '../support/allocation.ts';
import { assetPath } from '../support/assets.ts';

const fox = () => loadGltfFile(assetPath('Fox'));

describe('AnimationPlayer', () => {
  it('starts paused on clip 0 at time 0; finds clips by name or index', async () => {
    const p = new AnimationPlayer(await fox());
    expect(p.clip).toBe(0);
    expect(p.playing).toBe(false);
    expect(p.findClip('Run')).toBe(2);
    expect(p.findClip(1)).toBe(1);
    expect(p.findClip('1')).toBe(1);
    expect(p.findClip('Dance')).toBe(-1);
    expect(p.findClip(7)).toBe(-1);
    expect(() => p.setClip(7)).toThrow(/clip 7 does not exist; the model has 3/);
  });

  it('loops: time wraps past the end, and backwards with negative speed', async () => {
    const p = new AnimationPlayer(await fox());
    p.setClip(1);
    const d = p.duration;
    expect(p.play()).toBe(p);
    p.update(d + 0.1);
    expect(p.time).toBeCloseTo(0.1, 6);
    p.speed = -1;
    p.update(0.2);
    expect(p.time).toBeCloseTo(d - 0.1, 6);
    expect(p.ended).toBe(false);
  });

  it('without loop clamps at the end, stops and reports ended once; play() starts over', async () => {
    const p = new AnimationPlayer(await fox());
    p.loop = false;
    p.setClip(1);
    p.play();
    p.update(10);
    expect(p.time).toBe(p.duration);
    expect(p.playing).toBe(false);
    expect(p.ended).toBe(true);
    p.update(0.1);
    expect(p.ended).toBe(false);
    p.play();
    expect(p.time).toBe(0);
  });

  it('does not advance while paused, but still evaluates a seek', async () => {
    const model = await fox();
    const p = new AnimationPlayer(model);
    p.setClip(2);
    p.update(0.5);
    expect(p.time).toBe(0);
    p.seek(0.3);
    const expected = createPose(model);
    sampleClip(createClipCursor(model.animations[2]), 0.3, expected);
    expect(Array.from(p.instance.pose.rotation)).toEqual(Array.from(expected.rotation));
  });

  it('crossfades: starts at the old clip, blends by elapsed/duration, ends at the new one', async () => {
    const model = await fox();
    const p = new AnimationPlayer(model);
    p.setClip(1);
    p.play();
    p.update(0.2); // Walk at 0.2
    const before = Float64Array.from(p.instance.pose.rotation);
    p.crossfadeTo(2, 0.5);
    expect(p.fading).toBe(true);
    for (let i = 0; i < before.length; i++) expect(p.instance.pose.rotation[i]).toBeCloseTo(before[i], 6); // weight 0 at the start

    p.update(0.2); // Walk at 0.4, Run at 0.2, weight 0.4
    const walk = createPose(model), run = createPose(model), mix = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.4, walk);
    sampleClip(createClipCursor(model.animations[2]), 0.2, run);
    const job = new BlendingJob(walk, run, mix);
    job.weight = 0.4;
    job.run();
    for (let i = 0; i < mix.rotation.length; i++) expect(p.instance.pose.rotation[i]).toBeCloseTo(mix.rotation[i], 5);

    p.update(0.4); // past the fade
    expect(p.fading).toBe(false);
    sampleClip(createClipCursor(model.animations[2]), 0.6, run);
    for (let i = 0; i < run.rotation.length; i++) expect(p.instance.pose.rotation[i]).toBeCloseTo(run.rotation[i], 6);
  });

  it('rejects a negative or infinite crossfade duration', async () => {
    const p = new AnimationPlayer(await fox());
    expect(() => p.crossfadeTo(1, -1)).toThrow(/crossfade duration -1/);
    expect(() => p.crossfadeTo(1, Infinity)).toThrow(/crossfade duration Infinity/);
  });

  it('plays the rest pose for a model without animations', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    const p = new AnimationPlayer({ ...model, animations: [] });
    expect(p.clip).toBe(-1);
    expect(p.duration).toBe(0);
    p.play();
    p.update(1);
    expect(p.playing).toBe(false);
  });
});

describe('AnimationPlayer frames allocate nothing', () => {
  // `update` passes seconds through fields: a double crossing a call V8 did not inline
  // (`wrap`, the `duration` getter, as it was) is boxed, once or more per frame, in the
  // compile states where V8 does not inline them (seen in a plain Node process, 16–59 B per
  // frame, by V8's sampling heap profiler; the runner's compile state happens to hide it).
  it('playing, looping, clamping and crossfading every 90 frames', async () => {
    const p = new AnimationPlayer(await fox());
    p.play();
    let frames = 0;
    const frame = (): void => {
      frames++;
      if (frames % 90 === 0) p.crossfadeTo(p.clip === 1 ? 2 : 1, 0.5);
      if (frames % 1000 === 0) p.loop = !p.loop;
      if (!p.playing) p.play();
      p.update(1 / 60);
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(frames).toBeGreaterThan(20_000);
  });
});
