/**
 * Fixture files that cost seconds of CPU to make (glTF-Transform compressions, KTX2 encodes) and
 * several test files ask for, kept on disk in node_modules/.cache/FOLDER by a hash of what makes
 * them: the input's bytes, the making code and the versions of the packages it calls. Made once
 * for the same key, in a run and across runs; made again whenever the output could differ.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const NODE_MODULES = resolve(import.meta.dirname, '../../node_modules');

/** A hash of the making code (these files' bytes) and the named packages' package.json (read from node_modules: not every package exports it). */
export function makerHash(sources: readonly string[], packages: readonly string[]): Buffer {
  const hash = createHash('sha256');
  for (const file of sources) hash.update(readFileSync(file));
  for (const name of packages) hash.update(readFileSync(join(NODE_MODULES, name, 'package.json')));
  return hash.digest();
}

/** Where cachedFixture keeps the bytes for this key (its lock file: the same path + `.lock`). */
export function cachedFixtureFile(folder: string, key: readonly (Uint8Array | string)[]): string {
  const hash = createHash('sha256');
  for (const part of key) hash.update(typeof part === 'string' ? part : part).update('\0');
  return join(NODE_MODULES, '.cache', folder, `${hash.digest('hex')}.glb`);
}

/** How often a process waiting on another's making looks again. */
const WAIT_POLL_MS = 100;
/** A lock this old is left from a process that no longer makes anything (the longest making is seconds). */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * The bytes `make` gives for this key (the maker's hash, then every part of the input), from
 * node_modules/.cache/`folder` when made before; else made, kept, and returned. Made once even
 * when several test processes (the lanes of `npm test` with a cold cache), or several calls in
 * one, ask at the same time: the first takes a lock file beside the output, the others wait for
 * the output to appear.
 */
export function cachedFixture(folder: string, key: readonly (Uint8Array | string)[], make: () => Promise<Uint8Array>): Promise<Uint8Array> {
  const file = cachedFixtureFile(folder, key);
  const dir = dirname(file);
  if (existsSync(file)) return Promise.resolve(new Uint8Array(readFileSync(file)));
  return makeOnce(dir, file, make);
}

async function makeOnce(dir: string, file: string, make: () => Promise<Uint8Array>): Promise<Uint8Array> {
  mkdirSync(dir, { recursive: true });
  const lock = `${file}.lock`;
  while (!tryLock(lock)) {
    if (existsSync(file)) return new Uint8Array(readFileSync(file));
    if (lockAbandoned(lock)) rmSync(lock, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
  try {
    // Made by another process between the first look and the lock.
    if (existsSync(file)) return new Uint8Array(readFileSync(file));
    const made = await make();
    // Written whole, then renamed: a file reading it at the same time never sees half of it.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, made);
    renameSync(partial, file);
    return made;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Creates `lock` holding this process's id; false when it exists already. */
export function tryLock(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Whether the process that wrote `lock` has ended, or the lock is older than any making takes. */
export function lockAbandoned(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(readFileSync(lock, 'utf8'));
    // Empty while its writer is between creating and filling it: alive.
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOENT: released meanwhile (the loop tries again); ESRCH: its process is gone; EPERM: alive, another user's.
    return code === 'ESRCH';
  }
}
