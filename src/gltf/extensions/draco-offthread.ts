import type { AccessorData } from '../accessors.ts';
import { LoadBudget } from '../budget.ts';
import { GltfError } from '../errors.ts';
import { dracoDeclaredBytes, decodeDracoPrimitive, type DracoPrimitive, type DracoPrimitiveRequest } from './draco.ts';

/**
 * Where a Draco primitive is decoded: in a page, in one shared module Web Worker
 * (draco-worker.ts, bundled by Vite with its WebAssembly), so a large avatar does not freeze
 * the page; where there are no Workers (Node: bake, tests), on the calling thread. The
 * worker is started on the first Draco primitive and ended when it has been idle a while.
 * A page that cannot start the worker (a content policy forbidding it) falls back to its own
 * thread, where the library build has no decoder (vite.config.ts): the load then fails with
 * a GltfError saying so, rather than fetching WebAssembly from a guessed place.
 */

export interface DracoWorkerRequest {
  readonly id: number;
  readonly request: DracoPrimitiveRequest;
}

export type DracoWorkerReply =
  | { readonly id: number; readonly vertexCount: number; readonly attributes: [string, AccessorData][]; readonly indices: AccessorData }
  | { readonly id: number; readonly error: { readonly path: string; readonly problem: string } };

/** An idle worker is ended after this long, releasing its WebAssembly memory. */
export const DRACO_WORKER_IDLE_MS = 10_000;

/**
 * Name of the performance measure recorded on the page for each primitive the worker
 * decodes (from posting to the reply): how long a decode took, and proof that it ran off
 * the main thread.
 */
export const DRACO_WORKER_MEASURE = 'skinned-mesh-webgpu:draco-worker-decode';

interface Pending {
  readonly request: DracoPrimitiveRequest;
  readonly start: number;
  readonly resolve: (decoded: DracoPrimitive) => void;
  readonly reject: (error: unknown) => void;
}

let worker: Worker | undefined;
/** Set when a worker could not start (blocked by a content policy, say): decode here from then on. */
let workerFailed = false;
let nextId = 0;
const pending = new Map<number, Pending>();
let idleTimer: ReturnType<typeof setTimeout> | undefined;

/** True where decoding should go to a worker: a browser page with module workers. */
function workersAvailable(): boolean {
  return !workerFailed && typeof Worker === 'function' && typeof document !== 'undefined';
}

/**
 * Decodes one checked request, in the worker where there is one. The declared output sizes
 * are charged to `budget` first (here, before posting); errors are GltfErrors naming the
 * request's path either way.
 */
export async function decodeDraco(request: DracoPrimitiveRequest, budget: LoadBudget): Promise<DracoPrimitive> {
  if (!workersAvailable()) return decodeDracoPrimitive(request, budget);
  budget.charge(dracoDeclaredBytes(request), request.path);
  return new Promise<DracoPrimitive>((resolve, reject) => {
    const id = nextId++;
    const w = startWorker();
    if (!w) {
      decodeHere(request, resolve, reject);
      return;
    }
    pending.set(id, { request, start: performance.now(), resolve, reject });
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
    // A copy: the file's own buffer stays with the page.
    const message: DracoWorkerRequest = { id, request: { ...request, bytes: request.bytes.slice() } };
    w.postMessage(message, [message.request.bytes.buffer]);
  });
}

/** The page-thread decode, when no worker can be had; the budget was charged already. */
function decodeHere(request: DracoPrimitiveRequest, resolve: (d: DracoPrimitive) => void, reject: (e: unknown) => void): void {
  // Charged by the caller: an unlimited budget here keeps it from being charged twice.
  decodeDracoPrimitive(request, new LoadBudget(Infinity, 0)).then(resolve, reject);
}

function startWorker(): Worker | undefined {
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./draco-worker.ts', import.meta.url), { type: 'module', name: 'draco-decoder' });
  } catch {
    workerFailed = true;
    return undefined;
  }
  let replied = false;
  worker.addEventListener('message', (event: MessageEvent<DracoWorkerReply>) => {
    replied = true;
    settle(event.data);
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    stopWorker();
    if (!replied) {
      // The script could not load or run at all (a content policy, say): decode what was
      // sent here instead, and from now on.
      workerFailed = true;
      for (const [id, p] of pending) {
        pending.delete(id);
        decodeHere(p.request, p.resolve, p.reject);
      }
      return;
    }
    // It worked before and died on this data: those decodes fail; the next one starts a fresh worker.
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new GltfError(p.request.path, `the Draco decoder's worker failed on this data (${event.message || 'no reason given'}); the file is damaged`));
    }
  });
  return worker;
}

function settle(reply: DracoWorkerReply): void {
  const p = pending.get(reply.id);
  if (!p) return;
  pending.delete(reply.id);
  if ('error' in reply) {
    p.reject(new GltfError(reply.error.path, reply.error.problem));
  } else {
    performance.measure(DRACO_WORKER_MEASURE, { start: p.start, end: performance.now(), detail: p.request.path });
    p.resolve({ vertexCount: reply.vertexCount, attributes: new Map(reply.attributes), indices: reply.indices });
  }
  if (pending.size === 0) idleTimer = setTimeout(stopWorker, DRACO_WORKER_IDLE_MS);
}

function stopWorker(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  worker?.terminate();
  worker = undefined;
}
