/**
 * The browser side-by-side tests' page (test/browser/pages/*.html) in the run's Chromium, opened
 * once per file (inside its describe), its devices' WebGPU errors checked after every test, each
 * drawing read back as RGBA8 and written as a test artifact.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { testPageUrl } from '../support/built-pages.ts';
import { writeArtifactPng } from '../support/png.ts';
import { rawRgba, type Rgba8Image } from './element-support.ts';
import type { SideBySideScene } from './pages/side-by-side-scene.ts';

export interface SideBySidePage {
  /** The page, once beforeAll has opened it. */
  page(): Page;
  /** The session's base URL (for a second page of the same test pages). */
  baseUrl(): string;
  /** The base64 RGBA8 drawing of `scene`, as an image, written as artifact `name`. */
  image(scene: SideBySideScene, name: string, rgba: string): Rgba8Image;
}

/** Opens `path` (from the checkout's root) and waits until the page defines `window[ready]`. */
export function useSideBySidePage(path: string, ready: string, close: () => Promise<void> = async () => {}): SideBySidePage {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    ({ page } = await session.newPage());
    await page.goto(testPageUrl(session.baseUrl, path));
    await page.waitForFunction((name) => typeof (window as unknown as Record<string, unknown>)[name] === 'function', ready, { timeout: 120_000 });
  }, 180_000);
  afterAll(async () => {
    await close();
  });
  return {
    page: () => page,
    baseUrl: () => session.baseUrl,
    image(s, name, rgba) {
      const image = rawRgba(s.width, s.height, rgba);
      writeArtifactPng(name, s.width, s.height, image.data);
      return image;
    },
  };
}
