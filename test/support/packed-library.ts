/**
 * The library as `npm pack` makes it, made once per test run for the files that check it:
 * element-build.test.ts reads the build (dist/: lib, types, cli, sizes.json),
 * package-consumer.test.ts installs the tarball and package-publish.test.ts dry-runs publishing it. Each used to build the library itself (two
 * full builds a run, ~10 s of CPU each); now the files check the very build that is packed.
 *
 * `npm pack` runs the package's `prepack` (scripts/build.mjs --no-site, into the repository's
 * dist/), then packs package.json `files`. The build is copied beside the tarball, so a later
 * build in dist/ does not change what the files read. Before the build, a declaration is left
 * in dist/types from an "earlier build of a file that no longer exists": the build must not ship it.
 *
 * Kept in the 'browser' project's run folder (test/support/browser-server.ts provides it, removes
 * it after the run): the first file of a run to ask packs, the other finds it there.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder for what the 'browser' project's files of one run share on disk (test/support/browser-server.ts). */
    browserRunDir?: string;
  }
}

/** The stale declaration left in dist/types before the build, relative to dist/types. */
export const STALE_DECLARATION = 'moved-away/old.d.ts';

export interface PackedLibrary {
  /** The build `npm pack` packed: lib/, types/, cli/ and sizes.json, as in the repository's dist/. */
  dist: string;
  /** The `npm pack` tarball. */
  tarball: string;
  /** What `npm pack` (its `prepack`, the build) wrote to stderr: the build's warnings, if any. */
  packStderr: string;
}

/** What the build writes into dist/ that the checks read (dist/site, from a full `npm run build`, is not the package's). */
const BUILD_OUTPUTS = ['lib', 'types', 'cli', 'sizes.json'];

/** The packed library of this run: packed by the first caller, found by the next. */
export function packedLibrary(): PackedLibrary {
  const runDir = inject('browserRunDir');
  if (!runDir) throw new Error("packedLibrary() needs the 'browser' project's run folder (test/support/browser-server.ts)");
  const dir = join(runDir, 'packed-library');
  const made = join(dir, 'packed.json');
  if (!existsSync(made)) {
    const building = `${dir}.building`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    mkdirSync(join(ROOT, 'dist/types', STALE_DECLARATION, '..'), { recursive: true });
    writeFileSync(join(ROOT, 'dist/types', STALE_DECLARATION), 'export {};\n');
    // Without vitest's NODE_ENV=test, as a user packs (under it Vite leaves out some of the build's warnings).
    const { NODE_ENV: _, ...env } = process.env;
    const pack = spawnSync('npm', ['pack', '--pack-destination', building, '--silent'], {
      cwd: ROOT, encoding: 'utf8', env: { ...env, npm_config_update_notifier: 'false' },
    });
    if (pack.status !== 0) throw new Error(`npm pack failed (${pack.status}):\n${pack.stdout}\n${pack.stderr}`);
    const tarball = readdirSync(building).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack wrote no tarball into ${building}`);
    for (const output of BUILD_OUTPUTS) cpSync(join(ROOT, 'dist', output), join(building, 'dist', output), { recursive: true });
    writeFileSync(join(building, 'packed.json'), JSON.stringify({ tarball, packStderr: pack.stderr }));
    renameSync(building, dir);
  }
  const { tarball, packStderr } = JSON.parse(readFileSync(made, 'utf8')) as { tarball: string; packStderr: string };
  return { dist: join(dir, 'dist'), tarball: join(dir, tarball), packStderr };
}
