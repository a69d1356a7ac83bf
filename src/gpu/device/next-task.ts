/**
 * Resolves in a later task of the event loop, after the tasks queued meanwhile have run: a
 * network response, the next chunk of a download. CPU work that runs while a first frame is
 * prepared (an environment's image, the BRDF table) yields with it, so that a model's JSON
 * arriving meanwhile asks for its pipelines (the longest wait) first.
 *
 * A message to a MessageChannel, not a zero-delay timer: browsers clamp a timer set from
 * inside a timer's task to 4 ms once five are nested, and each `await nextTask()` of a chain
 * nests one deeper, so a chain of 20 slices (the `neutral` prefilter and the BRDF table)
 * waited ~80 ms on nothing (30 chained timers took 121 ms in Chromium 156, 30 messages 1 ms).
 * The channel is closed whenever no task waits, so that it keeps no Node process alive.
 */
let channel: MessageChannel | undefined;
const waiting: (() => void)[] = [];

function deliver(): void {
  const resolve = waiting.shift();
  if (waiting.length === 0) {
    channel?.port1.close();
    channel = undefined;
  }
  resolve?.();
}

export function nextTask(): Promise<void> {
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = deliver;
    }
    waiting.push(resolve);
    channel.port2.postMessage(undefined);
  });
}
