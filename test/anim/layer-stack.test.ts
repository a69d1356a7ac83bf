import { describe, expect, it } from 'vitest';
import { BlendingJob } from '../../src/anim/blend.ts';
import { AdditiveJob, makeAdditiveClip, setIdentityPose } from '../../src/anim/additive.ts';
import { findSlot, subtreeMask } from '../../src/anim/mask.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { loadCharacter } from './fixtures.ts';

describe('LayerStack: invalid inputs', () => {
  it('rejects missing clips, masks of another size and bad weights', async () => {
    const player = new AnimationPlayer(await loadCharacter());
    expect(() => player.layers.addOverride(7)).toThrow(/clip 7 does not exist; the model has 3/);
    expect(() => player.layers.addAdditive(1, 1, new Float32Array(4))).toThrow(/layer mask has 4 weights, the model has 22 slots/);
    const layer = player.layers.addOverride(2);
    layer.weight = -1;
    expect(() => player.evaluate()).toThrow(/weight -1/);
    player.layers.remove(layer);
    expect(player.layers.layers).toHaveLength(0);
    player.evaluate();
  });
});

describe('AnimationPlayer layers: numbers', () => {
  it('an upper-body override: legs exactly the walk, the masked joints the blend toward the wave', async () => {
    const model = await loadCharacter();
    const player = new AnimationPlayer(model);
    const upper = subtreeMask(model.hierarchy, findSlot(model, 'Spine'));
    const wave = player.layers.addOverride(2, 0.75, upper);
    player.play();
    for (let i = 0; i < 20; i++) player.update(1 / 30);
    expect(wave.time).toBeCloseTo(20 / 30, 12); // layers keep their own clock
    const walk = createPose(model), waving = createPose(model), mixed = createPose(model);
    sampleClip(createClipCursor(model.animations[0]), player.time, walk);
    // The layer samples over a copy of the base, so joints the wave does not animate stay the walk's.
    waving.translation.set(walk.translation);
    waving.rotation.set(walk.rotation);
    waving.scale.set(walk.scale);
    sampleClip(createClipCursor(model.animations[2]), wave.time, waving);
    const blend = new BlendingJob(walk, waving, mixed);
    blend.weight = 0.75;
    blend.run();
    const pose = player.instance.pose;
    for (let s = 0; s < model.hierarchy.count; s++) {
      const got = Array.from(pose.rotation.subarray(s * 4, s * 4 + 4));
      if (upper[s] === 0) expect(got).toEqual(Array.from(walk.rotation.subarray(s * 4, s * 4 + 4)));
      else got.forEach((v, i) => expect(Math.abs(v - mixed.rotation[s * 4 + i])).toBeLessThan(1e-12));
    }
  });

  it('an additive layer: weight 0 is bit-exact the plain clip; weight 0.5 is the AdditiveJob result', async () => {
    const model = await loadCharacter();
    const plain = new AnimationPlayer(model), layered = new AnimationPlayer(model);
    const breathe = layered.layers.addAdditive(1, 0);
    for (const p of [plain, layered]) { p.play(); p.update(0.4); }
    expect(Array.from(layered.instance.pose.rotation)).toEqual(Array.from(plain.instance.pose.rotation));
    expect(Array.from(layered.instance.nodeMatrices)).toEqual(Array.from(plain.instance.nodeMatrices));
    breathe.weight = 0.5;
    layered.evaluate();
    const delta = createPose(model), expected = createPose(model);
    sampleClip(createClipCursor(makeAdditiveClip(model, model.animations[1])), breathe.time, setIdentityPose(delta));
    const job = new AdditiveJob(plain.instance.pose, delta, expected);
    job.weight = 0.5;
    job.run();
    expect(Array.from(layered.instance.pose.rotation)).toEqual(Array.from(expected.rotation));
  });
});
