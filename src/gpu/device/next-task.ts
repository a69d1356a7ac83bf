/**
 * Resolves in a later task of the event loop (a zero-delay timer), after the tasks queued
 * meanwhile have run: a network response, the next chunk of a download. CPU work that runs
 * while a first frame is prepared (an environment's image, the BRDF table) yields with it, so
 * that a model's JSON arriving meanwhile asks for its pipelines (the longest wait) first.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
