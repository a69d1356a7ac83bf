import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The decoders' packages must be loaded only when a file needs them: a static import would
 * put their WebAssembly into every page and every load. Checked on the source text, since a
 * test process cannot unload a module to see whether importing ours pulled it in.
 */
const SRC = resolve(import.meta.dirname, '../../../src/gltf/extensions');

describe('compressed-geometry decoders load their packages lazily', () => {
  for (const [file, pkg] of [['meshopt.ts', 'meshoptimizer'], ['draco.ts', 'draco3dgltf']] as const) {
    it(`${file} imports ${pkg} only with a dynamic import()`, () => {
      const text = readFileSync(resolve(SRC, file), 'utf8');
      expect(text).not.toMatch(new RegExp(`^\\s*import[^(]*['"]${pkg}`, 'm'));
      expect(text).toMatch(new RegExp(`import\\(['"]${pkg}/`));
    });
  }
});
