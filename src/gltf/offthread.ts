/**
 * Heavy decoding off a page's main thread: one lazily started module Web Worker per kind of
 * job (Draco meshes: extensions/draco-offthread.ts; KTX2 textures: gpu/ktx2-offthread.ts), so
 * a large avatar does not freeze the page. Where there are no Workers (Node: bake, tests) the
 * caller runs the job itself; a page that cannot start the worker (a content policy forbidding
 * it) runs it on its own thread from then on. An idle worker is ended after a while, releasing
 * its WebAssembly memory. Failures come back as GltfErrors naming the job's JSON path.
 */
import { GltfError } from './errors.ts';

/** A job's failure as it crosses from the worker: a GltfError's parts. */
export interface WorkerJobError {
  readonly path: string;
  readonly problem: string;
}

export interface WorkerCall<J> {
  readonly id: number;
  readonly job: J;
}

export type WorkerAnswer<R> = { readonly id: number; readonly result: R } | { readonly id: number; readonly error: WorkerJobError };

export interface OffThreadOptions {
  /** Starts the worker: `new Worker(new URL('./x-worker.ts', import.meta.url), { type: 'module' })`, written out so bundlers find it. */
  readonly start: () => Worker;
  /** An idle worker is ended after this long. */
  readonly idleMs: number;
  /** Performance measure recorded per job (posting to answer, detail: the job's path): its time, and proof it ran off the page's thread. */
  readonly measure: string;
  /** What runs in the worker, for the message of a job it died on ("the Draco decoder"). */
  readonly what: string;
}

interface Pending<R> {
  readonly path: string;
  readonly start: number;
  /** The same job on the calling thread, if the worker turns out not to start. */
  readonly here: () => Promise<R>;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** The page's side of one kind of worker. */
export class OffThread<J, R> {
  private worker: Worker | undefined;
  /** Set when the worker could not start: jobs run on the calling thread from then on. */
  private failed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending<R>>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: OffThreadOptions) {}

  /** True where jobs should go to the worker: a browser page with Workers that has not failed to start one. */
  get available(): boolean {
    return !this.failed && typeof Worker === 'function' && typeof document !== 'undefined';
  }

  /**
   * Runs `job` in the worker (the `transfer` buffers move there; pass copies of what the page
   * keeps), or `here()` when the worker cannot start. Call only when `available`.
   */
  run(job: J, transfer: Transferable[], path: string, here: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const w = this.startWorker();
      if (!w) {
        here().then(resolve, reject);
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { path, start: performance.now(), here, resolve, reject });
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      const call: WorkerCall<J> = { id, job };
      w.postMessage(call, transfer);
    });
  }

  private startWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = this.options.start();
    } catch {
      this.failed = true;
      return undefined;
    }
    this.worker = worker;
    let answered = false;
    worker.addEventListener('message', (event: MessageEvent<WorkerAnswer<R>>) => {
      answered = true;
      this.settle(event.data);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.stop();
      const pending = [...this.pending.values()];
      this.pending.clear();
      if (!answered) {
        // The script could not load or run at all (a content policy, say): run what was sent
        // here instead, and from now on.
        this.failed = true;
        for (const p of pending) p.here().then(p.resolve, p.reject);
        return;
      }
      // It worked before and died on this data: those jobs fail; the next one starts a fresh worker.
      for (const p of pending) {
        p.reject(new GltfError(p.path, `${this.options.what}'s worker failed on this data (${event.message || 'no reason given'}); the file is damaged`));
      }
    });
    return worker;
  }

  private settle(answer: WorkerAnswer<R>): void {
    const p = this.pending.get(answer.id);
    if (!p) return;
    this.pending.delete(answer.id);
    if ('error' in answer) {
      p.reject(new GltfError(answer.error.path, answer.error.problem));
    } else {
      performance.measure(this.options.measure, { start: p.start, end: performance.now(), detail: p.path });
      p.resolve(answer.result);
    }
    if (this.pending.size === 0) this.idleTimer = setTimeout(() => this.stop(), this.options.idleMs);
  }

  private stop(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.worker?.terminate();
    this.worker = undefined;
  }
}

/** The part of a dedicated worker's global scope used here (the DOM typings describe a window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerCall<unknown>>) => void): void;
  postMessage(message: WorkerAnswer<unknown>, transfer: Transferable[]): void;
}

/**
 * The worker's side: answers every call with `work(job)`'s result (its `transfer` buffers
 * moved back to the page), or with its failure: a GltfError as it is, anything else as
 * `failure(job, error)` says.
 */
export function serveWorkerJobs<J, R>(
  work: (job: J) => Promise<{ readonly result: R; readonly transfer: Transferable[] }>,
  failure: (job: J, error: unknown) => WorkerJobError,
): void {
  const scope = globalThis as unknown as WorkerScope;
  scope.addEventListener('message', (event) => {
    const { id, job } = event.data as WorkerCall<J>;
    work(job).then(
      ({ result, transfer }) => scope.postMessage({ id, result }, transfer),
      (e: unknown) => scope.postMessage({ id, error: e instanceof GltfError ? { path: e.path, problem: e.problem } : failure(job, e) }, []),
    );
  });
}
