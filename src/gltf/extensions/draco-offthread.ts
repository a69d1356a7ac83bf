import { LoadBudget } from '../budget.ts';
import { OffThread } from '../offthread.ts';
import { dracoDeclaredBytes, decodeDracoPrimitive, type DracoPrimitive, type DracoPrimitiveRequest } from './draco.ts';
import type { DracoWorkerResult } from './draco-worker.ts';

/**
 * Where a Draco primitive is decoded: in a page, in one shared module Web Worker
 * (draco-worker.ts, bundled by Vite with its WebAssembly; the worker's lifecycle is
 * ../offthread.ts), so a large avatar does not freeze the page; where there are no Workers
 * (Node: bake, tests), on the calling thread. A page that cannot start the worker (a content
 * policy forbidding it) falls back to its own thread, where the library build has no decoder
 * (vite.config.ts): the load then fails with a GltfError saying so, rather than fetching
 * WebAssembly from a guessed place.
 */

/** An idle worker is ended after this long, releasing its WebAssembly memory. */
export const DRACO_WORKER_IDLE_MS = 10_000;

/**
 * Name of the performance measure recorded on the page for each primitive the worker
 * decodes (from posting to the reply): how long a decode took, and proof that it ran off
 * the main thread.
 */
export const DRACO_WORKER_MEASURE = 'skinned-mesh-webgpu:draco-worker-decode';

const thread = new OffThread<DracoPrimitiveRequest, DracoWorkerResult>({
  start: () => new Worker(new URL('./draco-worker.ts', import.meta.url), { type: 'module', name: 'draco-decoder' }),
  idleMs: DRACO_WORKER_IDLE_MS,
  measure: DRACO_WORKER_MEASURE,
  what: 'the Draco decoder',
});

/**
 * Decodes one checked request, in the worker where there is one. The declared output sizes
 * are charged to `budget` first (here, before posting); errors are GltfErrors naming the
 * request's path either way.
 */
export async function decodeDraco(request: DracoPrimitiveRequest, budget: LoadBudget): Promise<DracoPrimitive> {
  if (!thread.available) return decodeDracoPrimitive(request, budget);
  budget.charge(dracoDeclaredBytes(request), request.path);
  // A copy: the file's own buffer stays with the page.
  const bytes = request.bytes.slice();
  // Charged above: an unlimited budget on the page's thread keeps it from being charged twice.
  const here = async (): Promise<DracoWorkerResult> => {
    const d = await decodeDracoPrimitive(request, new LoadBudget(Infinity, 0));
    return { vertexCount: d.vertexCount, attributes: [...d.attributes], indices: d.indices };
  };
  const r = await thread.run({ ...request, bytes }, [bytes.buffer], request.path, here);
  return { vertexCount: r.vertexCount, attributes: new Map(r.attributes), indices: r.indices };
}
