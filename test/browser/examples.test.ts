/**
 * The example pages (examples/*.html) in Chromium with WebGPU on SwiftShader: every page
 * draws (pixels other than the background colour in its canvas) with no console error, the index
 * lists every example, and no link on the examples or the demo page is dead (each resolves to
 * a file of the dev server, which answers a 404 for any other path: vite.config.ts `appType`);
 * their "Documentation" links open the rendered documentation the dev server serves at /api/.
 *
 * One page visits every example in turn, at a small size (480×420): what costs here is SwiftShader
 * drawing, not the number of pages. The crowd example draws 10,000 characters by default; the
 * test asks it for four (`?count=`, CROWD_COUNT), which is the same code path. Each canvas as last seen is
 * in test-artifacts/examples/.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { ARTIFACTS_DIR, decodeImageBytes } from '../support/png.ts';
import { BUILT_PAGES_PATH, testPageUrl } from '../support/built-pages.ts';
import { SITE_DOCS_DIR } from '../../vite.config.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES_DIR = join(ROOT, 'examples');

/** Every example page but the index, by file name. */
const EXAMPLES = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.html') && f !== 'index.html').sort();

/**
 * The crowd example's size here. Each character costs SwiftShader its vertices in the shadow and
 * main passes: at 16 the page drew a frame every 0.5–1.5 s and took 16–20 s of CPU to show the
 * crowd (its compute pipelines' compiles, ~4 s, waited behind those frames); a 2×2 grid takes the
 * same path (GPU poses, culling, one indirect draw per primitive) and the same checks.
 */
const CROWD_COUNT = 4;

/** The query each example is opened with: small where the default is heavy for a software rasteriser. */
const QUERY: Record<string, string> = { 'crowd.html': `?count=${CROWD_COUNT}` };

/** The share of a canvas that must differ from its background: a character framed in it covers several times more. */
const MIN_COVERAGE = 0.01;

/** The pixels at a screenshot's edges, left out: a canvas at a fractional position has a row or column of the page there. */
const EDGE = 2;

/** The smallest canvas height the test accepts: a layout that squeezes the canvas is a broken page. */
const MIN_CANVAS_HEIGHT = 120;

/**
 * The share of an RGBA8 image's pixels, edges left out, that differ by more than 24 in R+G+B
 * from its background: its most frequent colour (a model or a crowd covers less than half).
 */
function drawnFraction(image: { width: number; height: number; data: Uint8Array | Uint8ClampedArray }): number {
  const { width, height, data } = image;
  const counts = new Map<number, number>();
  for (let y = EDGE; y < height - EDGE; y++) {
    for (let x = EDGE; x < width - EDGE; x++) {
      const i = (y * width + x) * 4, rgb = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
    }
  }
  let background = 0, most = 0;
  for (const [rgb, n] of counts) if (n > most) { background = rgb; most = n; }
  const r = background >> 16, g = (background >> 8) & 255, b = background & 255;
  let drawn = 0, all = 0;
  for (let y = EDGE; y < height - EDGE; y++) {
    for (let x = EDGE; x < width - EDGE; x++) {
      const i = (y * width + x) * 4;
      all++;
      if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) > 24) drawn++;
    }
  }
  return all > 0 ? drawn / all : 0;
}

/** How long an example may take to draw; the first waits for Vite to transform the library. */
const DRAW_TIMEOUT_MS = 90_000;

/** A PNG of the page's first canvas (the element's is in its shadow root, which the locator pierces). */
const canvasShot = (page: Page) => page.locator('canvas').first().screenshot({ timeout: 5_000 });

/**
 * The canvas's coverage once it exceeds MIN_COVERAGE, or its last one when a console error
 * came first (no need to wait further) or the time ran out; the last screenshot goes to
 * test-artifacts/examples/NAME.png.
 */
async function coverageWhenDrawn(page: Page, consoleErrors: readonly string[], name: string): Promise<number> {
  const deadline = Date.now() + DRAW_TIMEOUT_MS;
  let covered = 0;
  let shot: Uint8Array | undefined;
  while (consoleErrors.length === 0 && covered <= MIN_COVERAGE && Date.now() < deadline) {
    shot = await canvasShot(page).then((bytes) => new Uint8Array(bytes), () => undefined);
    covered = shot ? drawnFraction(decodeImageBytes(shot)) : 0;
    if (covered <= MIN_COVERAGE) await page.waitForTimeout(300);
  }
  if (shot) writeFileSync(join(ARTIFACTS_DIR, 'examples', name.replace(/\.html$/, '.png')), shot);
  return covered;
}

/** A URL's path on the site: the built pages' (test/support/built-pages.ts) under BUILT_PAGES_PATH, as from the dev server. */
const sitePath = (href: string) => new URL(href).pathname.replace(BUILT_PAGES_PATH, '/');

/** Every href of the page's links and style sheets, absolute. */
const hrefsOf = (page: Page) => page.$$eval('a[href], link[href]', (els) => els.map((e) => (e as HTMLAnchorElement).href));

/** The hrefs among `urls` that do not resolve: other sites (unreachable offline, so not allowed) or not a 200 from the dev server. */
async function deadLinks(urls: string[], baseUrl: string): Promise<string[]> {
  const dead: string[] = [];
  for (const url of new Set(urls)) {
    if (url.startsWith('data:')) continue;
    if (!url.startsWith(`${baseUrl}/`)) {
      dead.push(`${url} (another site)`);
      continue;
    }
    const response = await fetch(url, { headers: { accept: 'text/html,*/*' } });
    await response.arrayBuffer();
    if (response.status !== 200) dead.push(`${url} (${response.status})`);
  }
  return dead;
}

describe('what counts as drawn', () => {
  const image = (width: number, height: number, paint: (x: number, y: number) => number[]) => {
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([...paint(x, y), 255], (y * width + x) * 4);
    return { width, height, data };
  };
  const stage = [223, 227, 234], page = [244, 245, 247], model = [60, 120, 200];
  it('an empty canvas with a row of the page at its edge is not drawn; a model on it is', () => {
    expect(drawnFraction(image(100, 80, (_, y) => (y === 0 ? page : stage)))).toBe(0);
    expect(drawnFraction(image(100, 80, (x, y) => (y === 0 ? page : x >= 40 && x < 60 && y >= 20 && y < 60 ? model : stage)))).toBeCloseTo(800 / (96 * 76), 6);
  });
});

describe.skipIf(!!unavailable)('the examples', () => {
  let session: BrowserSession;
  let page: Page;
  let consoleErrors: string[];
  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page, consoleErrors } = await session.newPage());
    await page.setViewportSize({ width: 480, height: 420 });
    mkdirSync(join(ARTIFACTS_DIR, 'examples'), { recursive: true });
  }, 90_000);
  afterAll(async () => { await session?.close(); });
  afterEach(async () => { await session?.checkWebGpuErrors(); });

  it('the index lists every example, and each example links back to it', async () => {
    expect(EXAMPLES.length).toBeGreaterThan(0);
    await page.goto(testPageUrl(session.baseUrl, 'examples/index.html').replace(/index\.html$/, ''));
    const listed = (await hrefsOf(page)).map(sitePath);
    for (const file of EXAMPLES) expect(listed, `the index links ${file}`).toContain(`/examples/${file}`);
    expect(consoleErrors.splice(0)).toEqual([]);
  });

  it.each(EXAMPLES)('%s draws with no console error and no dead link', async (file) => {
    await page.goto(`${testPageUrl(session.baseUrl, `examples/${file}`)}${QUERY[file] ?? ''}`);
    const covered = await coverageWhenDrawn(page, consoleErrors, file);
    if (file === 'crowd.html') {
      // The page reports what the renderer did, not what it was asked: every one drawn (the grid is framed whole).
      const report = new RegExp(`^${CROWD_COUNT} in the crowd: ${CROWD_COUNT} drawn, 0 culled · [\\d.]+ ms a frame`);
      await expect.poll(() => page.locator('#count').textContent(), { timeout: 30_000 }).toMatch(report);
    }
    const box = await page.locator('canvas').first().boundingBox();
    expect(box?.height, 'the canvas height in CSS pixels').toBeGreaterThanOrEqual(MIN_CANVAS_HEIGHT);
    expect(consoleErrors.splice(0)).toEqual([]);
    expect(covered, 'the share of the canvas drawn').toBeGreaterThan(MIN_COVERAGE);
    const hrefs = await hrefsOf(page);
    expect(hrefs.map(sitePath), 'links back to the index').toContain('/examples/');
    expect(await deadLinks(hrefs, session.baseUrl)).toEqual([]);
    expect(consoleErrors.splice(0)).toEqual([]);
  }, DRAW_TIMEOUT_MS + 30_000);

  it('no link of the examples index or the demo page is dead', async () => {
    await page.goto(testPageUrl(session.baseUrl, 'examples/index.html').replace(/index\.html$/, ''));
    const fromIndex = await hrefsOf(page);
    // The demo's links are in its HTML; reading them there spares opening the demo (five viewers).
    const demoHtml = readFileSync(join(ROOT, 'index.html'), 'utf8');
    const fromDemo = [...demoHtml.matchAll(/\shref="([^"]*)"/g)].map((m) => new URL(m[1], `${session.baseUrl}/`).href);
    expect(fromDemo.map((href) => new URL(href).pathname), 'the demo links the examples').toContain('/examples/');
    expect(await deadLinks([...fromIndex, ...fromDemo], session.baseUrl)).toEqual([]);
    // The "Documentation" links open the rendered documentation at /api/, as in the built site
    // (scripts/api-reference-server.mjs makes it on the first request: one TypeDoc run, or none
    // when node_modules/.cache/api-reference has today's), not README.md's Markdown.
    const documentation = [...fromIndex, ...fromDemo].filter((href) => new URL(href).pathname === `/${SITE_DOCS_DIR}/`);
    expect(documentation, 'the demo and the index link the documentation').toHaveLength(2);
    const index = await fetch(documentation[0]);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await index.text()).toMatch(/<title>skinned-mesh-webgpu<\/title>[^]*<a href="modules\.html"/);
    // The check fails where it should: a missing page, and another site.
    expect(await deadLinks([`${session.baseUrl}/examples/no-such-example.html`, 'https://example.com/'], session.baseUrl)).toEqual([
      `${session.baseUrl}/examples/no-such-example.html (404)`, 'https://example.com/ (another site)',
    ]);
    expect(consoleErrors.splice(0)).toEqual([]);
  });
});
