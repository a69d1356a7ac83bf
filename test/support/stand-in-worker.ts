/**
 * A module worker's page side in Node (draco-offthread.ts, ktx2-offthread.ts): a stand-in
 * `Worker` runs the real worker module in this thread, messages structured-cloned with their
 * transfers as a browser would, and `document` exists so the library takes its page path.
 * `log` counts starts and posts and can make the next start fail (as a script that cannot
 * load: an error event, no reply ever) or the next message crash the worker (an error event,
 * no answer).
 */
import { expect } from 'vitest';

type Listener = (event: { data: unknown }) => void;

export interface StandInWorkerLog {
  started: number;
  posted: number;
  failOnStart: boolean;
  crashNext: boolean;
}

const globals = globalThis as unknown as Record<string, unknown>;
let saved: { Worker: unknown; document: unknown } | undefined;

/**
 * Gives this thread a worker's global scope, runs `loadWorker` (which imports the worker
 * module, and may configure it), then a page's `Worker` whose script path matches `script`.
 */
export async function installStandInWorker(script: RegExp, loadWorker: () => Promise<unknown>): Promise<StandInWorkerLog> {
  const log: StandInWorkerLog = { started: 0, posted: 0, failOnStart: false, crashNext: false };
  const workerListeners: Listener[] = [];
  let toPage: ((data: unknown) => void) | undefined;

  class StandInWorker extends EventTarget {
    constructor(url: URL, options: WorkerOptions) {
      super();
      log.started++;
      expect(url.pathname).toMatch(script);
      expect(options.type).toBe('module');
      if (log.failOnStart) {
        setTimeout(() => this.dispatchEvent(Object.assign(new Event('error'), { message: 'blocked' })));
        return;
      }
      toPage = (data) => this.dispatchEvent(new MessageEvent('message', { data }));
    }

    postMessage(data: unknown, transfer: Transferable[]): void {
      if (log.failOnStart) return;
      log.posted++;
      if (log.crashNext) {
        // As when the WebAssembly aborts the worker on this data.
        log.crashNext = false;
        setTimeout(() => this.dispatchEvent(Object.assign(new Event('error'), { message: 'RuntimeError: unreachable' })));
        return;
      }
      const cloned = structuredClone(data, { transfer });
      setTimeout(() => { for (const l of workerListeners) l({ data: cloned }); });
    }

    terminate(): void {}
  }

  saved = { Worker: globals.Worker, document: globals.document };
  // The worker's global scope…
  globals.addEventListener = (type: string, listener: Listener) => { if (type === 'message') workerListeners.push(listener); };
  globals.postMessage = (data: unknown, transfer: Transferable[]) => {
    const cloned = structuredClone(data, { transfer });
    setTimeout(() => toPage!(cloned));
  };
  await loadWorker();
  // …and the page's.
  globals.Worker = StandInWorker;
  globals.document = {};
  return log;
}

/** Puts back what `installStandInWorker` replaced. */
export function removeStandInWorker(): void {
  if (!saved) return;
  globals.Worker = saved.Worker;
  globals.document = saved.document;
  delete globals.addEventListener;
  delete globals.postMessage;
  saved = undefined;
}
