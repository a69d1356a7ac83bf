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
import { createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, updateInstanceBatch } from '../../src/anim/batch.ts';
import { updateModelInstance } from '../../src/anim/instance.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { SkinnedBoundsJob } from '../../src/anim/skinned-bounds.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { centerOfRotationBounds } from '../../src/skin/centers-of-rotation/bounds.ts';
import { assetPath } from '../support/assets.ts';
import { buildPulse } from './pulse-fixture.ts';
import { retargetedWalk } from './retarget/fixtures.ts';
import { newJob, perFrameCases } from './skinned-bounds-sweep.ts';


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

// The per-frame paths of the other anim files, measured here (in one isolated worker) rather than
// isolating each of those files for its one heap count.
describe('InstanceBatch frames allocate nothing', () => {
  /** CesiumMan's batch of 20, and a step that moves every character's clock on by a frame. */
  async function cesiumBatch(wasm: boolean) {
    const model = await loadGltfFile(assetPath('CesiumMan'));
    const batch = createInstanceBatch(model, 20, { wasm });
    const duration = model.animations[0].duration;
    // Per-frame numbers in a typed array: a closure variable holding a double would box it.
    const clock = new Float64Array(1);
    const advance = (): void => {
      clock[0] = (clock[0] + 1 / 60) % duration;
      for (let i = 0; i < batch.count; i++) { batch.clips[i] = 0; batch.times[i] = (clock[0] + 0.1 * i) % duration; }
    };
    return { batch, advance };
  }

  for (const wasm of [true, false]) {
    it(`allocates nothing per frame (${wasm ? 'WebAssembly' : 'JS'} path)`, async () => {
      const { batch, advance } = await cesiumBatch(wasm);
      const frame = (): void => {
        advance();
        updateInstanceBatch(batch);
      };
      const { rounds, clean } = await measureAllocation(frame, 2_000, 64 * 1024);
      expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    });
  }

  for (const wasm of [true, false]) {
    it(`sample, edit, then matrices allocates nothing per frame (${wasm ? 'WebAssembly' : 'JS'} path)`, async () => {
      const { batch, advance } = await cesiumBatch(wasm);
      const frame = (): void => {
        advance();
        sampleInstanceBatch(batch, 15);
        batch.instances[0].pose.translation[0] = 0;
        updateBatchMatricesAndPalettes(batch, 15);
      };
      const { rounds, clean } = await measureAllocation(frame, 2_000, 64 * 1024);
      expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    });
  }
});

describe('material tracks allocate nothing', () => {
  it('a playing frame with material tracks allocates nothing', async () => {
    const p = new AnimationPlayer(await buildPulse());
    p.play();
    const { rounds, clean } = await measureAllocation(() => p.update(1 / 60), 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(p.instance.materialAnimation!.version).toBeGreaterThan(1000);
  });

  it('evaluating a material crossfade allocates nothing', async () => {
    // The material side of a crossfade, driven through the fields the player sets (the
    // player's crossfade frames are measured in player.test.ts). Times live in a typed array:
    // a double in the closure would be boxed.
    const m = new AnimationPlayer(await buildPulse()).instance.materialAnimation!;
    const time = new Float64Array(1);
    let frames = 0;
    const frame = (): void => {
      time[0] = time[0] >= 2 ? 0 : time[0] + 1 / 60;
      m.clip = 0;
      m.time = time[0];
      if (++frames === 90) {
        frames = 0;
        m.fromClip = m.fromClip < 0 ? 1 : -1;
        m.fromTime = time[0];
      }
      m.weight = m.fromClip >= 0 ? 0.5 : 1;
      m.evaluate();
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(m.version).toBeGreaterThan(1000);
  });
});

describe('retargeted clips allocate nothing', () => {
  it('sampling a retargeted clip allocates nothing', async () => {
    const { tgt } = await retargetedWalk();
    const pose = createPose(tgt);
    const cursor = createClipCursor(tgt.animations[1]);
    // The clock lives in a typed array: a captured `let` double would itself be boxed per frame.
    const clock = new Float64Array(1);
    const frame = () => {
      clock[0] += 1 / 60;
      if (clock[0] > 1) clock[0] -= 1;
      cursor.time = clock[0];
      sampleCursor(cursor, pose);
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});

describe('SkinnedBoundsJob per frame', () => {
  it('allocates nothing over many runs, in every mode', async () => {
    const jobs: SkinnedBoundsJob[] = [];
    for (const c of perFrameCases) {
      const model = await c.load();
      const { instance, job } = newJob(model);
      updateModelInstance(instance, 0, 0.4);
      const coarse = new SkinnedBoundsJob(job.bounds, instance, new Float32Array(3), new Float32Array(3));
      coarse.coarse = true;
      const dq = new SkinnedBoundsJob(job.bounds, instance, new Float32Array(3), new Float32Array(3), new Float32Array(model.meshNodes.length * 6));
      dq.skinning = 'dual-quaternion';
      const cor = new SkinnedBoundsJob(centerOfRotationBounds(model), instance, new Float32Array(3), new Float32Array(3), new Float32Array(model.meshNodes.length * 6));
      cor.skinning = 'center-of-rotation';
      jobs.push(job, coarse, dq, cor);
    }
    const frame = (): void => {
      for (let j = 0; j < jobs.length; j++) jobs[j].run();
    };
    const { rounds, clean } = await measureAllocation(frame, 5_000, 32 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(Number.isFinite(jobs[0].outMin[0])).toBe(true);
  });
});
