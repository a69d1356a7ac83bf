import { describe, expect, it } from 'vitest';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

describe.skipIf(!!unavailable)('headless Chromium with WebGPU', () => {
  const session = useBrowserSession();

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

  it('a WebGPU validation error in a page fails the test (self-test of checkWebGpuErrors)', async () => {
    const { page } = await session.newPage();
    try {
      await page.goto(`${session.baseUrl}/test/browser/blank.html`);
      await page.evaluate(async () => {
        const device = await (await navigator.gpu.requestAdapter())!.requestDevice({ label: 'self-test' });
        // MAP_READ may only be combined with COPY_DST.
        device.createBuffer({ label: 'deliberately invalid', size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
      });
      await expect(session.checkWebGpuErrors()).rejects.toThrow(/uncaptured WebGPU GPUValidationError on device "self-test".*deliberately invalid/s);
      // Reported once: the afterEach of this test finds nothing left.
      await expect(session.checkWebGpuErrors()).resolves.toBeUndefined();
    } finally {
      await page.close();
    }
  });
});
