import { setFlagsFromString } from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { AnimationApi, playRepetitions } from '../../src/element/animation-api.ts';
import { loadCharacter } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';

const DT = 1 / 60;

async function setup(clip = 1) {
  const model = await loadCharacter();
  const player = new AnimationPlayer(model);
  player.setClip(clip);
  const loops: number[] = [];
  const api = new AnimationApi({ looped: (count) => loops.push(count) });
  api.restart(player, 1);
  return { model, player, api, loops };
}

/** Runs frames until the player stops (or `max` frames), recording the time after each. */
function run(api: AnimationApi, player: AnimationPlayer, max = 10_000, dt = DT): number[] {
  const times: number[] = [];
  for (let i = 0; i < max && player.playing; i++) {
    api.advance(player, dt);
    times.push(player.time);
  }
  return times;
}

describe('AnimationApi: play({repetitions, pingpong})', () => {
  it('without options it repeats for ever, as model-viewer 4.4\'s play(); the loop attribute removed mid-play makes the pass under way the last', async () => {
    const { player, api, loops } = await setup();
    api.start(player, undefined, 1);
    player.play();
    run(api, player, Math.ceil((3.5 * player.duration) / DT));
    expect(player.playing).toBe(true);
    expect(loops).toEqual([1, 2, 3]);
    api.setLoop(player, false, 1);
    const times = run(api, player);
    expect(player.ended).toBe(true);
    expect(times.at(-1)).toBe(player.duration);
    expect(times.length * DT).toBeLessThan(player.duration);
    expect(loops).toEqual([1, 2, 3]);
    // play() again starts over, for ever again.
    api.start(player, undefined, 1);
    player.play();
    expect(player.time).toBe(0);
    run(api, player, Math.ceil((2.5 * player.duration) / DT));
    expect(player.playing).toBe(true);
  });

  it('repetitions: N passes, a loop event after each but the last, then it stops at the end; play() again starts over', async () => {
    const { player, api, loops } = await setup();
    api.start(player, { repetitions: 3 }, 1);
    player.play();
    const times = run(api, player);
    expect(loops).toEqual([1, 2]);
    expect(player.playing).toBe(false);
    expect(player.ended).toBe(true);
    expect(player.time).toBe(player.duration);
    expect(times.length * DT).toBeGreaterThan(3 * player.duration - 2 * DT);
    expect(times.length * DT).toBeLessThan(3 * player.duration + 2 * DT);
    loops.length = 0;
    api.start(player, { repetitions: 2 }, 1);
    player.play();
    expect(player.time).toBe(0);
    run(api, player);
    expect(loops).toEqual([1]);
  });

  it('pingpong: every other pass runs backwards, mirrored at the ends; an even count ends at the start', async () => {
    const { player, api, loops } = await setup();
    api.start(player, { repetitions: 2, pingpong: true }, 1);
    player.play();
    const times = run(api, player);
    const turn = times.findIndex((t, i) => i > 0 && t < times[i - 1]);
    expect(turn).toBeGreaterThan(0);
    for (let i = 1; i < turn; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
    for (let i = turn + 1; i < times.length; i++) expect(times[i]).toBeLessThan(times[i - 1]);
    // Mirrored: the first backward time is as far from the end as the step went past it.
    expect(player.duration - times[turn]).toBeLessThan(2 * DT);
    expect(loops).toEqual([1]);
    expect(player.time).toBe(0);
    expect(player.speed).toBe(-1);
    // Speed changes keep the direction.
    expect(api.effectiveSpeed(2)).toBe(-2);
    api.restart(player, 1);
    expect(player.speed).toBe(1);
  });

  it('counts repetitions as 4.4 does: below 1 once and not a number for ever, each with a warning; a fraction plays the pass it starts', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect([undefined, null, 1, 2, 2.5, Infinity, '3'].map(playRepetitions)).toEqual([Infinity, Infinity, 1, 2, 3, Infinity, 3]);
      expect(warn).not.toHaveBeenCalled();
      expect(playRepetitions(0)).toBe(1);
      expect(playRepetitions(-2)).toBe(1);
      expect(playRepetitions(NaN)).toBe(Infinity);
      expect(playRepetitions('twice')).toBe(Infinity);
      expect(warn.mock.calls.map(String)).toEqual([
        expect.stringContaining('play({repetitions: 0}): below 1; the clip plays once'),
        expect.stringContaining('play({repetitions: -2}): below 1; the clip plays once'),
        expect.stringContaining('play({repetitions: NaN}): not a number; the clip repeats for ever'),
        expect.stringContaining('play({repetitions: "twice"}): not a number; the clip repeats for ever'),
      ]);
      const { player, api, loops } = await setup();
      api.start(player, { repetitions: 0 }, 1);
      player.play();
      run(api, player);
      expect([player.ended, loops]).toEqual([true, []]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('AnimationApi: appendAnimation / detachAnimation', () => {
  it('layers a clip by weight over the playing one; weight 0 changes nothing; a name again replaces it', async () => {
    const { player, api } = await setup(1);
    player.seek(0.4);
    player.evaluate();
    const base = Float32Array.from(player.instance.pose.rotation);
    api.append(player, 2, 'Wave', { weight: 0 }, 0.3);
    // (A re-evaluation at the same time may differ in the last float bit.)
    expect(player.instance.pose.rotation.every((v, i) => Math.abs(v - base[i]) < 1e-6)).toBe(true);
    api.append(player, 2, 'Wave', { weight: 1 }, 0.3);
    expect(player.layers.layers).toHaveLength(1);
    expect(api.names).toEqual(['Wave']);
    expect(player.instance.pose.rotation.some((v, i) => Math.abs(v - base[i]) > 1e-3)).toBe(true);
    expect(() => api.append(player, 2, 'Wave', { weight: 2 }, 0.3)).toThrow(/weight must be within 0…1/);
    expect(() => api.append(player, 2, 'Wave', { fade: -1 }, 0.3)).toThrow(/finite number ≥ 0/);
  });

  it('fades in over `fade` seconds (true: the crossfade), warps the rate up over `warp`, and fades out on detach before removing', async () => {
    const { player, api } = await setup(1);
    api.setLoop(player, true, 1);
    player.play();
    api.append(player, 2, 'Wave', { weight: 0.8, fade: 0.5, warp: true, timeScale: 2 }, 0.25);
    const layer = player.layers.layers[0];
    expect(layer.weight).toBe(0);
    expect(layer.speed).toBe(0);
    expect(api.ramping).toBe(true);
    for (let i = 0; i < 15; i++) api.advance(player, 1 / 60);
    expect(layer.weight).toBeCloseTo(0.4, 9);
    expect(layer.speed).toBeCloseTo(2, 9);
    for (let i = 0; i < 30; i++) api.advance(player, 1 / 60);
    expect(layer.weight).toBe(0.8);
    expect(api.ramping).toBe(false);
    expect(api.detach(player, 'Idle', {}, 0.25)).toBe(false);
    expect(api.detach(player, 'Wave', {}, 0.25)).toBe(true);
    expect(api.names).toEqual([]);
    api.advance(player, 0.125);
    expect(layer.weight).toBeCloseTo(0.4, 9);
    expect(player.layers.layers).toHaveLength(1);
    api.advance(player, 0.125);
    expect(player.layers.layers).toHaveLength(0);
    // Paused, it is there at once and goes at once.
    player.pause();
    api.append(player, 0, 'Walk', { fade: true }, 0.25);
    expect(player.layers.layers[0].weight).toBe(1);
    api.detach(player, 'Walk', {}, 0.25);
    expect(player.layers.layers).toHaveLength(0);
  });

  it('a frame with pingpong passes and fading layers allocates nothing', async () => {
    const { player, api } = await setup(1);
    api.start(player, { pingpong: true }, 1);
    player.play();
    api.append(player, 2, 'Wave', { weight: 0.5 }, 0.25);
    let k = 0;
    const frame = (): void => {
      // A fade that keeps restarting: half the frames ramp the weight.
      const a = player.layers.layers[0];
      if (++k % 120 === 0) a.weight = 0;
      api.advance(player, 1 / 30);
    };
    const result = await measureAllocation(frame, 3_000, 64 * 1024);
    expect(result.clean.length, JSON.stringify(result.rounds)).toBeGreaterThan(0);
  });

  // The test above failed in about one run of two: the fades and warps stepped through a
  // helper taking and returning doubles, which V8 did not always inline, and a double passed
  // to or returned from a call it did not inline is boxed (~68 B a frame here). With inlining
  // off, and the player's own update and evaluate stilled (they are not what is measured),
  // the appended layers' ramps must still allocate nothing.
  it('the appended layers\' fades and warps allocate nothing where V8 inlines nothing', async () => {
    class StillPlayer extends AnimationPlayer {
      override update(): void {}
      override evaluate(): void {}
    }
    const player = new StillPlayer(await loadCharacter());
    player.setClip(1);
    const api = new AnimationApi({ looped: () => {} });
    api.start(player, { pingpong: true }, 1);
    player.play();
    api.append(player, 2, 'Wave', { weight: 0.5, warp: true }, 0.25);
    let k = 0;
    const frame = (): void => {
      // Restart the fade and the warp every 60 frames, so half the frames ramp.
      const layer = player.layers.layers[0];
      if (++k % 60 === 0) {
        layer.weight = 0;
        layer.speed = 0;
      }
      api.advance(player, 1 / 30);
    };
    setFlagsFromString('--no-turbo-inlining');
    try {
      const result = await measureAllocation(frame, 3_000, 64 * 1024);
      expect(result.clean.length, JSON.stringify(result.rounds)).toBeGreaterThan(0);
    } finally {
      setFlagsFromString('--turbo-inlining');
    }
    expect(k).toBeGreaterThan(3_000);
    expect(player.layers.layers[0].weight).toBeGreaterThan(0);
  });
});
