/**
 * The built test pages (built-pages.ts) are never older than the code they were built from: a
 * build is reused only while every file it read is unchanged (the library's folders whole, any
 * other file it read one by one), and made once when two lanes ask at the same time. A stand-in
 * build in a scratch tree stands for `vite build`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_PAGES, BUILT_PAGES_PATH, buildTestPages, testPageUrl } from './built-pages.ts';

const root = mkdtempSync(join(tmpdir(), 'built-pages-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

for (const file of ['vite.config.ts', 'package-lock.json', 'tsconfig.json', 'test/support/built-pages.ts', 'src/index.ts', 'shaders/mesh.wgsl',
  'test/browser/pages/element-basic.html', 'test/gpu/browser/renderer.html', 'index.html', 'examples/embed.html', 'test/support/png.ts',
  'node_modules/three/build/three.module.js']) write(file, `// ${file}\n`);

let builds = 0;
/** A build that writes what it read (src/index.ts) and reads two files outside the keyed folders. */
const stand = {
  root,
  async build(outDir: string): Promise<string[]> {
    builds++;
    await new Promise((done) => setTimeout(done, 30));
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'page.js'), readFileSync(join(root, 'src/index.ts')));
    return ['test/support/png.ts', 'node_modules/three/build/three.module.js'];
  },
};
const built = async () => readFileSync(join(await buildTestPages(stand), 'page.js'), 'utf8');

describe('buildTestPages', () => {
  it('builds once for two callers at once, then reuses the build while nothing it read changed', async () => {
    const [a, b] = await Promise.all([buildTestPages(stand), buildTestPages(stand)]);
    expect(a).toBe(b);
    expect(await built()).toBe('// src/index.ts\n');
    expect(builds).toBe(1);
  });

  it('builds again when a library file changes, or one is added, and reuses the first build when the change is undone', async () => {
    const first = await buildTestPages(stand);
    write('src/index.ts', 'export const changed = 1;\n');
    expect(await built()).toBe('export const changed = 1;\n');
    expect(builds).toBe(2);
    write('src/index.ts', '// src/index.ts\n');
    expect(await buildTestPages(stand)).toBe(first);
    write('src/added.ts', 'export {};\n');
    expect(await buildTestPages(stand)).not.toBe(first);
    expect(builds).toBe(3);
    rmSync(join(root, 'src/added.ts'));
  });

  it('builds again when a file the build read outside the keyed folders changes (a dependency, a test helper)', async () => {
    const before = builds;
    await buildTestPages(stand);
    expect(builds).toBe(before);
    write('node_modules/three/build/three.module.js', '// three, updated\n');
    await buildTestPages(stand);
    expect(builds).toBe(before + 1);
    write('test/support/png.ts', '// png, changed\n');
    await buildTestPages(stand);
    expect(builds).toBe(before + 2);
  });

  it('gives the built URL for a built page and the dev server URL for any other', () => {
    expect(BUILT_PAGES).toContain('test/browser/pages/element-basic.html');
    expect(testPageUrl('http://x', 'test/browser/pages/element-basic.html')).toBe(`http://x${BUILT_PAGES_PATH}test/browser/pages/element-basic.html`);
    expect(testPageUrl('http://x', 'test/browser/pages/element-dist.html')).toBe('http://x/test/browser/pages/element-dist.html');
  });
});
