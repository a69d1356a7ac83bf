/**
 * dawn.node (the `webgpu` package) learns that GPU work has finished by polling: while any
 * operation is pending (mapAsync, onSubmittedWorkDone, a pipeline created asynchronously, an
 * error scope popped) it queues a fresh native callback with the global `setImmediate`, which
 * processes Dawn's events and queues itself again (its AsyncRunner; crbug.com/dawn/1127). So
 * while SwiftShader's threads compile or draw, the test worker's own thread spins at a full
 * core: on the 2-core CI machine, one of the two cores SwiftShader needs, plus the garbage of a
 * new function per poll.
 *
 * `paceDawnPolling()` makes those polls wait a millisecond (`setTimeout`) instead: the worker
 * sleeps between them, and a finished operation is seen at most about a millisecond later.
 * Dawn's poll is recognised as what only it passes: a native function without a name (a JS
 * function, a bound one — named `bound …` — or a function with a name goes to `setImmediate`
 * as before).
 */

/** How long a Dawn poll waits before it runs (setTimeout's minimum). */
export const DAWN_POLL_DELAY_MS = 1;

let paced = false;

/** Whether `callback` is dawn.node's event poll: a native function without a name. */
export function isDawnPoll(callback: unknown): boolean {
  return typeof callback === 'function' && callback.name === '' && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(callback));
}

/**
 * Replaces the global `setImmediate` (once per process) with one that runs Dawn's polls after
 * DAWN_POLL_DELAY_MS and everything else as before.
 */
export function paceDawnPolling(): void {
  if (paced) return;
  paced = true;
  const immediate = globalThis.setImmediate;
  const pacedImmediate = (callback: (...args: unknown[]) => void, ...args: unknown[]) =>
    (isDawnPoll(callback) ? setTimeout(callback, DAWN_POLL_DELAY_MS, ...args) : immediate(callback, ...args));
  // Node's own setImmediate.__promisify__ (util.promisify) and the like stay reachable.
  globalThis.setImmediate = Object.assign(pacedImmediate, immediate) as unknown as typeof setImmediate;
}
