/**
 * Where a KTX2 image is transcoded: in a page, in one shared module Web Worker (ktx2-worker.ts,
 * bundled by Vite with Binomial's transcoder inlined; the worker's lifecycle is
 * ../gltf/offthread.ts), so a large texture set does not freeze the page; where there are no
 * Workers (Node: tests, tools), on the calling thread. A page that cannot start the worker (a
 * content policy forbidding it) transcodes on its own thread, where the library build has no
 * transcoder (vite.config.ts): the KTX2 image then fails with a GltfError saying so, and the
 * texture falls back to its plain `source` when it has one (ktx2-texture.ts).
 */
import { LoadBudget } from '../../gltf/budget.ts';
import { OffThread } from '../../gltf/offthread.ts';
import type { Ktx2Options, TranscodedKtx2 } from './ktx2-transcode.ts';
import type { Ktx2WorkerJob } from './ktx2-worker.ts';

/** An idle worker is ended after this long, releasing its WebAssembly memory. */
export const KTX2_WORKER_IDLE_MS = 10_000;

/** Performance measure recorded on the page for each image the worker transcodes (detail: `images[i]`). */
export const KTX2_WORKER_MEASURE = 'skinned-mesh-webgpu:ktx2-worker-transcode';

const thread = new OffThread<Ktx2WorkerJob, TranscodedKtx2>({
  start: () => new Worker(new URL('./ktx2-worker.ts', import.meta.url), { type: 'module', name: 'ktx2-transcoder' }),
  idleMs: KTX2_WORKER_IDLE_MS,
  measure: KTX2_WORKER_MEASURE,
  what: 'the Basis transcoder',
});

/**
 * The transcoding on this thread (Node, or a page whose worker did not start): imported then, so
 * a page's first load does not carry ktx-parse and the transcoder's glue its worker has anyway.
 */
async function transcodeKtx2(...args: Parameters<typeof import('./ktx2-transcode.ts').transcodeKtx2>): Promise<TranscodedKtx2> {
  return (await import('./ktx2-transcode.ts')).transcodeKtx2(...args);
}

/**
 * transcodeKtx2, in the worker where there is one. The levels' bytes are charged to
 * `options.budget` either way (the worker charges a copy before allocating, the page the same
 * bytes when they arrive); errors are GltfErrors naming `path`.
 */
export async function transcodeKtx2OffThread(bytes: Uint8Array, path: string, options: Ktx2Options & { readonly budget: LoadBudget }): Promise<TranscodedKtx2> {
  if (!thread.available) return transcodeKtx2(bytes, path, options);
  const { budget } = options;
  // A copy: the model's image bytes stay with the page.
  const job: Ktx2WorkerJob = {
    bytes: bytes.slice(), path, features: [...options.features], srgb: options.srgb, maxDimension: options.maxDimension, budget: budget.state(),
  };
  // On the page's thread, as in the worker: a copy of the budget is charged first, then the page's own.
  const here = () => transcodeKtx2(bytes, path, { ...options, budget: LoadBudget.resume(job.budget) });
  const t = await thread.run(job, [job.bytes.buffer], path, here);
  budget.charge(t.levels.reduce((sum, level) => sum + level.data.byteLength, 0), path);
  return t;
}
