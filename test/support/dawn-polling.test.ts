/**
 * The pacing of dawn.node's polls (dawn-polling.ts): a native function without a name (what
 * dawn.node passes) waits DAWN_POLL_DELAY_MS; every other callback runs as setImmediate runs it.
 * (test/gpu/device/device.test.ts checks that real Dawn's polls are the ones recognised.)
 */
import { describe, expect, it } from 'vitest';
import { DAWN_POLL_DELAY_MS, isDawnPoll, paceDawnPolling } from './dawn-polling.ts';

/** A callable that looks as dawn.node's poll does (native, no name) and counts its calls. */
function nativeLooking(): { callback: () => void; calls: () => number } {
  let calls = 0;
  const callback = new Proxy(() => { calls++; }, { get: (target, key) => (key === 'name' ? '' : Reflect.get(target, key)) });
  return { callback, calls: () => calls };
}

describe('paceDawnPolling', () => {
  it('recognises only nameless native functions', () => {
    expect(isDawnPoll(nativeLooking().callback)).toBe(true);
    expect(isDawnPoll(Function.prototype)).toBe(true);
    expect(isDawnPoll(() => {})).toBe(false);
    expect(isDawnPoll(function named() {})).toBe(false);
    expect(isDawnPoll((() => {}).bind(null))).toBe(false);
    expect(isDawnPoll(Math.max)).toBe(false);
    expect(isDawnPoll('[native code]')).toBe(false);
  });

  it("hands Dawn's polls to a timer of DAWN_POLL_DELAY_MS; runs the rest as setImmediate does, with their arguments", async () => {
    paceDawnPolling();
    paceDawnPolling();
    const timers: unknown[][] = [];
    const setTimer = globalThis.setTimeout;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => { timers.push(args); return setTimer(...args); }) as typeof setTimeout;
    const dawn = nativeLooking();
    const ran: string[] = [];
    try {
      setImmediate(dawn.callback);
      setImmediate((a: number, b: string) => ran.push(`js ${a} ${b}`), 1, 'two');
    } finally {
      globalThis.setTimeout = setTimer;
    }
    expect(timers).toEqual([[dawn.callback, DAWN_POLL_DELAY_MS]]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['js 1 two']);
    while (dawn.calls() === 0) await new Promise((resolve) => setTimer(resolve, 1));
    expect(dawn.calls()).toBe(1);
    // util.promisify(setImmediate) still works (Node's own __promisify__ is kept).
    const { promisify } = await import('node:util');
    expect(await promisify(setImmediate)('value')).toBe('value');
  });
});
