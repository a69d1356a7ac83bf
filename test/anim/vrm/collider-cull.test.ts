/**
 * ColliderCull keeps each spring joint's candidate colliders over frames; what it leaves out must
 * be out of reach (the exact test would skip it too), whatever the joint, the colliders and the
 * model's world translation do. Random walks check that invariant at every step, and that the
 * kept sets are actually used (so the check is not vacuous).
 */
import { describe, expect, it } from 'vitest';
import { ColliderCull } from '../../../src/anim/vrm/collider-cull.ts';
import { Rng } from '../../support/fuzz.ts';

const COLLIDERS = 20;
const JOINTS = 6;

function scenario(seed: number, { drift, jumpEvery }: { drift: number; jumpEvery: number }) {
  const rng = new Rng(seed);
  const spheres = new Float64Array(COLLIDERS * 4);
  for (let c = 0; c < COLLIDERS; c++) {
    spheres.set([rng.next() * 2 - 1, rng.next() * 2, rng.next() * 2 - 1, 0.05 + 0.2 * rng.next()], c * 4);
  }
  // Collider 3 has no finite reach (a plane), collider 7 is moved by a joint: always candidates.
  spheres[3 * 4 + 3] = Infinity;
  const always = new Uint8Array(COLLIDERS);
  always[3] = 1; always[7] = 1;
  // Each joint tests every collider, in a shuffled order.
  const start = Int32Array.from({ length: JOINTS + 1 }, (_, j) => j * COLLIDERS);
  const list = new Int32Array(JOINTS * COLLIDERS);
  for (let j = 0; j < JOINTS; j++) {
    const order = Array.from({ length: COLLIDERS }, (_, c) => c).sort(() => rng.next() - 0.5);
    list.set(order, j * COLLIDERS);
  }
  const cull = new ColliderCull(COLLIDERS, start, list, always);
  const heads = Array.from({ length: JOINTS }, () => [rng.next() * 2 - 1, rng.next() * 2, rng.next() * 2 - 1]);
  const world = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
  const head = new Float64Array(5);
  let kept = 0, tested = 0, violations = 0;
  for (let step = 0; step < 600; step++) {
    // The model walks (its translation moves everything); the body drifts; reaches breathe.
    const wx = 0.03 * step, wz = 0.02 * Math.sin(step / 20);
    const jump = jumpEvery > 0 && step % jumpEvery === jumpEvery - 1 ? 0.5 : 0;
    for (let c = 0; c < COLLIDERS; c++) {
      const q = c * 4;
      spheres[q] += wx - world[12] + drift * (rng.next() - 0.5) + jump;
      spheres[q + 1] += drift * (rng.next() - 0.5);
      spheres[q + 2] += wz - world[14] + drift * (rng.next() - 0.5);
      if (Number.isFinite(spheres[q + 3])) spheres[q + 3] = Math.max(0.01, spheres[q + 3] + drift * 0.2 * (rng.next() - 0.5));
    }
    world[12] = wx; world[14] = wz;
    cull.beginRun(spheres, world);
    for (let j = 0; j < JOINTS; j++) {
      const h = heads[j];
      for (let k = 0; k < 3; k++) h[k] += 0.02 * (rng.next() - 0.5);
      head[0] = h[0] + wx; head[1] = h[1]; head[2] = h[2] + wz;
      head[3] = 0.05 + 0.01 * rng.next();
      head[4] = 0.01 + head[3];
      // A kept set, or one built now (the job tests it at once): both must leave out only what is out of reach.
      const wasKept = cull.candidates(j, head, world);
      if (!wasKept) expect(cull.built(j, head, spheres, world)).toBe(true);
      if (wasKept) kept++;
      for (let i = 0; i < COLLIDERS; i++) {
        const c = list[j * COLLIDERS + i], q = c * 4;
        tested++;
        if ((cull.found >>> i) & 1) continue;
        const d = Math.hypot(head[0] - spheres[q], head[1] - spheres[q + 1], head[2] - spheres[q + 2]);
        // Left out: the exact reach test must skip it too.
        if (!(d >= spheres[q + 3] + head[4])) violations++;
        if (always[c]) violations++;
      }
    }
  }
  return { kept, tested, violations, runs: 600 * JOINTS };
}

describe('ColliderCull', () => {
  for (const [name, options] of [
    ['a still body', { drift: 0, jumpEvery: 0 }],
    ['a drifting body with growing and shrinking reaches', { drift: 0.01, jumpEvery: 0 }],
    ['a body that jumps every 50 steps', { drift: 0.005, jumpEvery: 50 }],
  ] as const) {
    it(`leaves out only colliders out of reach: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const r = scenario(seed, options);
        expect(r.violations).toBe(0);
        expect(r.kept).toBeGreaterThan(r.runs / 2);
      }
    });
  }

  it('builds no set for a list over 32 colliders or a bound that is not a number (the whole list is tested)', () => {
    const spheres = new Float64Array(33 * 4).fill(0);
    for (let c = 0; c < 33; c++) spheres.set([c, 0, 0, 0.1], c * 4);
    const world = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    const long = new ColliderCull(33, Int32Array.of(0, 33), Int32Array.from({ length: 33 }, (_, c) => c), new Uint8Array(33));
    long.beginRun(spheres, world);
    const head = Float64Array.of(0, 0, 0, 0.05, 0.07);
    expect(long.candidates(0, head, world)).toBe(false);
    expect(long.built(0, head, spheres, world)).toBe(false);
    const short = new ColliderCull(33, Int32Array.of(0, 32), Int32Array.from({ length: 32 }, (_, c) => c), new Uint8Array(33));
    short.beginRun(spheres, world);
    expect(short.built(0, head, spheres, world)).toBe(true);
    // Only collider 0 (at the joint) is within its reach + 1.1 bounds + half a bound; collider 1 is 1 m off.
    expect(short.found).toBe(1);
    head[4] = NaN;
    expect(short.built(0, head, spheres, world)).toBe(false);
  });
});
