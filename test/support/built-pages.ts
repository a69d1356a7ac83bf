/**
 * The browser tests' own pages (test/browser/pages/*.html, test/gpu/browser/*.html) built once
 * with Vite and served as static files by the test dev server, under BUILT_PAGES_PATH.
 *
 * From the dev server a page loads the library as ~290 modules, one request each: ~3 of a page
 * start's ~5 CPU-s, ~2 of that the browser's request handling rather than compiling (notes of
 * issue 22, session 8). Built, the same modules arrive in a few files.
 *
 * The build is kept in node_modules/.cache/test-pages/KEY (KEY: a hash of the build's config and
 * of the tree the build reads) and made again whenever any file it read has changed, so a page is
 * never older than the code the test means to test. The lanes of `npm test` each start a dev
 * server: the first builds under a lock, the other waits for it and reuses the build.
 *
 * Pages that take a module from the dev server at run time stay there: a module imported by URL
 * into a built page would be a second instance of the library's, not the one the page runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';
import type { Plugin } from 'vite';
import { filesUnder, removeOldBuilds } from '../../scripts/keyed-builds.mjs';
import { SITE_DOCS_DIR } from '../../vite.config.ts';
import { lockAbandoned, tryLock } from './fixture-cache.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Where the test server serves the built pages: a page's path in the checkout follows it. */
export const BUILT_PAGES_PATH = '/built-pages/';

/** The tests' own pages, built together: their scripts under `assets/`. */
const TEST_PAGES: readonly string[] = [
  'test/browser/pages/element-basic.html',
  'test/browser/pages/element-three.html',
  'test/browser/pages/element-model-viewer-markup.html',
  'test/browser/pages/element-nogpu.html',
  'test/browser/pages/mtoon.html',
  'test/browser/pages/pbr-three.html',
  'test/browser/pages/texture-upload.html',
  'test/gpu/browser/renderer.html',
  'test/gpu/browser/compressed.html',
];

/**
 * The site's pages (vite.config.ts sitePages): the demo and the examples, built apart from the
 * tests' pages (their scripts under `site-assets/`), so that neither splits the other's chunks
 * (built together, a test page loaded 78 scripts instead of ~30).
 */
const SITE_PAGES: readonly string[] = [
  'index.html',
  ...readdirSync(join(ROOT, 'examples')).filter((file) => file.endsWith('.html')).sort().map((file) => `examples/${file}`),
];

/** The pages built, by their path in the checkout. */
export const BUILT_PAGES: readonly string[] = [...TEST_PAGES, ...SITE_PAGES];

/**
 * The folders whose every file goes into the build's key, read whole each time (a file added
 * there changes the key even before anything imports it): the library, its shaders and the pages.
 * Files the build reads elsewhere (node_modules, test/support) are checked one by one (the manifest).
 */
const KEYED_FOLDERS = ['src', 'shaders', 'test/browser/pages', 'test/gpu/browser', 'examples'];
/** Files that decide how the build reads the tree. */
const KEYED_FILES = ['vite.config.ts', 'package-lock.json', 'tsconfig.json', 'test/support/built-pages.ts', 'index.html'];

/** The URL of `path` (from the checkout's root) on the test server `baseUrl`: built when it is one of BUILT_PAGES. */
export function testPageUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${BUILT_PAGES.includes(path) ? BUILT_PAGES_PATH : '/'}${path}`;
}

function fileHash(root: string, path: string): string {
  return createHash('sha256').update(readFileSync(join(root, path))).digest('hex');
}

/** The key of a build of the tree at `root`: the config, the pages built and every file of KEYED_FOLDERS. */
function buildKey(root: string): string {
  const hash = createHash('sha256');
  for (const page of BUILT_PAGES) hash.update(page).update('\0');
  const files = [...KEYED_FILES, ...KEYED_FOLDERS.flatMap((folder) => filesUnder(root, folder))];
  for (const file of files) hash.update(file).update('\0').update(fileHash(root, file)).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** What a finished build wrote beside its pages: the files outside KEYED_FOLDERS that it read, with their hashes. */
const MANIFEST = 'read-files.json';

function manifestHolds(root: string, dir: string): boolean {
  const manifest = join(dir, MANIFEST);
  if (!existsSync(manifest)) return false;
  const read = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, string>;
  return Object.entries(read).every(([file, hash]) => existsSync(join(root, file)) && fileHash(root, file) === hash);
}

/** How often a process waiting on another's build looks again. */
const WAIT_POLL_MS = 200;

/** Where buildTestPages builds, and how (for its own test: a stand-in build in a scratch tree). */
export interface TestPagesBuild {
  /** The checkout: its node_modules/.cache holds the builds. */
  readonly root: string;
  /** Builds the pages into a folder; resolves with the files outside KEYED_FOLDERS that it read. */
  build(outDir: string): Promise<string[]>;
}

/**
 * The folder holding today's build of BUILT_PAGES (its files under their checkout paths, its
 * scripts under `assets/` and `site-assets/`): the cached one when every file it read is unchanged, else built now.
 */
export async function buildTestPages({ root, build }: TestPagesBuild = { root: ROOT, build: buildInto }): Promise<string> {
  const cache = join(root, 'node_modules/.cache/test-pages');
  const dir = join(cache, buildKey(root));
  if (manifestHolds(root, dir)) return dir;
  mkdirSync(cache, { recursive: true });
  const lock = `${dir}.lock`;
  while (!tryLock(lock)) {
    if (manifestHolds(root, dir)) return dir;
    if (lockAbandoned(lock)) rmSync(lock, { force: true });
    else await new Promise((done) => setTimeout(done, WAIT_POLL_MS));
  }
  try {
    if (manifestHolds(root, dir)) return dir;
    const partial = `${dir}.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    const read = await build(partial);
    writeFileSync(join(partial, MANIFEST), JSON.stringify(Object.fromEntries(read.map((file) => [file, fileHash(root, file)]))));
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    removeOldBuilds(cache, dir);
    return dir;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** `ASSETS/PATH-HASH.js` for a chunk that a module of the checkout starts (PATH: that module's, without its extension). */
const chunkFileName = (assetsDir: string) => (chunk: { facadeModuleId: string | null }): string => {
  const facade = chunk.facadeModuleId?.split('?')[0];
  if (!facade?.startsWith(ROOT + sep)) return `${assetsDir}/[name]-[hash].js`;
  return `${assetsDir}/${relative(ROOT, facade).split(sep).join('/').replace(/\.[^./]+$/, '')}-[hash].js`;
};

/** Builds the pages into `outDir`; resolves with the checkout files outside KEYED_FOLDERS that the build read. */
async function buildInto(outDir: string): Promise<string[]> {
  const { build } = await import('vite');
  const read = new Set<string>();
  const recordRead: Plugin = {
    name: 'test-pages-read-files',
    buildEnd() {
      for (const id of this.getModuleIds()) {
        const file = id.split('?')[0];
        if (file.startsWith('\0') || !file.startsWith(ROOT + sep) || !existsSync(file)) continue;
        const path = relative(ROOT, file).split(sep).join('/');
        if (!KEYED_FOLDERS.some((folder) => path.startsWith(`${folder}/`))) read.add(path);
      }
    },
  };
  // Set after the config is merged: the config's own pages (the site's) give way to `pages`.
  const pagesOnly = (pages: readonly string[], assetsDir: string): Plugin => ({
    name: 'test-pages-input',
    config(config) {
      config.build!.assetsDir = assetsDir;
      const options = config.build!.rolldownOptions!;
      options.input = Object.fromEntries(pages.map((page) => [page.replace(/\.html$/, ''), join(ROOT, page)]));
      // Modules run in the order the page's scripts and imports give, as they do from the dev
      // server: the instrument and the helpers before the library defines the element.
      // A chunk a module starts (a lazily imported one) is named by that module's path, as the dev
      // server's URL of it is: tests tell a lazy chunk's fetch by it (`hotspots/hotspot-code`).
      options.output = { ...options.output, strictExecutionOrder: true, chunkFileNames: chunkFileName(assetsDir) };
    },
    // Every module keeps its side effects, as from the dev server: package.json's `sideEffects`
    // names only dist/lib, so the sources' would be dropped (src/index.ts defining the element).
    // Said per module: what resolving reads from package.json overrides any default.
    transform: (code) => ({ code, moduleSideEffects: true }),
  });
  // The pages' documentation links (`api/`, `../api/`) go where they go from the dev server (its
  // /api/: scripts/api-reference-server.mjs), not under BUILT_PAGES_PATH, where the test server has
  // no documentation (examples.test.ts follows every link).
  const documentationLinksAsServed: Plugin = {
    name: 'test-pages-documentation-links',
    transformIndexHtml: { order: 'pre', handler: (html) => html.replace(new RegExp(`href="(?:\\.\\./)*${SITE_DOCS_DIR}/"`, 'g'), `href="/${SITE_DOCS_DIR}/"`) },
  };
  for (const [pages, assetsDir] of [[TEST_PAGES, 'assets'], [SITE_PAGES, 'site-assets']] as const) {
    await build({
      root: ROOT,
      configFile: join(ROOT, 'vite.config.ts'),
      base: BUILT_PAGES_PATH,
      logLevel: 'error',
      plugins: [pagesOnly(pages, assetsDir), documentationLinksAsServed, recordRead],
      // Readable, as from the dev server: names in stacks and messages stay the sources'.
      // The second build beside the first (emptyOutDir only for the first).
      build: {
        outDir, emptyOutDir: assetsDir === 'assets', minify: false, sourcemap: false, reportCompressedSize: false, copyPublicDir: false,
        modulePreload: { polyfill: false },
      },
    });
  }
  return [...read].sort();
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json',
};

/** Serves the build in `dir` under BUILT_PAGES_PATH from the test dev server. */
export function builtTestPages(dir: string): Plugin {
  return {
    name: 'test-built-pages',
    configureServer(server) {
      server.middlewares.use(BUILT_PAGES_PATH, (request, response, next) => {
        // connect strips the mount path: request.url is `/PATH?query`.
        const path = decodeURIComponent(new URL(request.url ?? '/', 'http://test').pathname);
        // A folder's page is its index.html, as from the dev server (`examples/`).
        const file = resolve(dir, `.${path}${path.endsWith('/') ? 'index.html' : ''}`);
        if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
          next();
          return;
        }
        const body = readFileSync(file);
        response.statusCode = 200;
        response.setHeader('content-type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
        response.setHeader('content-length', String(body.byteLength));
        response.end(body);
      });
    },
  };
}
