/**
 * The Web Worker that computes centres of rotation off the page's main thread (started by
 * offthread.ts): the same pure function the page would run, its centres moved back.
 */
import { serveWorkerJobs } from '../../gltf/offthread.ts';
import { computeCentersOfRotation, type CentersOfRotationInput, type CentersOfRotationOptions, type CentersOfRotationResult } from './precompute.ts';

/** One primitive's precomputation as it crosses to the worker from offthread.ts (copies of the page's arrays). */
export interface CentersWorkerJob {
  readonly input: CentersOfRotationInput;
  readonly options: CentersOfRotationOptions | undefined;
  readonly path: string;
}

serveWorkerJobs<CentersWorkerJob, CentersOfRotationResult>(
  async (job) => {
    const result = computeCentersOfRotation(job.input, job.options);
    return { result, transfer: result.ok ? [result.centers.buffer] : [] };
  },
  (job, e) => ({ path: job.path, problem: `the centre-of-rotation precomputation failed: ${e instanceof Error ? e.message : String(e)}` }),
);
