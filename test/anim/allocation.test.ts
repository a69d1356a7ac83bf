import { describe, expect, it } from 'vitest';
import { AdditiveJob, makeAdditiveClip, setIdentityPose } from '../../src/anim/additive.ts';
import { AimJob } from '../../src/anim/aim.ts';
import { LayerBlendingJob, type BlendLayer } from '../../src/anim/blend-layers.ts';
import { TwoBoneIKJob } from '../../src/anim/ik.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import { findSlot, subtreeMask } from '../../src/anim/mask.ts';
import { createPose } from '../../src/anim/pose.ts';
import { accumulateRootMotion, createRootMotionTrack, lockRootInPlace, RootMotionJob } from '../../src/anim/root-motion.ts';
import { createClipCursor, sampleCursor } from '../../src/anim/sample.ts';
import { loadCharacter } from './fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';


describe('per-frame jobs allocate nothing', () => {
  it('a whole frame — sample, masked blend, additive, IK, aim, root motion — runs without garbage', async () => {
    const model = await loadCharacter();
    const h = model.hierarchy;
    const walk = createPose(model), wave = createPose(model), rest = createPose(model), out = createPose(model), delta = createPose(model);
    const walkCursor = createClipCursor(model.animations[0]), waveCursor = createClipCursor(model.animations[2]);
    const breathe = createClipCursor(makeAdditiveClip(model, model.animations[1]));
    const layers: BlendLayer[] = [{ pose: walk, weight: 1, mask: null }, { pose: wave, weight: 0.5, mask: subtreeMask(h, findSlot(model, 'Spine')) }];
    const blend = new LayerBlendingJob(layers, rest, out);
    const additive = new AdditiveJob(out, delta, out);
    additive.weight = 0.7;
    const models = new Float64Array(h.count * 16);
    const target = Float64Array.of(0.3, 1.1, 0.3);
    const ik = new TwoBoneIKJob(h, out, models, findSlot(model, 'UpperArm.L'), findSlot(model, 'LowerArm.L'), findSlot(model, 'Hand.L'), target, Float64Array.of(0, 0, -1));
    ik.soften = 0.95;
    const aim = new AimJob(h, out, models, findSlot(model, 'Head'), Float64Array.of(1, 1.6, 2));
    aim.limit = 1;
    const track = createRootMotionTrack(model, model.animations[0], findSlot(model, 'Hips'));
    const step = new Float64Array(4), world = new Float64Array(4);
    const motion = new RootMotionJob(track, createClipCursor(track.clip), createPose(model), step);
    // Per-frame numbers live in a typed array: a closure variable holding a double would box it.
    const clock = new Float64Array(1);

    const frame = (): void => {
      const previous = clock[0];
      const next = previous + 1 / 60;
      const loops = next >= 1 ? 1 : 0;
      const time = next - loops;
      clock[0] = time;
      walkCursor.time = time; sampleCursor(walkCursor, walk);
      waveCursor.time = time * 2.5; sampleCursor(waveCursor, wave);
      breathe.time = time * 2; sampleCursor(breathe, setIdentityPose(delta));
      layers[1].weight = 0.5 + 0.5 * Math.sin(time * 6);
      blend.run();
      additive.run();
      localToModel(h, out, models);
      target[0] = 0.3 + 0.1 * Math.cos(time * 6);
      ik.run();
      aim.run();
      localToModel(h, out, models);
      motion.fromTime = previous; motion.toTime = time; motion.loops = loops;
      motion.run();
      accumulateRootMotion(track, step, world);
      lockRootInPlace(track, out);
    };

    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(Number.isFinite(world[0]) && Number.isFinite(out.rotation[0])).toBe(true);
  });
});
