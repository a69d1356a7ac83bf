/**
 * The Web Worker that transcodes KHR_texture_basisu (KTX2) images off the page's main thread
 * (started by ktx2-offthread.ts). Binomial's transcoder (basis-transcoder.ts) is bundled into
 * this worker's own file, its WebAssembly inlined: no CDN, no network beyond the page's origin.
 */
import { LoadBudget, type BudgetState } from '../../gltf/budget.ts';
import { serveWorkerJobs } from '../../gltf/offthread.ts';
import { transcodeKtx2, type TranscodedKtx2 } from './ktx2-transcode.ts';

/** One transcoding job as it crosses to the worker from ktx2-offthread.ts (a Set does not: features go as a list). */
export interface Ktx2WorkerJob {
  readonly bytes: Uint8Array;
  readonly path: string;
  readonly features: readonly string[];
  readonly srgb: boolean;
  readonly maxDimension: number;
  /** The page's budget as it stands: the worker charges the levels to a copy before allocating them. */
  readonly budget: BudgetState;
}

serveWorkerJobs<Ktx2WorkerJob, TranscodedKtx2>(
  async (job) => {
    // The page's budget as it stood: the levels are charged to this copy before they are allocated.
    const result = await transcodeKtx2(job.bytes, job.path, {
      features: new Set(job.features), srgb: job.srgb, maxDimension: job.maxDimension, budget: LoadBudget.resume(job.budget),
    });
    return { result, transfer: result.levels.map((level) => level.data.buffer) };
  },
  (job, e) => ({ path: job.path, problem: `the Basis transcoder failed: ${e instanceof Error ? e.message : String(e)}` }),
);
