/**
 * wrapLoopTime and wrapLoopTimeIn (src/anim/loop-time.ts): exactly `%` moved up into
 * [0, duration), without `%` inside the range; the in-place form allocates nothing inlined or not.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { wrapLoopTime, wrapLoopTimeIn } from '../../src/anim/loop-time.ts';
import { measureAllocation } from '../support/allocation.ts';

/** The rule written plainly, as the player and the crowd had it. */
function reference(time: number, duration: number): number {
  if (duration <= 0) return 0;
  const t = time % duration;
  return t < 0 ? t + duration : t;
}

describe('wrapLoopTime', () => {
  it('equals the % rule bit for bit (signed zeros included) on edges and 100,000 random clocks', () => {
    const durations = [1, 0.7, 1 / 3, 2.5, 1e-6, 1e6, 0, -1];
    const edges = (d: number) => [0, -0, d, -d, 2 * d, -2 * d, d * (1 - 2 ** -52), -d * (1 - 2 ** -52), 3.5 * d, -3.5 * d, 1e300, -1e300, Infinity, -Infinity, NaN];
    const same = (a: number, b: number) => Object.is(a, b);
    for (const d of durations) for (const t of edges(d)) expect(same(wrapLoopTime(t, d), reference(t, d)), `${t} in ${d}`).toBe(true);
    let seed = 12345;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 100_000; i++) {
      const d = 0.01 + 10 * random();
      // Mostly a frame's step from inside the loop (the fast path), sometimes several loops away.
      const t = (random() < 0.9 ? d * random() + (random() - 0.5) * 0.05 : (random() - 0.5) * 100 * d);
      if (!same(wrapLoopTime(t, d), reference(t, d))) expect(wrapLoopTime(t, d), `${t} in ${d}`).toBe(reference(t, d));
    }
  });

  it('wrapLoopTimeIn wraps times[i] by durations[d] in place and touches nothing else', () => {
    const times = Float64Array.of(-0.25, 2.5, 0.5, -0), durations = Float64Array.of(1, 0.7, 0);
    wrapLoopTimeIn(times, 1, durations, 1);
    expect(Array.from(times)).toEqual([-0.25, wrapLoopTime(2.5, 0.7), 0.5, -0]);
    expect(Object.is(times[3], -0)).toBe(true);
    wrapLoopTimeIn(times, 0, durations, 0);
    expect(times[0]).toBe(0.75);
    wrapLoopTimeIn(times, 2, durations, 2);
    expect(times[2]).toBe(0);
    expect(Array.from(durations)).toEqual([1, 0.7, 0]);
  });

  // The frame path's clocks wrap through wrapLoopTimeIn. A CI run's ViewerStage frame left
  // 16 bytes per frame: V8 had not inlined wrapLoopTime there, and a double passed to or
  // returned from a call it did not inline is boxed. With inlining off, the value form shows
  // that cost (so the test can tell), and the in-place form has none.
  it('a caller of wrapLoopTimeIn allocates nothing where V8 inlines nothing; one of wrapLoopTime allocates per call', async () => {
    const times = new Float64Array(64);
    const durations = Float64Array.of(0.7, 1 / 3);
    const step = Float64Array.of(1 / 60);
    for (let i = 0; i < times.length; i++) times[i] = i * 0.013;
    const inPlace = (): void => {
      for (let i = 0; i < times.length; i++) {
        times[i] += step[0];
        wrapLoopTimeIn(times, i, durations, i & 1);
      }
    };
    const byValue = (): void => {
      for (let i = 0; i < times.length; i++) times[i] = wrapLoopTime(times[i] + step[0], durations[i & 1]);
    };
    setFlagsFromString('--no-turbo-inlining');
    try {
      const inPlaceRounds = await measureAllocation(inPlace, 2_000, 64 * 1024);
      expect(inPlaceRounds.clean.length, JSON.stringify(inPlaceRounds.rounds)).toBeGreaterThan(0);
      const byValueRounds = await measureAllocation(byValue, 2_000, 64 * 1024);
      expect(byValueRounds.clean, JSON.stringify(byValueRounds.rounds)).toEqual([]);
    } finally {
      setFlagsFromString('--turbo-inlining');
    }
  });
});
