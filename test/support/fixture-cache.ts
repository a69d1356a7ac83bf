/**
 * Fixture files that cost seconds of CPU to make (glTF-Transform compressions, KTX2 encodes) and
 * several test files ask for, kept on disk in node_modules/.cache/FOLDER by a hash of what makes
 * them: the input's bytes, the making code and the versions of the packages it calls. Made once
 * for the same key, in a run and across runs; made again whenever the output could differ.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const NODE_MODULES = resolve(import.meta.dirname, '../../node_modules');

/** A hash of the making code (these files' bytes) and the named packages' package.json (read from node_modules: not every package exports it). */
export function makerHash(sources: readonly string[], packages: readonly string[]): Buffer {
  const hash = createHash('sha256');
  for (const file of sources) hash.update(readFileSync(file));
  for (const name of packages) hash.update(readFileSync(join(NODE_MODULES, name, 'package.json')));
  return hash.digest();
}

/**
 * The bytes `make` gives for this key (the maker's hash, then every part of the input), from
 * node_modules/.cache/`folder` when made before; else made, kept, and returned.
 */
export async function cachedFixture(folder: string, key: readonly (Uint8Array | string)[], make: () => Promise<Uint8Array>): Promise<Uint8Array> {
  const hash = createHash('sha256');
  for (const part of key) hash.update(typeof part === 'string' ? part : part).update('\0');
  const dir = join(NODE_MODULES, '.cache', folder);
  const file = join(dir, `${hash.digest('hex')}.glb`);
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  const made = await make();
  mkdirSync(dir, { recursive: true });
  // Written whole, then renamed: a file reading it at the same time never sees half of it.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, made);
  renameSync(partial, file);
  return made;
}
