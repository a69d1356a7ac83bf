/**
 * scripts/test.mjs (`npm test`'s vitest run): lanes run side by side, a held lane's report comes
 * out in one piece, the closing line counts every lane, and the exit status fails when any lane
 * fails, reports nothing, or errs with no test failing. The lanes here are vitest runs of a
 * throw-away project (one file that passes, one that fails, one that skips), and scripts
 * standing for the type check's lane: one that passes, one that fails.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANES, runLanes, type Lane } from '../../scripts/test.mjs';
import { NODE_ISOLATED_TESTS } from '../../vite.config.ts';

const REPORTER = fileURLToPath(new URL('../support/summary-reporter.ts', import.meta.url));

describe('npm test lanes (scripts/test.mjs)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-test-'));
    writeFileSync(join(dir, 'vitest.config.mjs'), `export default { test: { reporters: ['default', ${JSON.stringify(REPORTER)}] } };\n`);
    writeFileSync(join(dir, 'passes.test.mjs'), "import { it, expect } from 'vitest';\nit('a', () => expect(1).toBe(1));\nit('b', () => expect(2).toBe(2));\nit.skip('c', () => {});\n");
    writeFileSync(join(dir, 'check-passes.mjs'), "console.log('checked: fine');\n");
    writeFileSync(join(dir, 'check-fails.mjs'), "console.error('src/x.ts(1,1): error TS2322: wrong');\nprocess.exit(2);\n");
    writeFileSync(join(dir, 'fails.test.mjs'), "import { it, expect } from 'vitest';\nit('d', () => expect(1).toBe(2));\nit('e', () => expect(1).toBe(1));\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const lane = (name: string, file: string, stream: boolean): Lane => ({ name, args: ['--config', join(dir, 'vitest.config.mjs'), '--dir', dir, file], stream });
  async function run(lanes: Lane[]) {
    let out = '';
    const result = await runLanes(lanes, { write: (text) => { out += text; }, cwd: dir });
    return { ...result, out: out.replace(/\x1b\[[0-9;]*m/g, '') };
  }

  it('npm test runs the browser project beside the node and gpu projects and the type check, the browser lane streaming', () => {
    expect(LANES).toEqual([
      { name: 'the browser project', args: ['--project', 'browser'], stream: true },
      { name: 'the node and gpu projects', args: ['--project', 'node', '--project', 'node-isolated', '--project', 'gpu'], stream: false },
      { name: 'the type check', script: fileURLToPath(new URL('../../scripts/typecheck.mjs', import.meta.url)), stream: false },
    ]);
  });

  it('every plain Node file that mocks modules, resets the registry or counts allocations runs isolated (NODE_ISOLATED_TESTS)', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const files = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f.split(sep).join('/')}`);
    // The gpu project (one shared Dawn device, its own non-isolated worker) and the browser project are not the node project.
    const nodeProject = (f: string) => !/^test\/(browser|gpu|crowd|bake)\//.test(f) || f.endsWith('/ktx2-offthread.test.ts');
    const needsIsolation = (text: string) => /\bvi\.(mock|doMock|unmock|resetModules)\(/.test(text) || /from '(\.\.\/)+support\/allocation\.ts'/.test(text);
    const isolated = files.filter((f) => nodeProject(f) && needsIsolation(readFileSync(join(root, f), 'utf8')));
    expect(isolated.length).toBeGreaterThan(5);
    expect(isolated.filter((f) => !NODE_ISOLATED_TESTS.includes(f))).toEqual([]);
    for (const f of NODE_ISOLATED_TESTS) expect(existsSync(join(root, f)), f).toBe(true);
  });

  const check = (name: string, file: string): Lane => ({ name, script: join(dir, file), stream: false });

  it('a check lane counts one failure (its report shown) when it fails', async () => {
    const bad = await run([lane('tests', 'passes', true), check('the check', 'check-fails.mjs')]);
    expect({ passed: bad.passed, failed: bad.failed, skipped: bad.skipped, code: bad.code }).toEqual({ passed: 2, failed: 1, skipped: 1, code: 1 });
    expect(bad.out).toContain('error TS2322: wrong');
    expect(bad.out).toContain('the check failed (exit 2); see its report above');
    expect(bad.out.trimEnd().split('\n').at(-1)).toBe('2 passed, 1 failed, 1 skipped');
  }, 60_000);

  it('counts every lane in one closing line; a failed test in one lane fails the run', async () => {
    const r = await run([lane('streamed', 'passes', true), lane('held', 'fails', false)]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped, code: r.code }).toEqual({ passed: 3, failed: 1, skipped: 1, code: 1 });
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('3 passed, 1 failed, 1 skipped');
    // The lanes' own reporters print no closing line of their own; the held lane's report is one piece.
    expect(r.out.match(/\d+ passed, \d+ failed, \d+ skipped/g)).toHaveLength(1);
    const held = r.out.indexOf('── held, run beside the others ──');
    expect(held).toBeGreaterThanOrEqual(0);
    expect(r.out.slice(held)).toContain('fails.test.mjs');
    expect(r.out.slice(0, held)).not.toContain('fails.test.mjs');
  }, 60_000);

  // One run for both (a vitest lane costs ~2 CPU-s): the counts are the two test lanes' alone.
  it('passes only when every lane does; a check lane that passes counts nothing', async () => {
    const r = await run([lane('one', 'passes', true), lane('two', 'passes', false), check('the check', 'check-passes.mjs')]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped, code: r.code }).toEqual({ passed: 4, failed: 0, skipped: 2, code: 0 });
    expect(r.out).toContain('── the check, run beside the others ──\nchecked: fine');
  }, 60_000);

  it('a lane that errs with no test failing (no file matched) fails the run and says so', async () => {
    const r = await run([lane('empty', 'no-such-file', false)]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('empty failed (exit 1) with no test failing');
  }, 60_000);

  it('a lane that dies before its report counts as a failure', async () => {
    const r = await run([{ name: 'broken', args: ['--config', join(dir, 'missing.config.mjs')], stream: false }]);
    expect(r.code).toBe(1);
    expect(r.failed).toBe(1);
    expect(r.out).toContain('broken ended (exit 1) without reporting its tests');
  }, 60_000);
});
