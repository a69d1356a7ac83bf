/**
 * Global setup of the 'browser' test project (vite.config.ts): one Vite dev server and one
 * Chromium (WebGPU on SwiftShader) for all the project's files in a run. Each file connects
 * to them through startBrowserSession (browser.ts) and opens its own pages, in contexts of
 * its own; it no longer starts a server that transforms the whole library again for its
 * first page, nor launches a browser. Vitest runs this only when a file of the project runs.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { browserUnavailable, CHROMIUM, chromiumArgs, startDevServer } from './browser.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Without Chromium the files skip, or fail in CI, as they decide (browserUnavailable).
  if (browserUnavailable()) return async () => {};
  const dev = await startDevServer();
  const browser = await chromium.launchServer({ executablePath: CHROMIUM, args: chromiumArgs() });
  project.provide('browserServer', { wsEndpoint: browser.wsEndpoint(), baseUrl: dev.baseUrl });
  return async () => {
    await browser.close();
    await dev.server.close();
  };
}
