/**
 * The demo uses only the library's public entry. Two checks: every import in src/demo is
 * either another demo file or the package name; and the compiler fence tsconfig.demo.json
 * sets up really holds — the demo compiles against the library's declarations, and the
 * same demo with one import reaching into src/ does not (TS6059, a source file outside
 * `rootDir`). The second runs on a copy in test-artifacts/, inside the repository so the
 * copy's config finds the same node_modules.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANES } from '../../scripts/test.mjs';
import { CHECKS } from '../../scripts/typecheck.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'src/demo');
const PACKAGE_NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

const demoSources = () => readdirSync(DEMO).filter((name) => name.endsWith('.ts'));

/** Module specifiers of every import (static, type-only, dynamic) and re-export in a file. */
function specifiers(text: string): string[] {
  const statements = [...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)];
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]/g)];
  return [...statements, ...dynamic].map((m) => m[1]);
}

function tsc(project: string, ...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', project, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the demo imports only the public entry', () => {
  it('imports nothing but other demo files and the package name', () => {
    const all: string[] = [];
    for (const file of demoSources()) {
      const found = specifiers(readFileSync(join(DEMO, file), 'utf8'));
      all.push(...found);
      for (const specifier of found) {
        if (specifier === PACKAGE_NAME) continue;
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w-]+\.ts$/);
        expect(existsSync(join(DEMO, specifier)), `${file} imports ${specifier}`).toBe(true);
      }
    }
    // The parse saw the imports there are: the entry (several times, multi-line too) and the demo's own modules.
    expect(all.filter((s) => s === PACKAGE_NAME).length).toBeGreaterThanOrEqual(3);
    expect(all).toEqual(expect.arrayContaining(['./files.ts', './lab.ts', './stats.ts']));
  });

  it('is checked against the declarations, with src/demo as rootDir', () => {
    const config = readFileSync(join(ROOT, 'tsconfig.demo.json'), 'utf8');
    expect(config).toMatch(/"rootDir":\s*"src\/demo"/);
    expect(config).toMatch(/"include":\s*\[\s*"src\/demo"\s*\]/);
    expect(config).toContain(`"${PACKAGE_NAME}": ["./dist/types/index.d.ts"]`);
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // Declarations first, then the demo against them; `npm test` runs the type check (a lane of scripts/test.mjs).
    expect(scripts.typecheck).toBe('node scripts/typecheck.mjs');
    expect(CHECKS).toContainEqual({ project: 'tsconfig.demo.json', after: 'tsconfig.build.json' });
    expect(scripts.test).toBe('node scripts/test.mjs');
    expect(LANES.map((lane) => lane.script)).toContain(fileURLToPath(new URL('../../scripts/typecheck.mjs', import.meta.url)));
  });

  describe('the compiler refuses an import that leaves src/demo', () => {
    let work = '';
    beforeAll(() => {
      mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
      work = mkdtempSync(join(ROOT, 'test-artifacts', 'demo-imports-'));
      const types = tsc(join(ROOT, 'tsconfig.build.json'), '--outDir', join(work, 'types'));
      if (types.status !== 0) throw new Error(`declarations failed:\n${types.output}`);
      cpSync(DEMO, join(work, 'demo'), { recursive: true });
      // The demo's own config, moved onto the copy: same options, this copy as rootDir, these declarations.
      writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({
        extends: join(ROOT, 'tsconfig.demo.json'),
        compilerOptions: { rootDir: './demo', paths: { [PACKAGE_NAME]: ['./types/index.d.ts'] } },
        include: ['./demo'],
      }));
    }, 60_000);
    afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

    it('compiles the demo as it is', () => {
      const { status, output } = tsc(join(work, 'tsconfig.json'));
      expect(output.trim()).toBe('');
      expect(status).toBe(0);
    });

    it('fails once the lab imports a job from its module instead of the entry', () => {
      const lab = join(work, 'demo', 'lab.ts');
      const internal = relative(dirname(lab), join(ROOT, 'src/anim/aim.ts'));
      writeFileSync(lab, `import { AimJob as Internal } from '${internal}';\nvoid Internal;\n${readFileSync(lab, 'utf8')}`);
      const { status, output } = tsc(join(work, 'tsconfig.json'));
      expect(status).not.toBe(0);
      expect(output).toMatch(/error TS6059: File '[^']*\/src\/[^']+' is not under 'rootDir'/);
    });
  });
});
