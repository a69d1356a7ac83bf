/**
 * The MToon browser tests' page (test/browser/pages/mtoon.html) in the run's Chromium: opened
 * once per file, its devices' WebGPU errors checked after every test, and each drawing
 * (ours, or three-vrm's) read back as RGBA8 and written as a test artifact. three.js draws with
 * WebGL2, which Chromium offers on SwiftShader only through ANGLE, without the WebGPU flags of
 * the run's browser: three-vrm's half runs in a second Chromium of this file's own, on the same
 * page (as scripts/vrm-figure.ts does).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, chromiumArgs, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { writeArtifactPng } from '../support/png.ts';
import { rawRgba, type Rgba8Image } from './element-support.ts';
import type { MToonScene } from './pages/mtoon-page.ts';

export interface MToonPage {
  /** The scene drawn by our Renderer (no warning or WebGPU error allowed), saved as artifact `name`. */
  ours(scene: MToonScene, name: string): Promise<Rgba8Image>;
  /** The scene drawn by three.js with three-vrm's MToon, saved as artifact `name`. */
  threeVrm(scene: MToonScene, name: string): Promise<Rgba8Image>;
}

/** Registers the file's hooks (inside its describe) and returns the page's drawing calls. */
export function useMToonPage(): MToonPage {
  let session: BrowserSession;
  let page: Page;
  let webgl: Browser | undefined;
  let threePage: Page | undefined;
  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page } = await session.newPage());
    await page.goto(`${session.baseUrl}/test/browser/pages/mtoon.html`);
    await page.waitForFunction(() => typeof window.mtoonOurs === 'function', undefined, { timeout: 120_000 });
  }, 180_000);
  afterEach(async () => session?.checkWebGpuErrors());
  afterAll(async () => {
    await webgl?.close();
    await session?.close();
  });
  /** The page in the WebGL browser, opened on first use. */
  const three = async (): Promise<Page> => {
    if (!threePage) {
      const args = chromiumArgs().filter((a) => !/^--(use-angle|use-vulkan|enable-features)=/.test(a));
      webgl = await chromium.launch({ executablePath: CHROMIUM, args: [...args, '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
      threePage = await webgl.newPage();
      await threePage.goto(`${session.baseUrl}/test/browser/pages/mtoon.html`);
      await threePage.waitForFunction(() => typeof window.mtoonThreeVrm === 'function', undefined, { timeout: 120_000 });
    }
    return threePage;
  };
  const read = (s: MToonScene, name: string, rgba: string): Rgba8Image => {
    const image = rawRgba(s.width, s.height, rgba);
    writeArtifactPng(name, s.width, s.height, image.data);
    return image;
  };
  return {
    async ours(s, name) {
      const result = await page.evaluate((request) => window.mtoonOurs(request), s);
      expect(result.errors).toEqual([]);
      return read(s, name, result.rgba);
    },
    async threeVrm(s, name) {
      const result = await (await three()).evaluate((request) => window.mtoonThreeVrm(request), s);
      return read(s, name, result.rgba);
    },
  };
}
