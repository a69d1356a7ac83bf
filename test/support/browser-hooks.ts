/**
 * The hooks every browser test file (or describe) writes the same way: a browser session
 * (startBrowserSession) started before its tests and closed after them, and its pages' WebGPU
 * errors checked after each test, so that the test that caused one fails.
 *
 * Apart from browser.ts: the browser project's global setup imports that file in vitest's main
 * process, where vitest's test API is not.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startBrowserSession, type BrowserSession } from './browser.ts';

/**
 * Registers the hooks and returns the session: usable in the tests and in `beforeAll` hooks
 * registered after this call (hooks run in order), which may open pages in it.
 */
export function useBrowserSession(timeout = 60_000): BrowserSession {
  let started: BrowserSession | undefined;
  beforeAll(async () => { started = await startBrowserSession(); }, timeout);
  afterAll(async () => { await started?.close(); });
  afterEach(async () => { await started?.checkWebGpuErrors(); });
  const session = (): BrowserSession => {
    if (!started) throw new Error('the browser session starts in beforeAll: use it in a test or a later hook');
    return started;
  };
  return {
    get browser() { return session().browser; },
    get baseUrl() { return session().baseUrl; },
    newPage: () => session().newPage(),
    checkWebGpuErrors: () => session().checkWebGpuErrors(),
    close: () => session().close(),
  };
}
