/**
 * The centre-of-rotation precomputation off a page's main thread: one lazily started module
 * Web Worker (worker.ts), the lifecycle the decoders' workers share (../../gltf/offthread.ts),
 * so a large avatar does not freeze the page while its centres are computed. Where there are
 * no Workers (Node: bake, tests) or the worker cannot start, it runs on the calling thread.
 */
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Model } from '../../gltf/model.ts';
import { OffThread } from '../../gltf/offthread.ts';
import { centersInput, overBudgetWarning, readyCenters, settleCenters, skinnedPrimitives } from './centers.ts';
import { computeCentersOfRotation, type CentersOfRotationOptions, type CentersOfRotationResult } from './precompute.ts';
import type { CentersWorkerJob } from './worker.ts';

/** An idle worker is ended after this long. */
export const CENTERS_WORKER_IDLE_MS = 10_000;

/** Performance measure recorded on the page for each primitive the worker computes (detail: `meshes[m].primitives[p]`). */
export const CENTERS_WORKER_MEASURE = 'skinned-mesh-webgpu:centers-of-rotation-worker';

const thread = new OffThread<CentersWorkerJob, CentersOfRotationResult>({
  start: () => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'centers-of-rotation' }),
  idleMs: CENTERS_WORKER_IDLE_MS,
  measure: CENTERS_WORKER_MEASURE,
  what: 'the centre-of-rotation precomputation',
});

/**
 * Settles the centres of every skinned primitive of `model` that has none yet: in the worker
 * where there is one (one job per primitive, in turn), else here. Primitives over the budget
 * (or whose job failed) go to `warn` and get their rest positions. Resolves when all are settled.
 * `options`: the precomputation's (its budget, say).
 */
export async function prepareCentersOfRotation(model: Model, warn: (w: GltfWarning) => void, options?: CentersOfRotationOptions): Promise<void> {
  for (const { prim, path } of skinnedPrimitives(model)) {
    if (readyCenters(prim)) continue;
    const input = centersInput(prim);
    let result: CentersOfRotationResult;
    if (thread.available) {
      const job: CentersWorkerJob = {
        path, options,
        input: {
          ...input,
          positions: Float32Array.from(input.positions), joints: input.joints.slice(), weights: input.weights.slice(), triangles: input.triangles?.slice(),
        },
      };
      const transfer: Transferable[] = [(job.input.positions as Float32Array).buffer, job.input.joints.buffer, job.input.weights.buffer];
      if (job.input.triangles) transfer.push(job.input.triangles.buffer);
      try {
        result = await thread.run(job, transfer, path, async () => computeCentersOfRotation(input, options));
      } catch (e) {
        // The worker died on this primitive: like a budget overrun, it skins with its rest positions as centres.
        result = { ok: false, reason: e instanceof Error ? e.message : String(e), stats: { pieces: 0, pairEntries: 0, terms: 0, fallbackVertices: 0 } };
      }
    } else {
      result = computeCentersOfRotation(input, options);
    }
    // Another caller may have settled it meanwhile; the first result stays.
    if (readyCenters(prim)) continue;
    settleCenters(prim, result);
    if (!result.ok) warn(overBudgetWarning(path, result.reason));
  }
}
