import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { createServer, searchForWorkspaceRoot, type ViteDevServer } from 'vite';
import { buildTestPages, builtTestPages } from './built-pages.ts';
import { servedAssets } from './served-assets.ts';

/** Debian's Chromium: it ships SwiftShader, which gives WebGPU without a GPU. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags that give a WebGPU adapter on SwiftShader *and* a composited WebGPU canvas in
 * screenshots (../shared/WEBGPU-HEADLESS.md), with Chromium's background networking off
 * because this machine has no network.
 *
 * No Dawn toggles: `--enable-dawn-features=disable_robustness` does take effect (a read past a
 * 4-element binding returned the 6th element instead of the clamped 4th), but it saved ~2% of
 * the CPU of pbr-three + element-model-viewer (90.2/87.6 → 86.2/87.7 CPU-s, runs interleaved,
 * load 10–21) and none of element.test.ts's (81.9 → 92.3, load rising 1 → 11). perf puts 64% of
 * the GPU process's samples in the code SwiftShader generated (shaders and pixel routines: the
 * drawing itself) and 10% in SwiftShader's library, compiler included: compiling pipelines is
 * not where the time goes, nor are the bounds checks. skip_validation would hide the
 * validation errors the tests assert, and a shared Dawn cache (--user-data-dir) saved ~2%
 * (notes of issue 22, session 4).
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
  readonly baseUrl: string;
  /**
   * A new page in a browser context of its own (cookies, storage and HTTP cache). One context
   * per file, its pages sharing their cache, measured 0–1 CPU-s less per later page (of ~5):
   * not worth a file's tests seeing each other's state.
   */
  newPage(): Promise<{ page: Page; consoleErrors: string[] }>;
  /**
   * Waits for the GPU work of every open page to finish, then throws if any page of the
   * session reported a WebGPU error since the last call (see `recordWebGpuErrors`); call it
   * in afterEach so the test that caused the error fails.
   */
  checkWebGpuErrors(): Promise<void>;
  close(): Promise<void>;
}

/** The page-side name of the binding that reports WebGPU errors to the test. */
const REPORT_BINDING = '__reportWebGpuError';

/**
 * Runs in every page before its own scripts: every device any code of the page requests
 * reports its uncaptured errors (validation, out-of-memory, internal) and any loss other
 * than destroy() to the test, and is listed in `__webgpuDevices` so the test can wait for
 * its queue before judging. Works for the library, the element, the demo and test pages
 * alike, without their knowing.
 */
function recordWebGpuErrors(binding: string): void {
  if (typeof GPUAdapter === 'undefined') return;
  // Looked up when used: the binding is installed alongside this script.
  const report = (message: string) => (globalThis as unknown as Record<string, (m: string) => void>)[binding](message);
  const devices: GPUDevice[] = [];
  (globalThis as unknown as { __webgpuDevices: GPUDevice[] }).__webgpuDevices = devices;
  const requestDevice = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor) {
    const device = await requestDevice.call(this, descriptor);
    devices.push(device);
    device.addEventListener('uncapturederror', (event) => {
      const error = (event as GPUUncapturedErrorEvent).error;
      report(`uncaptured WebGPU ${error.constructor.name} on device "${device.label}": ${error.message}`);
    });
    void device.lost.then((info) => {
      devices.splice(devices.indexOf(device), 1);
      if (info.reason !== 'destroyed') report(`WebGPU device "${device.label}" lost (${info.reason}): ${info.message}`);
    });
    return device;
  };
}

/** Console text of a WebGPU error that reached the console some other way (Chromium logs uncaptured ones too). */
const WEBGPU_CONSOLE_ERROR = /GPUValidationError|GPUOutOfMemoryError|GPUInternalError|WebGPU (validation )?error/i;

/** Used JS heap bytes after full garbage collections (twice: the first may leave work for finalizers). */
export async function heapAfterGc(cdp: CDPSession): Promise<number> {
  for (let i = 0; i < 2; i++) await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize;
}

/** Where the 'browser' test project's global setup (browser-server.ts) serves: its Chromium and its Vite dev server. */
export interface SharedBrowserServer {
  readonly wsEndpoint: string;
  readonly baseUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by test/support/browser-server.ts for the files of the 'browser' project. */
    browserServer?: SharedBrowserServer;
  }
}

/**
 * The project's Vite dev server on 127.0.0.1 (WebGPU needs a secure context), on a free port,
 * also serving the test pages built (test/support/built-pages.ts: testPageUrl says where).
 */
export async function startDevServer(): Promise<{ server: ViteDevServer; baseUrl: string }> {
  const root = resolve(import.meta.dirname, '../..');
  const builtPages = await buildTestPages();
  const server = await createServer({
    root,
    configFile: join(root, 'vite.config.ts'),
    // A dependency cache per checkout: git worktrees sharing one node_modules would otherwise
    // rewrite each other's node_modules/.vite while a page imports from it.
    cacheDir: join(tmpdir(), `skinned-mesh-webgpu-vite-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`),
    logLevel: 'error',
    // node_modules by its real path too: in a git worktree it may link to another checkout's,
    // and the decoders' workers import from it (the KTX2 transcoder's WebAssembly).
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, fs: { allow: [searchForWorkspaceRoot(root), realpathSync(join(root, 'node_modules'))] } },
    // Let the page fetch the shared test models read-only through /@fs/.
    clearScreen: false,
    // The models the element tests' pages fetch under /assets/, and the built test pages.
    plugins: [servedAssets(), builtTestPages(builtPages)],
  });
  await server.listen();
  const address = server.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('vite did not report a port');
  return { server, baseUrl: `http://127.0.0.1:${address.port}` };
}

/**
 * Chromium and the dev server for one test file. In the 'browser' test project both are the
 * run's own, started once by its global setup (test/support/browser-server.ts): a file then
 * connects, so it neither launches Chromium nor waits for Vite to transform the library
 * again. Anywhere else (another project, a script) the file starts its own.
 */
export async function startBrowserSession(): Promise<BrowserSession> {
  // Imported here: the global setup imports this file in vitest's main process, where the test API is not.
  const { inject } = await import('vitest');
  let shared: ReturnType<typeof inject<'browserServer'>> | undefined;
  // Outside a vitest worker (a script such as scripts/vrm-figure.ts) inject throws: start our own.
  try { shared = inject('browserServer'); } catch { shared = undefined; }
  let browser: Browser, baseUrl: string, stop: () => Promise<void>;
  if (shared) {
    browser = await chromium.connect(shared.wsEndpoint);
    baseUrl = shared.baseUrl;
    // Closes the contexts this file made and disconnects; the run's Chromium goes on.
    stop = () => browser.close();
  } else {
    const dev = await startDevServer();
    // Playwright gives every launch a fresh, empty profile of its own.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs() });
    baseUrl = dev.baseUrl;
    stop = async () => {
      await browser.close();
      await dev.server.close();
    };
  }
  const webgpuErrors: string[] = [];
  const openPages = new Set<Page>();
  return {
    browser, baseUrl,
    async newPage() {
      const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
      const consoleErrors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(msg.text());
        if ((msg.type() === 'error' || msg.type() === 'warning') && WEBGPU_CONSOLE_ERROR.test(msg.text())) {
          webgpuErrors.push(`console ${msg.type()}: ${msg.text()}`);
        }
      });
      page.on('pageerror', (err) => consoleErrors.push(err.message));
      openPages.add(page);
      page.on('close', () => openPages.delete(page));
      await page.exposeFunction(REPORT_BINDING, (message: string) => { webgpuErrors.push(message); });
      await page.addInitScript(recordWebGpuErrors, REPORT_BINDING);
      return { page, consoleErrors };
    },
    async checkWebGpuErrors() {
      for (const page of openPages) {
        try {
          await page.evaluate(async () => {
            const devices = (globalThis as unknown as { __webgpuDevices?: GPUDevice[] }).__webgpuDevices ?? [];
            await Promise.all(devices.map((d) => d.queue.onSubmittedWorkDone()));
            await new Promise((resolve) => setTimeout(resolve, 0));
          });
        } catch {
          // Closed or navigating meanwhile: what it reported has arrived already.
        }
      }
      if (webgpuErrors.length > 0) throw new Error(`WebGPU errors in the page:\n${webgpuErrors.splice(0).join('\n')}`);
    },
    close: stop,
  };
}
