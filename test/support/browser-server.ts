/**
 * Global setup of the 'browser' test project (vite.config.ts): one Vite dev server and one
 * Chromium (WebGPU on SwiftShader) for all the project's files in a run. Each file connects
 * to them through startBrowserSession (browser.ts) and opens its own pages, in contexts of
 * its own; it no longer starts a server that transforms the whole library again for its
 * first page, nor launches a browser. Vitest runs this only when a file of the project runs.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { browserUnavailable, CHROMIUM, chromiumArgs, startDevServer } from './browser.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // What the files share on disk (the packed library: packed-library.ts), removed after the run.
  // Inside the repository, so that declarations there resolve @webgpu/types from its node_modules.
  const cache = resolve(import.meta.dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const runDir = mkdtempSync(join(cache, 'browser-run-'));
  project.provide('browserRunDir', runDir);
  const removeRunDir = () => rmSync(runDir, { recursive: true, force: true });
  // Without Chromium the files skip, or fail in CI, as they decide (browserUnavailable).
  if (browserUnavailable()) return async () => removeRunDir();
  const dev = await startDevServer();
  const browser = await chromium.launchServer({ executablePath: CHROMIUM, args: chromiumArgs() });
  project.provide('browserServer', { wsEndpoint: browser.wsEndpoint(), baseUrl: dev.baseUrl });
  return async () => {
    await browser.close();
    await dev.server.close();
    removeRunDir();
  };
}
