// `npm run typecheck`, and one of `npm test`'s lanes (scripts/test.mjs): the four TypeScript
// projects, each a check the others do not make.
//
//   tsconfig.json           src, test, bench and vite.config.ts, with Node's types and unused names
//   tsconfig.build.json     the library's declarations, emitted from src without Node's types
//   tsconfig.demo.json      the demo against those declarations (only the public API)
//   tsconfig.examples.json  the examples against those declarations, by every public subpath
//
// The declarations go to a folder of this run's own, not to dist/types: `npm test` runs this
// beside the browser project, whose `npm pack` rebuilds dist/types (test/support/packed-library.ts),
// and the demo and the examples must be checked against what this source emits now. The demo's
// and the examples' configs are used as they are, with only their package paths moved onto that
// folder (as test/demo/imports.test.ts moves them onto its copy).
//
// All run at once, except that the demo's and the examples' checks wait for the declarations.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
/** Where tsconfig.demo.json and tsconfig.examples.json find the declarations (their `paths`). */
const SHIPPED_TYPES = './dist/types/';

/** The checks: each project, and the one whose output it needs (it starts once that one has passed). */
export const CHECKS = [
  { project: 'tsconfig.json' },
  { project: 'tsconfig.build.json' },
  { project: 'tsconfig.demo.json', after: 'tsconfig.build.json' },
  { project: 'tsconfig.examples.json', after: 'tsconfig.build.json' },
];

/**
 * tsc on one project; resolves with its exit status and what it printed. Single-threaded: the
 * projects already run side by side (and `npm test` runs this beside two test lanes on a 2-core
 * machine), and TypeScript 7's parallel checkers each resolve the shared types again: on the 2-core
 * VM tsconfig.json took 8.1–8.6 CPU-s with its default checkers, 6.0–6.5 single-threaded, and no
 * longer wall.
 */
function tsc(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [TSC, '--singleThreaded', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('close', (code, signal) => done({ code: code ?? 1, signal, output: Buffer.concat(out).toString() }));
  });
}

/** A config that is `project` with its package paths pointing into `types` instead of dist/types. */
function againstDeclarations(project, types, work) {
  const config = JSON.parse(readFileSync(join(ROOT, project), 'utf8').replace(/^\s*\/\/.*$/gm, ''));
  const paths = {};
  for (const [name, targets] of Object.entries(config.compilerOptions.paths)) {
    paths[name] = targets.map((target) => {
      if (!target.startsWith(SHIPPED_TYPES)) throw new Error(`${project}: paths.${name} is not in ${SHIPPED_TYPES}`);
      return join(types, target.slice(SHIPPED_TYPES.length));
    });
  }
  const file = join(work, project);
  // `extends` keeps every option, rootDir and include of the original (relative to it); only the paths change.
  writeFileSync(file, JSON.stringify({ extends: join(ROOT, project), compilerOptions: { paths } }));
  return file;
}

/** Runs every check; writes what failed through `write`; resolves with the exit status (0 when all passed). */
export async function typecheck({ write = (text) => process.stderr.write(text) } = {}) {
  // Inside the repository, so that the configs find node_modules' types (vite/client) as the originals do.
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  const work = mkdtempSync(join(ROOT, 'test-artifacts', 'typecheck-'));
  const types = join(work, 'types');
  const argsOf = {
    'tsconfig.json': ['--noEmit', '-p', 'tsconfig.json'],
    'tsconfig.build.json': ['-p', 'tsconfig.build.json', '--outDir', types],
    'tsconfig.demo.json': () => ['-p', againstDeclarations('tsconfig.demo.json', types, work)],
    'tsconfig.examples.json': () => ['-p', againstDeclarations('tsconfig.examples.json', types, work)],
  };
  const runs = new Map();
  const run = (check) => {
    if (!runs.has(check.project)) {
      runs.set(check.project, (async () => {
        if (check.after) {
          const before = await run(CHECKS.find((c) => c.project === check.after));
          if (before.code !== 0) {
            write(`${check.project}: not checked, ${check.after} failed\n`);
            return { code: 1 };
          }
        }
        const args = argsOf[check.project];
        const result = await tsc(typeof args === 'function' ? args() : args);
        // Each project's messages in one piece, as it ends.
        if (result.output.trim()) write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
        return result;
      })());
    }
    return runs.get(check.project);
  };
  try {
    const results = await Promise.all(CHECKS.map(run));
    const failed = CHECKS.filter((_, i) => results[i].code !== 0);
    if (failed.length === 0) return 0;
    write(`typecheck failed: ${failed.map((c) => c.project).join(', ')}\n`);
    return 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(await typecheck());
