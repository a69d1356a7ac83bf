/**
 * The MToon browser tests' page (test/browser/pages/mtoon.html) in the run's Chromium, through
 * side-by-side-session.ts. three.js draws with WebGL2, which Chromium offers on SwiftShader only
 * through ANGLE, without the WebGPU flags of the run's browser: three-vrm's half runs in a second
 * Chromium of this file's own, on the same page (as scripts/vrm-figure.ts does).
 */
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, chromiumArgs } from '../support/browser.ts';
import { testPageUrl } from '../support/built-pages.ts';
import type { Rgba8Image } from './element-support.ts';
import type { MToonScene } from './pages/mtoon-page.ts';
import { useSideBySidePage } from './side-by-side-session.ts';

export interface MToonPage {
  /** The scene drawn by our Renderer (no warning or WebGPU error allowed), saved as artifact `name`. */
  ours(scene: MToonScene, name: string): Promise<Rgba8Image>;
  /** The scene drawn by three.js with three-vrm's MToon, saved as artifact `name`. */
  threeVrm(scene: MToonScene, name: string): Promise<Rgba8Image>;
}

const PAGE = 'test/browser/pages/mtoon.html';

/** Registers the file's hooks (inside its describe) and returns the page's drawing calls. */
export function useMToonPage(): MToonPage {
  let webgl: Browser | undefined;
  let threePage: Page | undefined;
  const side = useSideBySidePage(PAGE, 'mtoonOurs', async () => webgl?.close());
  /** The page in the WebGL browser, opened on first use. */
  const three = async (): Promise<Page> => {
    if (!threePage) {
      const args = chromiumArgs().filter((a) => !/^--(use-angle|use-vulkan|enable-features)=/.test(a));
      webgl = await chromium.launch({ executablePath: CHROMIUM, args: [...args, '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
      threePage = await webgl.newPage();
      await threePage.goto(testPageUrl(side.baseUrl(), PAGE));
      await threePage.waitForFunction(() => typeof window.mtoonThreeVrm === 'function', undefined, { timeout: 120_000 });
    }
    return threePage;
  };
  return {
    async ours(s, name) {
      const result = await side.page().evaluate((request) => window.mtoonOurs(request), s);
      expect(result.errors).toEqual([]);
      return side.image(s, name, result.rgba);
    },
    async threeVrm(s, name) {
      const result = await (await three()).evaluate((request) => window.mtoonThreeVrm(request), s);
      return side.image(s, name, result.rgba);
    },
  };
}
