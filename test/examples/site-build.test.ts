/**
 * The demo site's build (what `npm run build` writes to dist/site) carries the examples: every
 * page of examples/ is built beside the demo, each of its scripts and style sheets is a file of
 * the build (the package's name resolved into bundled code, no bare import left), and the demo's
 * link to the examples reaches the built index. The documentation is rendered into the site as
 * `npm run build` does it (scripts/api-reference.mjs at SITE_DOCS_DIR): the front page, a page per
 * guide (docs/*.md) with its pictures, bench/README.md as a page (not a raw copy), the API
 * reference, and the "Documentation" links reach it.
 *
 * The built site is then opened in Chromium as a reader would serve it (`vite preview`, README.md):
 * the demo, an element example and the API reference's index, each with no console error, the
 * element defined and a model loaded. The test pages' build (test/support/built-pages.ts) keeps
 * every module's side effects, so only this build shows whether the site's own settings keep
 * `import 'skinned-mesh-webgpu'` (which registers the element).
 *
 * That TypeDoc run is also test/scripts/api-reference.test.ts's check of the check (one run, not
 * two: each converts the whole API, ~10 CPU-s): the script is run as a command with the fixture
 * entry that breaks each rule once, and must report exactly the fixture's three problems (so the
 * real API is clean and the check is not blind), exit 1, and write the reference without the
 * fixture's pages.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preview, type PreviewServer } from 'vite';
import { SITE_DOCS_DIR } from '../../vite.config.ts';
import { browserUnavailable, CHROMIUM, chromiumArgs } from '../support/browser.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.html'));
const GUIDES = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

/** The relative links and pictures of a page (not #anchors, not other sites). */
const relativeTargets = (html: string) => [...html.matchAll(/\s(?:href|src)="([^"#:]+)(?:#[^"]*)?"/g)].map((m) => m[1]).filter((t) => t !== '');

/** The file a relative link from `page` (a file under `out`) opens: a folder opens its index.html. */
const targetFile = (out: string, page: string, target: string) => {
  const file = resolve(join(out, page, '..'), decodeURIComponent(target));
  return target.endsWith('/') ? join(file, 'index.html') : file;
};

/** The files a built page loads: its module scripts and style sheets (site-absolute paths). */
const loadedFiles = (html: string) => [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="(\/[^"]+)"/g)].map((m) => m[1]);

/** An entry point that breaks each rule of the API reference once (never part of the package). */
const FIXTURE = 'test/support/api-reference-fixture.ts';

/** How long a page of the built site may take to load its model (SwiftShader draws; the first page compiles the pipelines). */
const LOAD_TIMEOUT_MS = 60_000;

/** The element's tag, as a page that installed the package writes it. */
const TAG = 'skinned-mesh-viewer';

/**
 * Runs in every page before its scripts: counts the `load` events of the page's viewers (a
 * capturing listener on the document sees them although they do not bubble), from the start,
 * so that one fired before the test asks is not missed.
 */
function countViewerLoads(tag: string): void {
  const loads = { count: 0 };
  (globalThis as unknown as { viewerLoads: typeof loads }).viewerLoads = loads;
  document.addEventListener('load', (event) => { if ((event.target as Element).localName === tag) loads.count++; }, true);
}

/** The `load` events of the page's viewers so far (countViewerLoads). */
const viewerLoads = (page: Page) => page.evaluate(() => (globalThis as unknown as { viewerLoads: { count: number } }).viewerLoads.count);

/** Whether the page has <skinned-mesh-viewer> defined. */
const elementDefined = (page: Page) => page.evaluate((tag) => customElements.get(tag) !== undefined, TAG);

describe('the site build', () => {
  let out: string;
  let reference: SpawnSyncReturns<string>;
  /** What the build printed at `npm run build`'s log level (warnings and errors only). */
  let printed: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'site-build-'));
    // As scripts/build.mjs builds the site, in a process of its own without vitest's NODE_ENV=test
    // (under which Vite leaves out some warnings a user sees).
    const { NODE_ENV: _, ...env } = process.env;
    const site = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', out], { cwd: ROOT, encoding: 'utf8', env, timeout: 150_000 });
    if (site.status !== 0) throw new Error(`vite build exited ${site.status}:\n${site.stdout}${site.stderr}`);
    printed = `${site.stdout}${site.stderr}`;
    // As `npm run build` writes it (scripts/api-reference.mjs at SITE_DOCS_DIR), checked with the fixture too.
    reference = spawnSync(process.execPath, ['scripts/api-reference.mjs', '--out', join(out, SITE_DOCS_DIR), '--entry', FIXTURE], { cwd: ROOT, encoding: 'utf8', timeout: 150_000 });
  }, 240_000);
  afterAll(() => { if (out) rmSync(out, { recursive: true, force: true }); });

  it('checks the API reference: every public export documented and every link resolved; the fixture\'s three faults reported, exit 1', () => {
    const problems = reference.stdout.split('\n').filter(Boolean);
    expect(problems.filter((p) => !p.includes('fixture') && !p.includes('Fixture')), reference.stderr).toEqual([]);
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/resolve link to "NoSuchDeclaration".*fixtureBrokenLink/),
      expect.stringMatching(/FixtureHiddenType.*referenced by .*fixtureLeaksHiddenType.*not included/),
      expect.stringMatching(/fixtureUndocumented .*does not have any documentation/),
    ]));
    expect(reference.status).toBe(1);
    // Written all the same, without the fixture's pages: what the build publishes.
    const docs = join(out, SITE_DOCS_DIR);
    const written = readdirSync(docs, { recursive: true, encoding: 'utf8' });
    expect(written.filter((f) => /fixture/i.test(f))).toEqual([]);
    expect(readFileSync(join(docs, 'modules.html'), 'utf8')).not.toMatch(/fixture/i);
  });

  it('prints no warning', () => {
    // Once there were draco's "Module fs/path has been externalized" (vite.config.ts dracoNodeBranchUnused)
    // and "Some chunks are larger than 500 kB" for the Basis transcoder's files (BASIS_TRANSCODER_FILES_MAX_KB).
    expect(printed).toBe('');
  });

  it('has every example page, each loading only files of the build', () => {
    expect(PAGES).toContain('index.html');
    for (const page of PAGES) {
      const built = join(out, 'examples', page);
      expect(existsSync(built), `dist/site/examples/${page}`).toBe(true);
      const html = readFileSync(built, 'utf8');
      expect(html, page).not.toContain('skinned-mesh-webgpu/');
      for (const file of loadedFiles(html)) expect(existsSync(join(out, file)), `${page} loads ${file}`).toBe(true);
      if (page !== 'index.html') expect(loadedFiles(html).some((f) => f.endsWith('.js')), `${page} has its script`).toBe(true);
    }
  });

  it('keeps the demo link to the examples', () => {
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('href="examples/"');
    expect(existsSync(join(out, 'examples', 'index.html'))).toBe(true);
  });

  it('has the documentation: the front page, every guide with its pictures and links, the API reference', () => {
    // bench/README.md, which the guides link for the benchmarks' history, is a page too (scripts/api-reference.mjs names it).
    const pages = ['index.html', 'modules.html', 'documents/benchmarks.html', ...GUIDES.map((g) => `documents/${g.replace(/\.md$/, '.html')}`)];
    for (const page of pages) {
      const file = join(out, SITE_DOCS_DIR, page);
      expect(existsSync(file), `${SITE_DOCS_DIR}/${page}`).toBe(true);
      for (const target of relativeTargets(readFileSync(file, 'utf8'))) {
        expect(existsSync(targetFile(out, join(SITE_DOCS_DIR, page), target)), `${page} links ${target}`).toBe(true);
        // Not TypeDoc's copy of a page's source: the built page (examples/), the rendered Markdown (documents/).
        expect(target, page).not.toMatch(/media\/[^/]*\.(html|md)$/);
      }
    }
    expect(readFileSync(join(out, SITE_DOCS_DIR, 'documents', 'how-it-works.html'), 'utf8')).toMatch(/<img [^>]*src="[^"]*skinning-methods\.png"/);
    expect(readFileSync(join(out, SITE_DOCS_DIR, 'documents', 'examples.html'), 'utf8')).toContain('href="../../examples/embed.html"');
    expect(readFileSync(join(out, SITE_DOCS_DIR, 'documents', 'performance.html'), 'utf8')).toContain('href="benchmarks.html"');
  });

  it('points the demo\'s and the examples\' "Documentation" links at the documentation', () => {
    for (const page of ['index.html', 'examples/index.html']) {
      const link = readFileSync(join(out, page), 'utf8').match(/<a href="([^"]*)">Documentation<\/a>/);
      expect(link, page).not.toBeNull();
      expect(targetFile(out, page, link![1]), `${page}: ${link![1]}`).toBe(join(out, SITE_DOCS_DIR, 'index.html'));
      expect(existsSync(targetFile(out, page, link![1])), `${page}: ${link![1]}`).toBe(true);
    }
  });

  describe.skipIf(!!unavailable)('served as README.md says (vite preview) and opened in Chromium', () => {
    let server: PreviewServer;
    let browser: Browser;
    let page: Page;
    const consoleErrors: string[] = [];
    let baseUrl: string;
    beforeAll(async () => {
      server = await preview({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'silent', preview: { host: '127.0.0.1', port: 0, strictPort: false }, build: { outDir: out } });
      baseUrl = server.resolvedUrls!.local[0];
      browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs() });
      // Small: the page's model loading is what is checked here, not how it looks.
      page = await browser.newPage({ viewport: { width: 480, height: 360 } });
      page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      await page.addInitScript(countViewerLoads, TAG);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    /**
     * Opens `path` of the site, where the element is defined once the page has loaded (its module
     * scripts run before the page's `load`), and waits for a viewer's `load` event (or a console
     * error, which fails sooner).
     */
    async function openAndLoad(path: string): Promise<void> {
      // What an earlier page logged is that test's (it failed there).
      consoleErrors.length = 0;
      await page.goto(new URL(path, baseUrl).href);
      expect(await elementDefined(page), `${path}: <${TAG}> defined (console: ${consoleErrors.join('; ')})`).toBe(true);
      await expect.poll(async () => consoleErrors.length > 0 || (await viewerLoads(page)) > 0, { timeout: LOAD_TIMEOUT_MS }).toBe(true);
      expect(consoleErrors.splice(0), path).toEqual([]);
      expect(await viewerLoads(page), `${path}: a viewer loaded`).toBeGreaterThan(0);
    }

    it('the demo defines the element and loads its model; its "Documentation" link opens the API reference\'s index', async () => {
      await openAndLoad('./');
      await page.click('a:text-is("Documentation")');
      await page.waitForLoadState('load');
      expect(new URL(page.url()).pathname).toBe(`/${SITE_DOCS_DIR}/`);
      expect(await page.title()).toBe('skinned-mesh-webgpu');
      // TypeDoc's scripts (search, navigation) have run: they fill the page's navigation.
      await expect.poll(() => page.locator('.site-menu a').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(consoleErrors.splice(0)).toEqual([]);
    }, LOAD_TIMEOUT_MS + 30_000);

    // One example: the others import the element by the same subpath (each page costs ~1–1.5 CPU-s
    // here); the demo imports the package's main entry.
    it('an example (embed.html: the element\'s subpath alone) defines the element and loads its model', async () => {
      await openAndLoad('examples/embed.html');
    }, LOAD_TIMEOUT_MS + 30_000);
  });
});
