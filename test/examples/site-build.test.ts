/**
 * The demo site's build (what `npm run build` writes to dist/site) carries the examples: every
 * page of examples/ is built beside the demo, each of its scripts and style sheets is a file of
 * the build (the package's name resolved into bundled code, no bare import left), and the demo's
 * link to the examples reaches the built index.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.html'));

/** The files a built page loads: its module scripts and style sheets (site-absolute paths). */
const loadedFiles = (html: string) => [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="(\/[^"]+)"/g)].map((m) => m[1]);

describe('the site build', () => {
  let out: string;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'site-build-'));
    await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'silent', build: { outDir: out } });
  }, 120_000);
  afterAll(() => { if (out) rmSync(out, { recursive: true, force: true }); });

  it('has every example page, each loading only files of the build', () => {
    expect(PAGES).toContain('index.html');
    for (const page of PAGES) {
      const built = join(out, 'examples', page);
      expect(existsSync(built), `dist/site/examples/${page}`).toBe(true);
      const html = readFileSync(built, 'utf8');
      expect(html, page).not.toContain('skinned-mesh-webgpu/');
      for (const file of loadedFiles(html)) expect(existsSync(join(out, file)), `${page} loads ${file}`).toBe(true);
      if (page !== 'index.html') expect(loadedFiles(html).some((f) => f.endsWith('.js')), `${page} has its script`).toBe(true);
    }
  });

  it('keeps the demo link to the examples', () => {
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('href="examples/"');
    expect(existsSync(join(out, 'examples', 'index.html'))).toBe(true);
  });
});
