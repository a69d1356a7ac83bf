// The documentation on the dev server (`npm run demo`): at /api/ (SITE_DOCS_DIR in vite.config.ts),
// the same pages `npm run build` writes to dist/site/api (the front page, the guides, the API
// reference), so the demo's and the examples' "Documentation" links open the same thing in both.
// They are made the one way the build makes them, by running scripts/api-reference.mjs --out, on
// the first request for them, into node_modules/.cache/api-reference/KEY: KEY is a hash of every
// file they are made from (REFERENCE_SOURCES), so a page asked for after one of those changed is
// made again (a TypeDoc run, ~7 CPU-s), and an unchanged tree reuses the last build across
// restarts. A reference with problems is served all the same (as the build writes it before it
// fails on them); the dev server prints them.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder, removeOldBuilds } from './keyed-builds.mjs';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

/**
 * What the reference is made from: the sources TypeDoc reads (src/, through the entries that
 * package.json `exports` names and the tsconfigs), the pages it renders (README.md, docs/ with its
 * pictures, bench/README.md), the files the guides link that it copies in (examples/, public/),
 * the scripts that make it and the lock file (TypeDoc's and TypeScript's versions).
 */
export const REFERENCE_SOURCES = {
  folders: ['src', 'docs', 'examples', 'public'],
  files: [
    'README.md', 'bench/README.md', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json',
    'scripts/api-reference.mjs', 'scripts/typedoc-typescript.mjs',
  ],
};

/** The key of the reference made from the tree at `root`: a hash of the names and bytes of REFERENCE_SOURCES (~12 ms). */
export function referenceKey(root = ROOT) {
  const hash = createHash('sha256');
  const files = [
    ...REFERENCE_SOURCES.files.filter((file) => existsSync(join(root, file))),
    ...REFERENCE_SOURCES.folders.filter((folder) => existsSync(join(root, folder))).flatMap((folder) => filesUnder(root, folder)),
  ];
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/**
 * Makes the reference of the tree at `root` into `out` the way `npm run build` does; resolves with
 * its problems (one line each; the build fails on any), rejects when nothing was written.
 */
export function makeReference(root, out) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'scripts/api-reference.mjs'), '--out', out], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', fail);
    child.on('close', (code) => {
      // Exit 1 with the pages written: problems, which the build would fail on.
      if ((code === 0 || code === 1) && existsSync(join(out, 'index.html'))) done(stdout.split('\n').filter(Boolean));
      else fail(new Error(`scripts/api-reference.mjs exited ${code}:\n${stderr}${stdout}`));
    });
  });
}

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.json': 'application/json', '.md': 'text/markdown; charset=utf-8', '.ts': 'text/plain; charset=utf-8',
};

/**
 * A Vite plugin serving the reference at `path` (`/api/`) on the dev server.
 * `root`: the tree it is made from; `cacheDir`: where the builds are kept, one folder per key;
 * `make`: how (makeReference; a test passes a stand-in).
 */
export function servedApiReference({ path, root = ROOT, cacheDir = join(root, 'node_modules/.cache/api-reference'), make = makeReference }) {
  const mount = path.replace(/\/$/, '');
  /** The builds this server made or is making, by key: requests during a build wait for the same one. */
  const builds = new Map();
  let lastKey;
  const reference = (key, logger) => {
    let build = builds.get(key);
    if (!build) {
      build = buildOnce(key, logger);
      builds.set(key, build);
      // A failed build is tried again by the next request, not remembered.
      build.catch(() => builds.delete(key));
    }
    return build;
  };
  const buildOnce = async (key, logger) => {
    const dir = join(cacheDir, key);
    if (existsSync(join(dir, 'index.html'))) return dir;
    mkdirSync(cacheDir, { recursive: true });
    // Made beside, then renamed: another server (another lane of `npm test`) never serves half of it.
    const partial = `${dir}.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    logger.info(`${path}: making the documentation (scripts/api-reference.mjs)…`, { timestamp: true });
    const problems = await make(root, partial);
    for (const problem of problems) logger.warn(`${path}: ${problem} (npm run build fails on this)`);
    try {
      renameSync(partial, dir);
    } catch (error) {
      // Another server made it meanwhile: theirs is the same.
      if (!existsSync(join(dir, 'index.html'))) throw error;
      rmSync(partial, { recursive: true, force: true });
    }
    removeOldBuilds(cacheDir, dir);
    return dir;
  };
  return {
    name: 'served-api-reference',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use(mount, (request, response, next) => {
        const url = new URL(request.originalUrl ?? request.url ?? '/', 'http://dev');
        // The pages' relative links need the folder's slash.
        if (url.pathname === mount) {
          response.statusCode = 301;
          response.setHeader('location', `${path}${url.search}`);
          response.end();
          return;
        }
        if (!url.pathname.startsWith(path)) { next(); return; }
        const file = decodeURIComponent(url.pathname.slice(path.length)) || 'index.html';
        const page = file.endsWith('/') || file.endsWith('.html');
        // A page is looked up in the build of today's tree; its scripts and pictures, which the
        // browser asks for right after it, in that same build.
        const key = page || !lastKey ? referenceKey(root) : lastKey;
        lastKey = key;
        reference(key, server.config.logger).then((dir) => {
          const target = resolve(dir, file.endsWith('/') ? `${file}index.html` : file);
          if (!target.startsWith(dir + sep) || !existsSync(target) || !statSync(target).isFile()) { next(); return; }
          const body = readFileSync(target);
          response.statusCode = 200;
          response.setHeader('content-type', CONTENT_TYPES[extname(target)] ?? 'application/octet-stream');
          response.setHeader('content-length', String(body.byteLength));
          // Made again whenever its sources change: the browser asks each time.
          response.setHeader('cache-control', 'no-cache');
          response.end(body);
        }, next);
      });
    },
  };
}
