/**
 * The bake command line run from tests, two ways: as the README documents it (`npm run --silent
 * bake -- ARGS`, the sources through tsx), and as the package ships it (src/cli/bin.ts bundled,
 * as `npm run build` writes dist/cli/skinned-mesh-bake.js, run by plain Node). bin.ts is one
 * script for both, so both have the same flags, output and exit codes; test/cli/bake-cli.test.ts
 * pins that the two print the same. The CLI tests spawn the built one: a spawn through npm and
 * tsx costs about 1.8 CPU-s (npm, then TypeScript for every source), the built file about 0.5.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CLI_FILE } from '../../vite.config.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface BakeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function spawnBake(file: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): Promise<BakeRun> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: { ...process.env, INIT_CWD: cwd, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Runs `npm run --silent bake -- ARGS` from `cwd` (relative paths resolve there); never throws on a non-zero exit. */
export function runBake(args: readonly string[], cwd = ROOT): Promise<BakeRun> {
  return spawnBake('npm', ['run', '--prefix', ROOT, '--silent', 'bake', '--', ...args], cwd);
}

/**
 * Runs the built command (`node skinned-mesh-bake.js ARGS`, see builtBake) from `cwd`, with `env`
 * added to the environment; never throws on a non-zero exit.
 */
export async function runBuiltBake(args: readonly string[], cwd = ROOT, env: Readonly<Record<string, string>> = {}): Promise<BakeRun> {
  return spawnBake(process.execPath, [await builtBake(), ...args], cwd, env);
}

/** What the CLI build reads: the sources, the config (and the script it imports) and the locked dependencies. */
const BUILD_INPUTS = ['src', 'vite.config.ts', 'scripts/wgsl-compact.mjs', 'package-lock.json'];
const BUILD_PREFIX = 'bake-cli-';

/** A hash of every build input's path and bytes: a changed source builds again. */
function buildInputsHash(): string {
  const hash = createHash('sha256');
  for (const input of BUILD_INPUTS) {
    const path = join(ROOT, input);
    const files = statSync(path).isDirectory() ? readdirSync(path, { recursive: true, encoding: 'utf8' }).sort().map((f) => join(input, f)) : [input];
    for (const file of files) {
      if (statSync(join(ROOT, file)).isDirectory()) continue;
      hash.update(file).update('\0').update(readFileSync(join(ROOT, file))).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

let built: Promise<string> | undefined;

/**
 * The path of skinned-mesh-bake.js built from this checkout, as `npm run build` builds it (vite
 * --mode cli), under test-artifacts/ (inside the repository, so that Node finds the package's
 * dependencies): built once per content of the sources, shared by the test files and workers of
 * a run and by later runs. Two workers may both build; the first to rename its folder in wins.
 */
export function builtBake(): Promise<string> {
  built ??= (async () => {
    const artifacts = join(ROOT, 'test-artifacts');
    const name = BUILD_PREFIX + buildInputsHash();
    const dir = join(artifacts, name);
    const file = join(dir, CLI_FILE);
    try {
      statSync(file);
      return file;
    } catch { /* not built yet */ }
    mkdirSync(artifacts, { recursive: true });
    const scratch = mkdtempSync(join(artifacts, `building-${name}-`));
    await run(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--mode', 'cli', '--outDir', scratch, '--logLevel', 'warn'], { cwd: ROOT });
    chmodSync(join(scratch, CLI_FILE), 0o755);
    try {
      renameSync(scratch, dir);
    } catch {
      rmSync(scratch, { recursive: true, force: true }); // another worker's build is in place
    }
    // Builds of older sources are never used again.
    for (const old of readdirSync(artifacts)) if (old.startsWith(BUILD_PREFIX) && old !== name) rmSync(join(artifacts, old), { recursive: true, force: true });
    return file;
  })();
  return built;
}

/** stderr without npm's own config warnings, which are the machine's, not ours. */
export const ourLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));
