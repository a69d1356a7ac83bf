import { describe, expect, it, vi } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { updateMatricesAndPalettes } from '../../src/anim/instance.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { lockRootInPlace } from '../../src/anim/root-motion.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { WALK_STRIDE } from '../../src/builtin/character.ts';
import { animatedBounds } from '../../src/element/camera/framing.ts';
import { loadCrowdCode, MAX_GPU_INSTANCES, MAX_INSTANCES, parseCrowdEvaluator, ViewerStage } from '../../src/element/stage.ts';
import { setIdentity } from '../../src/math/trs.ts';
import { loadCharacter } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';
import { expectArraysEqual } from '../support/expect-arrays.ts';

const DT = 1 / 60;

async function setup() {
  await loadCrowdCode();
  const model = await loadCharacter();
  const player = new AnimationPlayer(model);
  const stage = new ViewerStage(model);
  stage.setBaseBounds(animatedBounds(player, (p) => stage.lockRoot(p)));
  return { model, player, stage };
}

/** The private single-character placement, read through the render path's view of it. */
const placementOf = (stage: ViewerStage): Float64Array => (stage as unknown as { placement: Float64Array }).placement;

describe('ViewerStage (what <skinned-mesh-viewer> draws around its player)', () => {
  it('imports the crowd code only when a crowd is asked for: one character is drawn until it arrives, then the crowd, framed (crowdBuilt)', async () => {
    // A fresh copy of the module: no crowd code loaded yet, as on a page's first load.
    vi.resetModules();
    const fresh = await import('../../src/element/stage.ts');
    const model = await loadCharacter();
    const player = new AnimationPlayer(model);
    const [stage, retired] = [new fresh.ViewerStage(model), new fresh.ViewerStage(model)];
    const built: string[] = [];
    for (const [s, name] of [[stage, 'shown'], [retired, 'retired']] as const) {
      s.setBaseBounds(animatedBounds(player, (p) => s.lockRoot(p)));
      s.crowdBuilt = () => built.push(name);
      s.setInstances(16, player);
      expect(s.instances).toBe(1);
    }
    retired.retire();
    await fresh.loadCrowdCode();
    await Promise.resolve();
    expect(built).toEqual(['shown']);
    expect(stage.instances).toBe(16);
    expect(retired.instances).toBe(1);
    // Loaded: the next crowd is built at once.
    const next = new fresh.ViewerStage(model);
    next.setBaseBounds(animatedBounds(player, (p) => next.lockRoot(p)));
    next.setInstances(4, player);
    expect(next.instances).toBe(4);
  });

  it('plays a travelling clip in place by default: the root stays where the clip starts, framing excludes the travel', async () => {
    const { model, player, stage } = await setup();
    expect(stage.hasRootMotion(player)).toBe(true); // Walk
    const root = findSlot(model, 'Root');
    player.play();
    for (let i = 0; i < 100; i++) {
      player.update(DT);
      stage.update(player, DT);
      expect(Math.abs(player.instance.nodeMatrices[root * 16 + 14])).toBeLessThan(1e-9);
    }
    const b = stage.framingBounds();
    const travelling = animatedBounds(new AnimationPlayer(model));
    // A stride's legs and arms, without the 1.4 m the root travels per loop.
    expect(b.max[2] - b.min[2]).toBeLessThan(1.2);
    expect(b.max[2] - b.min[2]).toBeLessThan(travelling.max[2] - travelling.min[2] - 0.5);
    expect(Array.from(placementOf(stage))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  });

  it('the player holds the root in place inside its own pose step, giving the matrices that locking after it gave', async () => {
    const { model, player, stage } = await setup();
    const reference = new AnimationPlayer(model);
    const track = stage.rootMotions[player.clip]!.track;
    expect(player.rootLocks?.[player.clip]).toBe(track);
    player.play();
    reference.play();
    const root = findSlot(model, 'Root');
    for (let i = 0; i < 50; i++) {
      player.update(DT);
      // Locked already, before the stage's update.
      expect(Math.abs(player.instance.nodeMatrices[root * 16 + 14])).toBeLessThan(1e-9);
      stage.update(player, DT);
      // The old way: a second local→model and palettes after the step.
      reference.update(DT);
      lockRootInPlace(track, reference.instance.pose);
      updateMatricesAndPalettes(reference.instance);
      expectArraysEqual(player.instance.nodeMatrices, reference.instance.nodeMatrices);
      expectArraysEqual(player.instance.palette, reference.instance.palette);
    }
  });

  it('builds the root motion table once: the crowd shares the stage\'s, and both find it again when the rest pose changes', async () => {
    const { player, stage } = await setup();
    stage.setInstances(16, player);
    const crowdOf = () => (stage as unknown as { crowd: Crowd }).crowd;
    expect(crowdOf().rootMotions).toBe(stage.rootMotions);
    const before = stage.rootMotions;
    stage.restChanged(player, () => stage.framingBounds());
    expect(stage.rootMotions).not.toBe(before);
    expect(crowdOf().rootMotions).toBe(stage.rootMotions);
    expect(player.rootLocks?.[player.clip]).toBe(stage.rootMotions[player.clip]!.track);
  });

  it('with root motion, one character walks a circle around the origin inside the framed area', async () => {
    const { player, stage } = await setup();
    stage.setRootMotion(true, player);
    const b = stage.framingBounds();
    const p = placementOf(stage);
    const start = [p[12], p[14]];
    const radius = Math.hypot(start[0], start[1]);
    player.play();
    let travelled = 0, maxFromOrigin = 0;
    for (let i = 0; i < 600; i++) {
      const x = p[12], z = p[14];
      player.update(DT);
      stage.update(player, DT);
      travelled += Math.hypot(p[12] - x, p[14] - z);
      maxFromOrigin = Math.max(maxFromOrigin, Math.hypot(p[12], p[14]));
      expect(p[12]).toBeGreaterThan(b.min[0]);
      expect(p[12]).toBeLessThan(b.max[0]);
      expect(p[14]).toBeGreaterThan(b.min[2]);
      expect(p[14]).toBeLessThan(b.max[2]);
    }
    expect(travelled).toBeCloseTo(10 * WALK_STRIDE, 1); // 10 s of walking
    expect(maxFromOrigin).toBeLessThan(radius * 1.01);
    expect(maxFromOrigin).toBeGreaterThan(radius * 0.99);
    stage.setRootMotion(false, player);
    expect(p[12]).toBe(0);
  });

  it('the walking character takes the crowd\'s root-motion step: a one-instance Crowd steered the same way walks the same path', async () => {
    const { model, player, stage } = await setup();
    stage.setRootMotion(true, player);
    const p = placementOf(stage);
    const radius = Math.hypot(p[12], p[14]);
    const crowd = new Crowd(model, 1);
    const clip = player.clip;
    crowd.play(0, clip, 0);
    crowd.setPlacement(0, p[12], p[13], p[14], 0);
    player.play();
    const turns = new Float64Array(1);
    for (let i = 0; i < 300; i++) {
      player.update(DT);
      stage.update(player, DT);
      crowd.update(DT);
      turns[0] = crowd.moved[0] / radius;
      crowd.turn(0, turns);
      for (const e of [0, 2, 8, 10, 12, 13, 14]) expect(crowd.placements[e]).toBeCloseTo(p[e], 9);
    }
    // It walked: a third of the circle in 5 s.
    expect(Math.hypot(p[12] - -radius, p[14])).toBeGreaterThan(radius / 2);
  });

  it('a crowd follows the player: its clip (crossfading), its speed, its pause; instances are clamped', async () => {
    const { player, stage } = await setup();
    stage.setInstances(9, player);
    expect(stage.instances).toBe(9);
    const crowd = (stage as unknown as { crowd: { count: number; clip: Int32Array; time: Float64Array; fading(k: number): boolean } }).crowd;
    expect(crowd.count).toBe(9);
    expect(new Set(crowd.time).size).toBe(9); // each from its own phase
    player.play();
    stage.update(player, DT);
    player.crossfadeTo(1, 0.5);
    stage.fadeSeconds = 0.5;
    stage.update(player, DT);
    expect(Array.from(crowd.clip)).toEqual(new Array(9).fill(1));
    expect(crowd.fading(0)).toBe(true);
    const times = Array.from(crowd.time);
    stage.update(player, 0); // paused: nothing advances
    expect(Array.from(crowd.time)).toEqual(times);
    player.pause();
    player.setClip(2);
    stage.update(player, 0);
    expect(Array.from(crowd.clip)).toEqual(new Array(9).fill(2));
    expect(crowd.fading(0)).toBe(false); // paused: cut, not a fade that would never advance
    stage.setInstances(1e9, player);
    expect(stage.instances).toBe(MAX_INSTANCES);
    stage.setInstances(0, player);
    expect(stage.instances).toBe(1);
  });

  it('crowd-evaluator: parsed case-insensitively; a crowd evaluated on the CPU draws at most MAX_INSTANCES however many are asked', async () => {
    expect(['cpu', ' GPU ', 'Auto', 'webgl', '', null].map(parseCrowdEvaluator)).toEqual(['cpu', 'gpu', 'auto', undefined, undefined, undefined]);
    const { player, stage } = await setup();
    expect(stage.evaluator).toBe('auto');
    for (const evaluator of ['cpu', 'gpu', 'auto'] as const) {
      // No device: whatever the setting, the CPU evaluates the crowd.
      stage.evaluator = evaluator;
      stage.setInstances(MAX_GPU_INSTANCES, player);
      expect(stage.evaluating).toBe('cpu');
      expect(stage.instances).toBe(MAX_INSTANCES);
      const crowd = (stage as unknown as { crowd: { capacity: number; count: number } }).crowd;
      expect(crowd.capacity).toBe(MAX_INSTANCES);
      expect(crowd.count).toBe(MAX_INSTANCES);
      stage.setInstances(12, player);
      expect(stage.instances).toBe(12);
    }
  });

  it('frames the whole crowd grid', async () => {
    const { player, stage } = await setup();
    const one = stage.framingBounds();
    stage.setInstances(100, player);
    const many = stage.framingBounds();
    expect(many.max[0] - many.min[0]).toBeGreaterThan(5 * (one.max[0] - one.min[0]));
    expect(many.max[1]).toBe(one.max[1]);
  });

  it('orientation, scale and the turntable make the model matrix; the box for framing leaves the turntable out', async () => {
    const { player, stage } = await setup();
    stage.setBaseBounds(animatedBounds(player, (p) => stage.lockRoot(p)));
    const plain = stage.modelBounds();
    const m = new Float64Array(16);
    m[0] = 2; m[5] = 2; m[10] = 2; m[15] = 1;
    stage.setModelMatrix(m);
    const big = stage.modelBounds();
    expect(big.max[1] - big.min[1]).toBeCloseTo(2 * (plain.max[1] - plain.min[1]), 5);
    stage.setTurntable(Math.PI / 2);
    const turned = stage.modelBounds();
    expect([...turned.min]).toEqual([...big.min]);
    const placed = (stage as unknown as { placed: Float64Array }).placed;
    // Ry(90°)·2I: +X goes to −Z, doubled.
    expect(placed[0]).toBeCloseTo(0, 12);
    expect(placed[2]).toBeCloseTo(-2, 12);
    stage.setTurntable(0);
    stage.setModelMatrix(setIdentity(m));
    expect((stage as unknown as { transformed: boolean }).transformed).toBe(false);
    // The turntable changes every frame while auto-rotating: that allocates nothing.
    // (The angle in a typed array: a captured double would box in the test's own closure.)
    const angle = new Float64Array(1);
    const turn = await measureAllocation(() => { angle[0] += 0.01; stage.setTurntable(angle[0]); }, 5_000, 64 * 1024);
    expect(turn.clean.length, JSON.stringify(turn.rounds)).toBeGreaterThan(0);
  });

  it('updates a walking crowd and a walking character without allocating', async () => {
    const { player, stage } = await setup();
    stage.setRootMotion(true, player);
    player.play();
    const single = (): void => { player.update(DT); stage.update(player, DT); };
    const alone = await measureAllocation(single, 5_000, 64 * 1024);
    expect(alone.clean.length, JSON.stringify(alone.rounds)).toBeGreaterThan(0);
    stage.setInstances(16, player);
    const crowd = await measureAllocation(single, 1_000, 64 * 1024);
    expect(crowd.clean.length, JSON.stringify(crowd.rounds)).toBeGreaterThan(0);
  });
});
