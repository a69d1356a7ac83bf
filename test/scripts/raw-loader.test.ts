/**
 * scripts/raw-loader.mjs: plain Node (the bake CLI, the bench) gets `?raw` and `?inline`
 * imports as Vite gives them, for relative paths and package paths alike.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WASM = 'three/examples/jsm/libs/basis/basis_transcoder.wasm';

function run(source: string): string {
  const r = spawnSync(process.execPath, ['--import', './scripts/raw-loader.mjs', '--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout;
}

describe('raw-loader (Node hooks for ?raw and ?inline)', () => {
  it('?inline of a package file is a base64 data URL of its exact bytes', () => {
    const out = run(`import url from '${WASM}?inline'; process.stdout.write(url);`);
    expect(out.startsWith('data:application/wasm;base64,')).toBe(true);
    const bytes = Buffer.from(out.slice(out.indexOf(',') + 1), 'base64');
    expect(bytes.equals(readFileSync(fileURLToPath(import.meta.resolve(WASM))))).toBe(true);
  });

  it('?raw of a relative file and of a package file is its text', () => {
    const out = run(`import a from './shaders/mipmap.wgsl?raw'; import b from 'three/examples/jsm/libs/basis/basis_transcoder.js?raw'; process.stdout.write(JSON.stringify([a.length, b.length]));`);
    expect(JSON.parse(out)).toEqual([
      readFileSync(`${ROOT}shaders/mipmap.wgsl`, 'utf8').length,
      readFileSync(fileURLToPath(import.meta.resolve('three/examples/jsm/libs/basis/basis_transcoder.js')), 'utf8').length,
    ]);
  });
});
