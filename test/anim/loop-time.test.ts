/** wrapLoopTime (src/anim/loop-time.ts): exactly `%` moved up into [0, duration), without `%` inside the range. */
import { describe, expect, it } from 'vitest';
import { wrapLoopTime } from '../../src/anim/loop-time.ts';

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
});
