/**
 * scripts/test.mjs (`npm test`'s vitest runs): every test file runs in exactly one lane; lanes
 * run side by side, a lane's vitest runs one after another; a held lane's report comes out in
 * one piece, the closing line counts every run of every lane, and the exit status fails when
 * any fails, reports nothing, or errs with no test failing. The lanes here are vitest runs of a
 * throw-away project (one file that passes, one that fails, one that skips), and scripts
 * standing for the type check's lane: one that passes, one that fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANES, LANES_VARIABLE, LATE_BROWSER_TESTS, runLanes, type Lane } from '../../scripts/test.mjs';
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

  /** A lane of vitest runs of the throw-away project, one a file, one after another. */
  const lane = (name: string, files: string[], stream: boolean): Lane => ({ name, runs: files.map((file) => ['--config', join(dir, 'vitest.config.mjs'), '--dir', dir, file]), stream });
  async function run(lanes: Lane[]) {
    let out = '';
    const result = await runLanes(lanes, { write: (text) => { out += text; }, cwd: dir });
    return { ...result, out: out.replace(/\x1b\[[0-9;]*m/g, '') };
  }

  it('npm test runs the browser project beside the node and gpu projects (then the late browser files) and the type check, the browser lane streaming', () => {
    expect(LANES).toEqual([
      { name: 'the browser project', runs: [['--project', 'browser']], stream: true },
      {
        name: 'the node and gpu projects, then the late browser files',
        runs: [['--project', 'node', '--project', 'node-isolated', '--project', 'gpu'], ['--project', 'browser-late']],
        stream: false,
      },
      { name: 'the type check', script: fileURLToPath(new URL('../../scripts/typecheck.mjs', import.meta.url)), stream: false },
    ]);
  });

  // What vitest itself selects for npm test's lanes (one `vitest list` under LANES_VARIABLE):
  // every test file on disk in exactly one project, every project in exactly one lane's runs.
  // Without LANES_VARIABLE the config differs only in keeping LATE_BROWSER_TESTS in 'browser'.
  it('npm test runs every test file exactly once: each in one project, each project in one lane; the late ones are LATE_BROWSER_TESTS', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const listed = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'list', '--filesOnly', '--json'], {
      cwd: root, encoding: 'utf8', env: { ...process.env, [LANES_VARIABLE]: '1' },
    });
    expect(listed.status, listed.stderr).toBe(0);
    const projectOf = new Map<string, string[]>();
    for (const { file, projectName } of JSON.parse(listed.stdout) as { file: string; projectName: string }[]) {
      const name = relative(root, file).split(sep).join('/');
      projectOf.set(name, [...(projectOf.get(name) ?? []), projectName]);
    }
    const onDisk = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f.split(sep).join('/')}`).sort();
    expect(onDisk.length).toBeGreaterThan(200);
    expect(onDisk.filter((f) => projectOf.get(f)?.length !== 1), 'files in no project, or in two').toEqual([]);
    expect([...projectOf.keys()].filter((f) => !onDisk.includes(f))).toEqual([]);
    const projects = new Set([...projectOf.values()].flat());
    const lanesOf = (project: string) => LANES.filter((lane) => lane.runs?.some((args) => args.some((a, i) => a === project && args[i - 1] === '--project')));
    expect([...projects].filter((p) => lanesOf(p).length !== 1)).toEqual([]);
    expect(onDisk.filter((f) => projectOf.get(f)![0] === 'browser-late')).toEqual([...LATE_BROWSER_TESTS].sort());
    // The packed library is made once per browser project's run (test/support/packed-library.ts): its users stay in one.
    expect(LATE_BROWSER_TESTS.filter((f) => readFileSync(join(root, f), 'utf8').includes('packed-library'))).toEqual([]);
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

  // Each run below costs ~1 CPU-s a vitest process; a run puts together what it can without
  // hiding which lane a count or the exit status comes from.
  it('counts every lane, and every run of a lane, in one closing line; a failed test in a later run of a held lane fails the run', async () => {
    const r = await run([lane('streamed', ['passes'], true), lane('held', ['passes', 'fails'], false)]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped, code: r.code }).toEqual({ passed: 5, failed: 1, skipped: 2, code: 1 });
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('5 passed, 1 failed, 2 skipped');
    // The lanes' own reporters print no closing line of their own; the held lane's report is one piece, both its runs.
    expect(r.out.match(/\d+ passed, \d+ failed, \d+ skipped/g)).toHaveLength(1);
    const held = r.out.indexOf('── held, run beside the others ──');
    expect(held).toBeGreaterThanOrEqual(0);
    expect(r.out.slice(held)).toContain('fails.test.mjs');
    // Failing once in a full suite (session 10, not reproduced alone or beside three CPU hogs): the output says why next time.
    expect(r.out.slice(held).match(/passes\.test\.mjs/g), r.out.slice(held)).toHaveLength(1);
    expect(r.out.slice(0, held)).not.toContain('fails.test.mjs');
    // The wall time of each lane, and of each run of a lane of several.
    expect(r.out).toMatch(/\nwall time by lane: streamed \d+ s; held \d+ s \(\d+ s \+ \d+ s\)\n/);
  }, 60_000);

  it('passes only when every lane does; a check lane that passes counts nothing', async () => {
    const r = await run([lane('one', ['passes'], true), check('the check', 'check-passes.mjs')]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped, code: r.code }).toEqual({ passed: 2, failed: 0, skipped: 1, code: 0 });
    expect(r.out).toContain('── the check, run beside the others ──\nchecked: fine');
  }, 60_000);

  it('a lane that errs with no test failing (no file matched) fails the run and says so', async () => {
    const r = await run([lane('empty', ['no-such-file'], false), check('the check', 'check-passes.mjs')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('empty failed (exit 1) with no test failing');
  }, 60_000);

  it('a check lane that fails, and a lane that dies before its report, each count one failure', async () => {
    const r = await run([check('the check', 'check-fails.mjs'), { name: 'broken', runs: [['--config', join(dir, 'missing.config.mjs')]], stream: false }]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped, code: r.code }).toEqual({ passed: 0, failed: 2, skipped: 0, code: 1 });
    expect(r.out).toContain('error TS2322: wrong');
    expect(r.out).toContain('the check failed (exit 2); see its report above');
    expect(r.out).toContain('broken ended (exit 1) without reporting its tests');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('0 passed, 2 failed, 0 skipped');
  }, 60_000);
});
