import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

describe.skipIf(!!unavailable)('headless Chromium with WebGPU', () => {
  let session: BrowserSession;
  beforeAll(async () => { session = await startBrowserSession(); }, 60_000);
  afterAll(async () => { await session?.close(); });

  it('gives a SwiftShader WebGPU adapter and device on a localhost page', async () => {
    const { page } = await session.newPage();
    await page.goto(`${session.baseUrl}/test/browser/blank.html`);
    const info = await page.evaluate(async () => {
      const adapter = await navigator.gpu?.requestAdapter();
      if (!adapter) return 'no adapter';
      const device = await adapter.requestDevice();
      const ok = !!device;
      device.destroy();
      return `${adapter.info.vendor} ${adapter.info.architecture} ${ok}`;
    });
    expect(info).toMatch(/swiftshader.* true$/i);
  });
});
