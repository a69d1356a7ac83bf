import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { KTX2_WORKER_MEASURE, transcodeKtx2OffThread } from '../../../src/gpu/textures/ktx2-offthread.ts';
import { FEATURE_BC, transcodeKtx2 } from '../../../src/gpu/textures/ktx2-transcode.ts';
import { encodeKtx2, gradientImage } from '../../support/ktx2.ts';
import { installStandInWorker, removeStandInWorker, type StandInWorkerLog } from '../../support/stand-in-worker.ts';

/**
 * The page side of the KTX2 worker, in Node: a stand-in `Worker` runs the real worker module
 * (ktx2-worker.ts) in this thread, its messages structured-cloned with their transfers as a
 * browser would. In Chromium, test/gpu/browser-render.test.ts (dev server) and
 * test/browser/element-build.test.ts (the library build) see the real worker.
 */

const PATH = 'images[0]';
const OPTIONS = { features: new Set([FEATURE_BC]), srgb: true, maxDimension: 8192 };
let log: StandInWorkerLog;
let uastc: Uint8Array;

beforeAll(async () => {
  uastc = await encodeKtx2(gradientImage(32, 16), { uastc: true });
  log = await installStandInWorker(/\/ktx2-worker\.ts$/, () => import('../../../src/gpu/textures/ktx2-worker.ts'));
}, 60_000);

afterAll(removeStandInWorker);

describe('KTX2 transcoding in a page goes to the worker', () => {
  it('gives what transcoding in place gives, charges the levels to the budget, keeps the page\'s bytes, records a measure', async () => {
    const budget = new LoadBudget(1 << 30, 0);
    const t = await transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget });
    expect(log.started).toBe(1);
    expect(log.posted).toBe(1);
    const here = await transcodeKtx2(uastc, PATH, OPTIONS);
    expect(t.format).toBe('bc7-rgba-unorm-srgb');
    expect(t.format).toBe(here.format);
    expect(t.levels.map((l) => [l.width, l.height])).toEqual(here.levels.map((l) => [l.width, l.height]));
    t.levels.forEach((l, i) => expect(l.data).toEqual(here.levels[i].data));
    expect(budget.usedBytes).toBe(here.levels.reduce((n, l) => n + l.data.byteLength, 0));
    expect(uastc.byteLength).toBeGreaterThan(0);
    expect(performance.getEntriesByName(KTX2_WORKER_MEASURE).map((e) => (e as PerformanceMeasure).detail)).toContain(PATH);
  });

  it('reuses its worker; corrupt data and an exhausted budget come back as GltfErrors naming the image', async () => {
    const broken = uastc.slice();
    broken.fill(0x5a, 200);
    const corrupt = await transcodeKtx2OffThread(broken, PATH, { ...OPTIONS, budget: new LoadBudget(1 << 30, 0) }).catch((e: unknown) => e);
    expect(corrupt).toBeInstanceOf(GltfError);
    expect((corrupt as GltfError).path).toBe(PATH);
    // The worker charges its copy of the page's budget before it allocates a level.
    const budget = new LoadBudget(1 << 30, 0);
    budget.charge((1 << 30) - 100, 'earlier');
    const posted = log.posted;
    const tooBig = await transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget }).catch((e: unknown) => e);
    expect(log.posted).toBe(posted + 1);
    expect(tooBig).toBeInstanceOf(GltfError);
    expect((tooBig as GltfError).path).toBe(PATH);
    expect((tooBig as GltfError).problem).toMatch(/loading needs more than/);
    expect(budget.usedBytes).toBe((1 << 30) - 100);
    expect(log.started).toBe(1);
  });

  it('a worker that dies on an image (after answering others) fails that image, naming it; the next one starts a fresh worker', async () => {
    const started = log.started;
    log.crashNext = true;
    const error = await transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget: new LoadBudget(1 << 30, 0) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(PATH);
    expect((error as GltfError).problem).toMatch(/the Basis transcoder's worker failed on this data \(RuntimeError: unreachable\); the file is damaged/);
    const t = await transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget: new LoadBudget(1 << 30, 0) });
    expect(t.levels).toHaveLength(6);
    expect(log.started).toBe(started + 1);
  });

  it('when the worker cannot start, transcodes on the page instead, from then on', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('../../../src/gpu/textures/ktx2-offthread.ts');
    log.failOnStart = true;
    const started = log.started;
    const budget = new LoadBudget(1 << 30, 0);
    const t = await fresh.transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget });
    expect(log.started).toBe(started + 1);
    expect(t.levels).toHaveLength(6);
    expect(budget.usedBytes).toBe(t.levels.reduce((n, l) => n + l.data.byteLength, 0));
    await fresh.transcodeKtx2OffThread(uastc, PATH, { ...OPTIONS, budget: new LoadBudget(1 << 30, 0) });
    expect(log.started).toBe(started + 1);
  });
});
