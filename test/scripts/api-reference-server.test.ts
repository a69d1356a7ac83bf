/**
 * scripts/api-reference-server.mjs: the dev server's documentation at /api/, made on the first
 * request into a cache keyed by what it is made from, and made again only when that changes. Here
 * with a stand-in for the TypeDoc run (each real one is ~7 CPU-s) in a scratch tree; the real
 * one, through vite.config.ts, is what test/browser/examples.test.ts fetches when it follows the
 * demo's "Documentation" link.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createServer, type ViteDevServer } from 'vite';
import { REFERENCE_SOURCES, referenceKey, servedApiReference } from '../../scripts/api-reference-server.mjs';

const PATH = '/api/';

describe('the documentation on the dev server (scripts/api-reference-server.mjs)', () => {
  let tree: string;
  let cacheDir: string;
  /** The stand-in's runs: each writes its number into the index, so a page tells which run made it. */
  let runs = 0;
  /** What the next run reports as problems, or, when an Error, how it fails. */
  let nextOutcome: string[] | Error = [];
  const warnings: string[] = [];
  const servers: ViteDevServer[] = [];

  const make = async (root: string, out: string): Promise<string[]> => {
    expect(root).toBe(tree);
    const outcome = nextOutcome;
    nextOutcome = [];
    if (outcome instanceof Error) throw outcome;
    runs++;
    mkdirSync(join(out, 'assets'), { recursive: true });
    mkdirSync(join(out, 'documents'), { recursive: true });
    writeFileSync(join(out, 'index.html'), `<title>run ${runs}</title>`);
    writeFileSync(join(out, 'documents', 'guide.html'), `guide of run ${runs}`);
    writeFileSync(join(out, 'assets', 'main.js'), `// run ${runs}`);
    return outcome;
  };

  /** A dev server of the scratch tree with the plugin, as vite.config.ts has it; its base URL. */
  async function start(): Promise<string> {
    const logger = createLogger('silent');
    logger.warn = (message) => { warnings.push(message); };
    const server = await createServer({
      root: tree, configFile: false, customLogger: logger, appType: 'mpa', optimizeDeps: { noDiscovery: true },
      server: { host: '127.0.0.1', port: 0, hmr: false, watch: null },
      plugins: [servedApiReference({ path: PATH, root: tree, cacheDir, make })],
    });
    await server.listen();
    servers.push(server);
    const address = server.httpServer!.address();
    if (!address || typeof address === 'string') throw new Error('vite did not report a port');
    return `http://127.0.0.1:${address.port}`;
  }

  const text = async (url: string) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
  };

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'api-reference-server-'));
    cacheDir = join(tree, 'cache');
    mkdirSync(join(tree, 'src'));
    mkdirSync(join(tree, 'docs'));
    writeFileSync(join(tree, 'src', 'index.ts'), 'export const a = 1;\n');
    writeFileSync(join(tree, 'docs', 'guide.md'), '# A guide\n');
    writeFileSync(join(tree, 'README.md'), '# The front page\n');
  });
  afterEach(() => { nextOutcome = []; });
  afterAll(async () => {
    for (const server of servers) await server.close();
    rmSync(tree, { recursive: true, force: true });
  });

  it('keys a build by the sources\' names and bytes', () => {
    expect(REFERENCE_SOURCES.folders).toEqual(expect.arrayContaining(['src', 'docs']));
    expect(REFERENCE_SOURCES.files).toEqual(expect.arrayContaining(['README.md', 'scripts/api-reference.mjs']));
    const key = referenceKey(tree);
    expect(referenceKey(tree)).toBe(key);
    writeFileSync(join(tree, 'docs', 'guide.md'), '# A guide, changed\n');
    expect(referenceKey(tree)).not.toBe(key);
    writeFileSync(join(tree, 'docs', 'guide.md'), '# A guide\n');
    expect(referenceKey(tree)).toBe(key);
    // A file outside the sources (the cache itself, test artefacts) changes nothing.
    writeFileSync(join(tree, 'notes.txt'), 'x');
    expect(referenceKey(tree)).toBe(key);
  });

  it('makes the documentation on the first request, once for requests at the same time, and serves its files', async () => {
    const base = await start();
    expect(runs).toBe(0);
    const [index, again] = await Promise.all([text(`${base}${PATH}`), text(`${base}${PATH}index.html`)]);
    expect(runs).toBe(1);
    expect(index).toEqual({ status: 200, type: 'text/html; charset=utf-8', body: '<title>run 1</title>' });
    expect(again.body).toBe(index.body);
    expect(await text(`${base}${PATH}documents/guide.html`)).toMatchObject({ status: 200, body: 'guide of run 1' });
    expect(await text(`${base}${PATH}assets/main.js`)).toMatchObject({ status: 200, type: 'text/javascript', body: '// run 1' });
    expect(runs).toBe(1);
  });

  it('redirects /api to /api/ (the pages\' links are relative) and answers 404 for what the build has not', async () => {
    const base = await start();
    const bare = await fetch(`${base}/api?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/api/?x=1');
    expect((await text(`${base}${PATH}no-such-page.html`)).status).toBe(404);
    // Nothing outside the build: `..%2f` reaches the tree's README.md, unless the server stops it.
    expect((await text(`${base}${PATH}..%2f..%2fREADME.md`)).status).toBe(404);
    expect((await text(`${base}/apiary.html`)).status).toBe(404);
  });

  it('makes it again after a source changed, and reuses a build of the same sources, across restarts too', async () => {
    const base = await start();
    expect((await text(`${base}${PATH}`)).body).toBe('<title>run 1</title>');
    writeFileSync(join(tree, 'src', 'index.ts'), 'export const a = 2;\n');
    expect((await text(`${base}${PATH}`)).body).toBe('<title>run 2</title>');
    // A page's scripts come from the build its page came from.
    expect((await text(`${base}${PATH}assets/main.js`)).body).toBe('// run 2');
    writeFileSync(join(tree, 'src', 'index.ts'), 'export const a = 1;\n');
    expect((await text(`${base}${PATH}`)).body).toBe('<title>run 1</title>');
    const restarted = await start();
    expect((await text(`${restarted}${PATH}`)).body).toBe('<title>run 1</title>');
    expect(runs).toBe(2);
  });

  it('serves a build with problems and prints them; a failed build is an error, tried again on the next request', async () => {
    const base = await start();
    writeFileSync(join(tree, 'src', 'index.ts'), 'export const a = 3;\n');
    nextOutcome = new Error('TypeDoc crashed');
    const failed = await text(`${base}${PATH}`);
    expect(failed.status).toBe(500);
    expect(runs).toBe(2);
    nextOutcome = ['src/index.ts: a, an export, does not have any documentation'];
    expect((await text(`${base}${PATH}`)).body).toBe('<title>run 3</title>');
    expect(warnings.some((w) => w.includes('a, an export, does not have any documentation'))).toBe(true);
  });
});
