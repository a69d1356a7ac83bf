import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';

/** Debian's Chromium: it ships SwiftShader, which gives WebGPU without a GPU. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags that give a WebGPU adapter on SwiftShader *and* a composited WebGPU canvas in
 * screenshots (../shared/WEBGPU-HEADLESS.md), with Chromium's background networking off
 * because this machine has no network.
 */
export function chromiumArgs(): string[] {
  return [
    '--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader',
    '--enable-features=Vulkan', '--use-angle=vulkan', '--use-vulkan=swiftshader',
    '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync',
  ];
}

/** Why browser tests cannot run here, or undefined when they can. In CI that is an error, not a skip. */
export function browserUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
  return undefined;
}

export interface BrowserSession {
  readonly browser: Browser;
  readonly server: ViteDevServer;
  readonly baseUrl: string;
  newPage(): Promise<{ page: Page; consoleErrors: string[] }>;
  close(): Promise<void>;
}

/** Starts the project's Vite dev server on 127.0.0.1 (WebGPU needs a secure context) and Chromium. */
export async function startBrowserSession(): Promise<BrowserSession> {
  const root = resolve(import.meta.dirname, '../..');
  const server = await createServer({
    root,
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
    // Let the page fetch the shared test models read-only through /@fs/.
    clearScreen: false,
  });
  await server.listen();
  const address = server.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('vite did not report a port');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Playwright gives every launch a fresh, empty profile of its own.
    args: chromiumArgs(),
  });
  return {
    browser, server, baseUrl,
    async newPage() {
      const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
      const consoleErrors: string[] = [];
      page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
      page.on('pageerror', (err) => consoleErrors.push(err.message));
      return { page, consoleErrors };
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
