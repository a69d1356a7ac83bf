/**
 * The worker half of `npm run bench -- --skinning-methods` (bench/skinning-methods.ts drives
 * it in headless Chromium): a model's centres of rotation computed in the page's worker
 * (src/skin/centers-of-rotation/offthread.ts) against the same computation on the page's own
 * thread, each on a fresh load, with the longest stall of the page's thread during each
 * (a 0 ms timer loop's largest gap).
 */
import { loadGltf } from '../../src/gltf/load.ts';
import { modelCentersHere, skinnedPrimitives } from '../../src/skin/centers-of-rotation/centers.ts';
import { CENTERS_WORKER_MEASURE, prepareCentersOfRotation } from '../../src/skin/centers-of-rotation/offthread.ts';

export interface CentersPageResult {
  readonly primitives: number;
  readonly vertices: number;
  /** Wall time of prepareCentersOfRotation (every primitive, one worker job each). */
  readonly workerWallMs: number;
  /** Sum of the worker measures (posting to answer) of this model's primitives. */
  readonly workerMeasuredMs: number;
  /** The same precomputation on the page's thread. */
  readonly pageThreadMs: number;
  /** Longest gap between the page's 0 ms timers while the worker computed, and while the page did. */
  readonly longestStallWorkerMs: number;
  readonly longestStallPageMs: number;
}

/** Runs `work` while a 0 ms timer loop records the page thread's longest gap. */
async function withStallWatch(work: () => Promise<void>): Promise<{ ms: number; stall: number }> {
  let last = performance.now(), stall = 0, running = true;
  const tick = () => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  running = false;
  await new Promise((resolve) => setTimeout(resolve, 0));
  stall = Math.max(stall, performance.now() - last);
  return { ms, stall };
}

async function run(url: string, name: string): Promise<CentersPageResult> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const forWorker = await loadGltf(bytes, { name });
  const prims = skinnedPrimitives(forWorker);
  performance.clearMeasures(CENTERS_WORKER_MEASURE);
  const worker = await withStallWatch(() => prepareCentersOfRotation(forWorker, () => {}));
  const paths = new Set(prims.map((p) => p.path));
  const measured = performance.getEntriesByName(CENTERS_WORKER_MEASURE).filter((e) => paths.has((e as PerformanceMeasure).detail as string));
  const forPage = await loadGltf(bytes, { name });
  const page = await withStallWatch(async () => modelCentersHere(forPage, () => {}));
  return {
    primitives: prims.length,
    vertices: prims.reduce((n, p) => n + p.prim.vertexCount, 0),
    workerWallMs: worker.ms,
    workerMeasuredMs: measured.reduce((s, e) => s + e.duration, 0),
    pageThreadMs: page.ms,
    longestStallWorkerMs: worker.stall,
    longestStallPageMs: page.stall,
  };
}

declare global {
  interface Window {
    centersBench: { run: typeof run };
  }
}
window.centersBench = { run };
