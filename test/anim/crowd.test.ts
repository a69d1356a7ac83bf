import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { applyRootMotion } from '../../src/anim/crowd-root-motion.ts';
import { updateMatricesAndPalettes } from '../../src/anim/instance.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { createPose } from '../../src/anim/pose.ts';
import { lockRootInPlace, RootMotionJob } from '../../src/anim/root-motion.ts';
import { createClipCursor } from '../../src/anim/sample.ts';
import { WALK_STRIDE } from '../../src/builtin/character.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { measureAllocation } from '../support/allocation.ts';
import { assetPath } from '../support/assets.ts';
import { loadCharacter, paletteUlpError } from './fixtures.ts';
import { expectArraysEqual } from '../support/expect-arrays.ts';

const DT = 1 / 60;
const WALK = 0, IDLE = 1, WAVE = 2;

describe('Crowd', () => {
  it('rejects a bad capacity, instance, clip, crossfade duration or count', async () => {
    const model = await loadCharacter();
    expect(() => new Crowd(model, 0)).toThrow(/capacity 0 must be an integer ≥ 1/);
    const crowd = new Crowd(model, 2);
    expect(() => crowd.play(2, 0)).toThrow(/instance 2 is not in \[0, 2\)/);
    expect(() => crowd.play(0, 3)).toThrow(/clip 3 does not exist; the model has 3/);
    expect(() => crowd.crossfade(0, 1, -1)).toThrow(/duration -1 must be a finite number ≥ 0/);
    crowd.count = 3;
    expect(() => crowd.update(DT)).toThrow(/count 3 is not in \[0, 2\]/);
  });

  it('takes a root motion table found elsewhere (one per clip), or refuses one of another length', async () => {
    const model = await loadCharacter();
    const table = new Crowd(model, 1).rootMotions;
    expect(new Crowd(model, 2, 'cpu', table).rootMotions).toBe(table);
    expect(() => new Crowd(model, 2, 'cpu', table.slice(1))).toThrow(/rootMotions has 2 entries; the model has 3 clips/);
  });

  it('puts every palette back to back in one array, each instance viewing its own part', async () => {
    const crowd = new Crowd(await loadCharacter(), 3);
    const floats = crowd.paletteMatrices * 16;
    expect(crowd.palettes.length).toBe(3 * floats);
    crowd.instances.forEach((instance, k) => {
      expect(instance.palette.buffer).toBe(crowd.palettes.buffer);
      expect(instance.palette.byteOffset).toBe(k * floats * 4);
      expect(instance.palette.length).toBe(floats);
    });
  });

  it('runs on an InstanceBatch (the WebAssembly pose path here) whose palette is the crowd\'s', async () => {
    const crowd = new Crowd(await loadCharacter(), 3);
    expect(crowd.batch.accelerated).toBe(true);
    expect(crowd.batch.count).toBe(crowd.capacity);
    expect(crowd.palettes).toBe(crowd.batch.palette);
    expect(crowd.instances).toBe(crowd.batch.instances);
  });

  it('evaluates only the first `count` instances, leaving the others as they were', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const crowd = new Crowd(model, 40);
    crowd.count = 25; // more than one kernel chunk, fewer than the capacity
    for (let k = 0; k < crowd.capacity; k++) crowd.play(k, k % 3, 0.05 * k);
    const rest = crowd.instances[30].palette.slice(), times = crowd.time.slice();
    const player = new AnimationPlayer(model);
    for (let frame = 0; frame < 5; frame++) crowd.update(DT);
    for (let k = 0; k < crowd.capacity; k++) {
      if (k < crowd.count) {
        player.setClip(k % 3);
        player.seek(crowd.time[k]);
        player.update(0);
        expect(paletteUlpError(crowd.instances[k].palette, player.instance.palette, model, player.instance.nodeMatrices), `instance ${k}`).toBeLessThanOrEqual(1);
      } else {
        expect(crowd.time[k]).toBe(times[k]);
        expectArraysEqual(crowd.instances[k].palette, rest, `instance ${k}`);
      }
    }
  });

  it('finds root motion in the built-in Walk only (Idle and Wave play in place), and none in the Fox', async () => {
    const crowd = new Crowd(await loadCharacter(), 1);
    expect(crowd.rootMotions.map((m) => m !== undefined)).toEqual([true, false, false]);
    expect(crowd.rootMotions[WALK]!.track.rootSlot).toBe(findSlot(crowd.model, 'Root'));
    const fox = new Crowd(await loadGltfFile(assetPath('Fox')), 1);
    expect(fox.rootMotions.every((m) => m === undefined)).toBe(true);
  });

  it('gives each instance the pose and node matrices a standalone AnimationPlayer gives for its clip, time, speed and crossfade, bit for bit, and its palette to f32 rounding', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const crowd = new Crowd(model, 3);
    const players = [0, 1, 2].map(() => new AnimationPlayer(model));
    const setups = [{ clip: 0, time: 0.3, speed: 1 }, { clip: 1, time: 0.05, speed: 0.7 }, { clip: 2, time: 0.4, speed: -1.3 }];
    setups.forEach((s, k) => {
      crowd.play(k, s.clip, s.time);
      crowd.speed[k] = s.speed;
      players[k].setClip(s.clip);
      players[k].seek(s.time);
      players[k].speed = s.speed;
      players[k].play();
    });
    for (let frame = 0; frame < 150; frame++) {
      if (frame === 40) {
        // Crossfades of different lengths, one of them still blending at the end.
        crowd.crossfade(0, 2, 0.5);
        players[0].crossfadeTo(2, 0.5);
        crowd.crossfade(2, 1, 3);
        players[2].crossfadeTo(1, 3);
      }
      crowd.update(DT);
      players.forEach((p) => p.update(DT));
      for (let k = 0; k < 3; k++) {
        expect(crowd.time[k]).toBe(players[k].time);
        expect(crowd.clip[k]).toBe(players[k].clip);
        expect(crowd.fading(k)).toBe(players[k].fading);
        expectArraysEqual(crowd.instances[k].pose.rotation, players[k].instance.pose.rotation);
        expectArraysEqual(crowd.instances[k].nodeMatrices, players[k].instance.nodeMatrices);
        expect(paletteUlpError(crowd.instances[k].palette, players[k].instance.palette, model, players[k].instance.nodeMatrices)).toBeLessThanOrEqual(1);
      }
    }
    expect(crowd.fading(2)).toBe(true);
    // Nothing moved: the Fox's clips play in place.
    expect(Array.from(crowd.placements.subarray(0, 16))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  });

  it('matches the player on a root-motion clip once the player\'s root is locked in place as well', async () => {
    const model = await loadCharacter();
    const crowd = new Crowd(model, 2);
    crowd.play(0, WALK, 0.2);
    crowd.play(1, IDLE, 0.7);
    const player = new AnimationPlayer(model);
    player.setClip(WALK);
    player.seek(0.2);
    player.play();
    const track = crowd.rootMotions[WALK]!.track;
    for (let frame = 0; frame < 90; frame++) {
      if (frame === 30) {
        crowd.crossfade(1, WAVE, 0.25);
      }
      crowd.update(DT);
      player.update(DT);
      lockRootInPlace(track, player.instance.pose);
      updateMatricesAndPalettes(player.instance);
      expectArraysEqual(crowd.instances[0].nodeMatrices, player.instance.nodeMatrices);
      expect(paletteUlpError(crowd.instances[0].palette, player.instance.palette, model, player.instance.nodeMatrices)).toBeLessThanOrEqual(1);
    }
  });

  it('moves each placement by its root motion along its own facing, and keeps the root joint where it started', async () => {
    const model = await loadCharacter();
    const crowd = new Crowd(model, 3);
    const root = findSlot(model, 'Root');
    crowd.setPlacement(1, 3, 0, 0, Math.PI / 2); // facing +X
    crowd.play(2, IDLE);
    const rootStart = Array.from(crowd.instances[0].nodeMatrices.subarray(root * 16 + 12, root * 16 + 15));
    const seconds = 2.5;
    for (let frame = 0; frame < seconds * 60; frame++) {
      crowd.update(DT);
      const m = crowd.instances[0].nodeMatrices;
      // Ground position of the root joint (x, z) never leaves its first frame's.
      expect(Math.abs(m[root * 16 + 12] - rootStart[0])).toBeLessThan(1e-6);
      expect(Math.abs(m[root * 16 + 14] - rootStart[2])).toBeLessThan(1e-6);
    }
    const distance = WALK_STRIDE * seconds;
    const p = crowd.placements;
    expect(p[12]).toBeCloseTo(0, 6);
    expect(p[14]).toBeCloseTo(distance, 4);
    expect(p[16 + 12]).toBeCloseTo(3 + distance, 4);
    expect(p[16 + 14]).toBeCloseTo(0, 4);
    expect(p[32 + 12]).toBe(0); // Idle has no root motion
    expect(p[32 + 14]).toBe(0);
    expect(crowd.moved[0]).toBeCloseTo(WALK_STRIDE * DT, 4);
    expect(crowd.moved[2]).toBe(0);
  });

  it('moves placements exactly as root motion sampled afresh each step would, across loop ends, speeds, backwards play and cuts', async () => {
    // The crowd takes each step's root motion from the poses it sampled (the step's start
    // cached from the step before); a job that samples the root at both ends is the reference.
    for (const [name, model] of [['built-in', await loadCharacter()], ['CesiumMan', await loadGltfFile(assetPath('CesiumMan'))]] as const) {
      const crowd = new Crowd(model, 2);
      const clip = crowd.rootMotions.findIndex((m) => m !== undefined);
      expect(clip, name).toBeGreaterThanOrEqual(0);
      const rootMotion = crowd.rootMotions[clip]!;
      const duration = model.animations[clip].duration;
      const reference = new RootMotionJob(rootMotion.track, createClipCursor(rootMotion.track.clip), createPose(model), new Float64Array(4));
      const placements = new Float64Array(16), moved = new Float64Array(1);
      placements.set(crowd.placements.subarray(0, 16));
      let time = 0.3 * duration;
      crowd.play(0, clip, time);
      crowd.speed[0] = 1.7;
      for (let frame = 0; frame < 240; frame++) {
        if (frame === 80) crowd.speed[0] = -0.6; // backwards, across the start
        if (frame === 150) { time = 0.9 * duration; crowd.play(0, clip, time); crowd.speed[0] = 2.3; } // a cut: the cached start misses
        crowd.update(DT);
        const step = DT * crowd.speed[0];
        const previous = time;
        time = (previous + step) % duration;
        if (time < 0) time += duration;
        reference.fromTime = previous;
        reference.toTime = time;
        reference.loops = Math.round((previous + step - time) / duration);
        reference.run();
        applyRootMotion(rootMotion, reference.delta, placements, 0, moved);
        expect(crowd.time[0]).toBe(time);
        expect(Array.from(crowd.placements.subarray(0, 16)), `${name} frame ${frame}`).toEqual(Array.from(placements));
      }
    }
  });

  it('plays root-motion clips in place when rootMotion is off, and steers and wraps placements', async () => {
    const crowd = new Crowd(await loadCharacter(), 2);
    crowd.rootMotion = false;
    for (let frame = 0; frame < 30; frame++) crowd.update(DT);
    expect(crowd.placements[14]).toBe(0);
    crowd.rootMotion = true;
    const turns = Float64Array.of(Math.PI / 2, 0);
    crowd.turn(0, turns); // now facing +X
    for (let frame = 0; frame < 60; frame++) crowd.update(DT);
    expect(crowd.placements[12]).toBeCloseTo(WALK_STRIDE, 3);
    expect(crowd.placements[14]).toBeCloseTo(0, 3);
    crowd.wrapPlacements(Float64Array.of(-1, -1, 1, 1));
    expect(crowd.placements[12]).toBeCloseTo(WALK_STRIDE - 2, 3);
    expect(crowd.placements[16 + 14]).toBeCloseTo(WALK_STRIDE - 2, 3);
  });

  it('updates a crowd with crossfades and root motion without allocating', async () => {
    const crowd = new Crowd(await loadCharacter(), 16);
    for (let k = 0; k < 16; k++) {
      crowd.play(k, k % 3, k * 0.1);
      crowd.speed[k] = 0.8 + 0.03 * k;
    }
    for (let k = 0; k < 16; k += 2) crowd.crossfade(k, WALK, 1e6); // blending for the whole measurement
    const area = Float64Array.of(-10, -10, 10, 10);
    const frame = (): void => {
      crowd.update(DT);
      crowd.wrapPlacements(area);
    };
    const { rounds, clean } = await measureAllocation(frame, 2_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});

describe('Crowd.placeOnGrid', () => {
  it('lays the instances out on a centred square grid, facing +Z, and returns the area it covers', async () => {
    const crowd = new Crowd(await loadCharacter(), 5);
    const area = crowd.placeOnGrid(2);
    // 5 instances: 3 columns, 2 rows.
    expect(Array.from(area)).toEqual([-3, -2, 3, 2]);
    const at = (k: number) => [crowd.placements[k * 16 + 12], crowd.placements[k * 16 + 14]];
    expect([0, 1, 2, 3, 4].map(at)).toEqual([[-2, -1], [0, -1], [2, -1], [-2, 1], [0, 1]]);
    expect(crowd.placements[10]).toBe(1); // +Z stays +Z
  });
});
