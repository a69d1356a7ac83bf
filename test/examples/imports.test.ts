/**
 * The example pages import the library as a page that installed it would: every import in
 * examples/ (their .ts files and the HTML pages' inline module scripts) is the package's name
 * or one of its subpaths with code (package.json `exports`), or another file of examples/.
 * tsconfig.examples.json type-checks them (`npm run typecheck`) against the declarations each
 * subpath ships, which this test holds equal to `exports`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../scripts/typecheck.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string; scripts: Record<string, string>; exports: Record<string, string | { types?: string; import?: string }>;
};

/**
 * The package's specifiers a page can import code from, each with its declarations file; not
 * the minified copies (`/min`, `/element/min`), whose code and types are those of `.` and `/element`.
 */
const codeEntries = new Map(Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === 'object' && target.import !== undefined && target.types !== undefined && !subpath.endsWith('/min')
    ? [[pkg.name + subpath.slice(1), target.types] as const]
    : []));

/** Module specifiers of a file's static and dynamic imports and re-exports. */
function specifiers(text: string): string[] {
  const statements = [...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)];
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]/g)];
  return [...statements, ...dynamic].map((m) => m[1]);
}

/** The code of a page's inline module scripts, and the files its module scripts load. */
function moduleScripts(html: string): { inline: string[]; files: string[] } {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => /type="module"/.test(m[1]));
  return {
    inline: scripts.filter((m) => !/\ssrc=/.test(m[1])).map((m) => m[2]),
    files: scripts.flatMap((m) => [.../\ssrc="([^"]+)"/.exec(m[1]) ?? []].slice(1)),
  };
}

describe('the examples import only the public entries', () => {
  it('imports nothing but the package, its subpaths with code, and files of examples/', () => {
    const seen: string[] = [];
    for (const file of readdirSync(EXAMPLES)) {
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      let found: string[] = [];
      if (file.endsWith('.ts')) found = specifiers(text);
      if (file.endsWith('.html')) {
        const scripts = moduleScripts(text);
        found = [...scripts.inline.flatMap(specifiers), ...scripts.files];
      }
      seen.push(...found);
      for (const specifier of found) {
        if (codeEntries.has(specifier)) continue;
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w-]+\.ts$/);
        expect(existsSync(join(EXAMPLES, specifier)), `${file} imports ${specifier}`).toBe(true);
      }
    }
    // The parse saw what is there: the full entry, the element's and retargeting's subpaths, and page scripts.
    expect(seen).toEqual(expect.arrayContaining([pkg.name, `${pkg.name}/element`, `${pkg.name}/retarget`, './renderer.ts']));
    // And it refuses a reach into the sources (the check is not vacuous).
    expect(specifiers("import { AimJob } from '../src/anim/aim.ts';").some((s) => codeEntries.has(s) || /^\.\/[\w-]+\.ts$/.test(s))).toBe(false);
  });

  it('are type-checked against the declarations each subpath ships', () => {
    const config = readFileSync(join(ROOT, 'tsconfig.examples.json'), 'utf8');
    expect(config).toMatch(/"rootDir":\s*"examples"/);
    const paths = JSON.parse(config.replace(/^\s*\/\/.*$/gm, '')).compilerOptions.paths as Record<string, string[]>;
    expect(Object.fromEntries(Object.entries(paths).map(([name, [file]]) => [name, file]))).toEqual(Object.fromEntries(codeEntries));
    expect(pkg.scripts.typecheck).toBe('node scripts/typecheck.mjs');
    expect(CHECKS).toContainEqual({ project: 'tsconfig.examples.json', after: 'tsconfig.build.json' });
  });
});
