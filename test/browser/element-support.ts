/**
 * Node-side support for the <skinned-mesh-viewer> browser tests: opening a test page, the
 * model files a test makes served through Playwright routes (the shared ones are the dev
 * server's: test/support/served-assets.ts), and decoding of what the page sends back.
 */
import type { CDPSession, Page, Route } from 'playwright-core';
import type { BrowserSession } from '../support/browser.ts';
import { decodeImageBytes } from '../support/png.ts';
import { testPageUrl } from '../support/built-pages.ts';
import { assetName } from '../support/served-assets.ts';

/**
 * Opens test/browser/pages/NAME on the test server (built, when it is one of the built pages:
 * test/support/built-pages.ts) and waits for the element and the page's helpers (`timeout`:
 * longer for the first page of a run).
 */
export async function openTestPage(page: Page, baseUrl: string, name = 'element-basic.html', timeout?: number): Promise<void> {
  await page.goto(testPageUrl(baseUrl, `test/browser/pages/${name}`));
  await page.waitForFunction(() => window.helpers !== undefined && customElements.get('skinned-mesh-viewer') !== undefined, undefined, timeout === undefined ? {} : { timeout });
}

/**
 * The paths under `/assets/` (served by the test dev server: test/support/served-assets.ts)
 * that the page asks for, as the page asks: `slow/Fox.glb` for `/assets/slow/Fox.glb`.
 */
export function assetRequests(page: Page): string[] {
  const requested: string[] = [];
  page.on('request', (request) => {
    const name = assetName(new URL(request.url()).pathname);
    if (name !== undefined) requested.push(name);
  });
  return requested;
}

export interface ElementPage {
  readonly page: Page;
  /** The page's console errors and uncaught exceptions, in order. */
  readonly consoleErrors: string[];
  /** The page's console warnings, in order. */
  readonly warnings: string[];
  /** The paths under `/assets/` the page asked for (assetRequests). */
  readonly requested: string[];
}

/**
 * A new page (session.newPage) showing test/browser/pages/NAME, with the element defined and
 * the page's helpers loaded (`timeout`: see openTestPage).
 *
 * A test that serves files of its own (serveFiles) does so once the page is open: a page with
 * a Playwright route sends every request through Node with its HTTP cache off, the ~290 modules
 * the page loads first included (~1–1.5 CPU-s more of a page start's ~5).
 */
export async function openElementPage(session: BrowserSession, name = 'element-basic.html', options: { timeout?: number } = {}): Promise<ElementPage> {
  const { page, consoleErrors } = await session.newPage();
  const warnings: string[] = [];
  page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
  const requested = assetRequests(page);
  await openTestPage(page, session.baseUrl, name, options.timeout);
  return { page, consoleErrors, warnings, requested };
}

/**
 * Serves bytes the test made to the page under `/PREFIX/NAME`: `file(NAME)` gives the body
 * and content type, or undefined for a 404.
 */
export async function serveFiles(page: Page, prefix: string, file: (name: string) => { body: Uint8Array; type: string } | undefined): Promise<void> {
  await page.route(`**/${prefix}/**`, async (route: Route) => {
    const name = decodeURIComponent(new URL(route.request().url()).pathname.replace(new RegExp(`^/${prefix}/`), ''));
    const found = file(name);
    if (!found) await route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
    else await route.fulfill({ status: 200, headers: { 'content-type': found.type }, body: Buffer.from(found.body) });
  });
}

/**
 * How often to retry an `expect.poll` whose every try is a capture(): capture() draws the frame
 * again and reads it back, so at vitest's default (a try every 50 ms) the tries would draw more
 * than the page does, on the CPU rasteriser that the change being waited for also needs.
 */
export const CAPTURE_POLL_MS = 500;

export interface Rgba8Image {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export function decodeBase64Image(base64: string): Rgba8Image {
  const decoded = decodeImageBytes(new Uint8Array(Buffer.from(base64, 'base64')));
  return { width: decoded.width, height: decoded.height, data: new Uint8Array(decoded.data) };
}

export function rawRgba(width: number, height: number, base64: string): Rgba8Image {
  return { width, height, data: new Uint8Array(Buffer.from(base64, 'base64')) };
}

/** Fraction of pixels that differ from the top-left pixel (the background) by more than `tolerance` in any channel. */
export function foregroundFraction(image: Rgba8Image, tolerance = 8): number {
  const d = image.data;
  let count = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - d[0]) > tolerance || Math.abs(d[i + 1] - d[1]) > tolerance
      || Math.abs(d[i + 2] - d[2]) > tolerance || Math.abs(d[i + 3] - d[3]) > tolerance) count++;
  }
  return count / (d.length / 4);
}

/** Fraction of pixels whose largest channel difference exceeds `tolerance`. */
export function changedFraction(a: Rgba8Image, b: Rgba8Image, tolerance = 8): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`size ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let count = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    for (let c = 0; c < 4; c++) {
      if (Math.abs(a.data[i + c] - b.data[i + c]) > tolerance) {
        count++;
        break;
      }
    }
  }
  return count / (a.data.length / 4);
}

/** Largest per-channel difference. */
export function maxDifference(a: Rgba8Image, b: Rgba8Image): number {
  let max = 0;
  for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i] - b.data[i]));
  return max;
}

interface AxNode {
  nodeId: string;
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  properties?: { name: string; value: { value: unknown } }[];
  childIds?: string[];
}

/**
 * What Chromium's accessibility tree (CDP Accessibility domain, enabled on `cdp`) holds for
 * the page, as a screen reader gets it: the names of its images, and the text and `live`
 * setting of its role="status" regions, in document order.
 */
export async function readAccessibility(cdp: CDPSession): Promise<{ images: string[]; status: string[]; live: unknown[] }> {
  const { nodes } = await cdp.send('Accessibility.getFullAXTree') as unknown as { nodes: AxNode[] };
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const text = (node: AxNode): string => (node.role?.value === 'StaticText' ? node.name?.value ?? '' : (node.childIds ?? []).map((id) => text(byId.get(id)!)).join(''));
  const shown = nodes.filter((n) => !n.ignored);
  const statuses = shown.filter((n) => n.role?.value === 'status');
  return {
    images: shown.filter((n) => n.role?.value === 'image').map((n) => n.name?.value ?? ''),
    status: statuses.map(text),
    live: statuses.map((n) => n.properties?.find((p) => p.name === 'live')?.value.value),
  };
}
