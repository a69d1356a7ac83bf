/** The bake command line as the README documents it, run from tests: `npm run --silent bake -- ARGS`. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface BakeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npm run --silent bake -- ARGS` from `cwd` (relative paths resolve there); never throws on a non-zero exit. */
export async function runBake(args: readonly string[], cwd = ROOT): Promise<BakeRun> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--prefix', ROOT, '--silent', 'bake', '--', ...args], { cwd, env: { ...process.env, INIT_CWD: cwd } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** stderr without npm's own config warnings, which are the machine's, not ours. */
export const ourLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));
