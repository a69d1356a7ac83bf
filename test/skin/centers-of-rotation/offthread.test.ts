import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { centersInput, readyCenters, skinnedPrimitives } from '../../../src/skin/centers-of-rotation/centers.ts';
import { CENTERS_WORKER_MEASURE, prepareCentersOfRotation } from '../../../src/skin/centers-of-rotation/offthread.ts';
import { computeCentersOfRotation } from '../../../src/skin/centers-of-rotation/precompute.ts';
import { installStandInWorker, removeStandInWorker, type StandInWorkerLog } from '../../support/stand-in-worker.ts';

/**
 * The page side of the centre-of-rotation worker, in Node: a stand-in `Worker` runs the real
 * worker module (worker.ts) in this thread, its messages structured-cloned with their
 * transfers as a browser would. In Chromium the element test sees the real worker.
 */
let log: StandInWorkerLog;
const character = () => loadGltf(buildBuiltinGlb('character'), { name: 'character' });

beforeAll(async () => {
  log = await installStandInWorker(/\/worker\.ts$/, () => import('../../../src/skin/centers-of-rotation/worker.ts'));
}, 60_000);

afterAll(removeStandInWorker);

function expectComputedHere(model: Model): void {
  for (const { prim } of skinnedPrimitives(model)) {
    const here = computeCentersOfRotation(centersInput(prim));
    if (!here.ok) throw new Error(here.reason);
    expect(readyCenters(prim)).toEqual({ centers: here.centers, source: 'computed' });
  }
}

describe('the centre-of-rotation precomputation in a page goes to the worker', () => {
  it('one job per skinned primitive, the same centres as here, the page\'s arrays kept, a measure per primitive', async () => {
    const model = await character();
    const primitives = skinnedPrimitives(model);
    const positions = primitives.map(({ prim }) => prim.positions.slice());
    const started = log.started, posted = log.posted;
    const warnings: unknown[] = [];
    await prepareCentersOfRotation(model, (w) => warnings.push(w));
    expect(log.started).toBe(started + 1);
    expect(log.posted).toBe(posted + primitives.length);
    expect(warnings).toEqual([]);
    expectComputedHere(model);
    primitives.forEach(({ prim }, i) => expect(prim.positions).toEqual(positions[i]));
    const details = performance.getEntriesByName(CENTERS_WORKER_MEASURE).map((e) => (e as PerformanceMeasure).detail);
    for (const { path } of primitives) expect(details).toContain(path);
    // Settled primitives are not sent again.
    await prepareCentersOfRotation(model, (w) => warnings.push(w));
    expect(log.posted).toBe(posted + primitives.length);
  });

  it('the budget goes with the job: over it, a warning naming the primitive and its rest positions as centres', async () => {
    const model = await character();
    const warnings: { path: string; message: string }[] = [];
    await prepareCentersOfRotation(model, (w) => warnings.push(w), { maxTerms: 1 });
    const primitives = skinnedPrimitives(model).filter(({ prim }) => readyCenters(prim)?.source === 'linear');
    expect(primitives.length).toBeGreaterThan(0);
    expect(warnings.map((w) => w.path)).toEqual(primitives.map(({ path }) => path));
    expect(warnings[0].message).toMatch(/no centres of rotation \(over the budget: the integral needs more than 1 similarity terms/);
    for (const { prim } of primitives) expect(readyCenters(prim)!.centers).toBe(prim.positions);
  });

  it('a worker that dies on a primitive: that one warns and skins linearly, the rest go on in a fresh worker', async () => {
    const model = await character();
    const started = log.started;
    log.crashNext = true;
    const warnings: { path: string; message: string }[] = [];
    await prepareCentersOfRotation(model, (w) => warnings.push(w));
    const [first, ...rest] = skinnedPrimitives(model);
    expect(warnings).toEqual([{ path: first.path, message: expect.stringMatching(/no centres of rotation \(.*worker failed on this data/) }]);
    expect(readyCenters(first.prim)?.source).toBe('linear');
    for (const { prim } of rest) expect(readyCenters(prim)?.source).toBe('computed');
    expect(log.started).toBe(started + 1);
  });

  it('when the worker cannot start, the centres are computed on the page instead', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('../../../src/skin/centers-of-rotation/offthread.ts');
    const centers = await import('../../../src/skin/centers-of-rotation/centers.ts');
    log.failOnStart = true;
    const model = await character();
    await fresh.prepareCentersOfRotation(model, () => { throw new Error('no warning expected'); });
    log.failOnStart = false;
    for (const { prim } of centers.skinnedPrimitives(model)) expect(centers.readyCenters(prim)?.source).toBe('computed');
  });
});
