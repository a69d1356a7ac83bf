// `npm test`: the type check and the tests. The browser project, the suite's longest part,
// runs one file at a time, and a page's work leaves part of the second core idle; so the suite
// runs as lanes side by side: the browser project in one vitest process; the node and gpu
// projects (one after the other, as vite.config.ts orders them) in another, and after them, in
// a vitest process of its own, the browser files of LATE_BROWSER_TESTS (the 'browser-late'
// project, with its own Chromium and dev server), so that the second core does not idle while
// the browser lane finishes; and the type check (scripts/typecheck.mjs, four tsc projects) in a
// third, which no test waits for (it used to run before everything else, about 36 s of wall on
// the 2-core CI machine).
// The browser lane's report streams as it runs; the others' are printed whole when they end,
// so they never interleave. Then each lane's wall time (to retune LATE_BROWSER_TESTS by), and
// the closing line counting the lanes' tests (summary-reporter.ts), a failed check lane (the
// type check) as one failure; the exit status fails when any lane does.
//
// With arguments (`npm test -- test/anim`): the type check, then one vitest process running
// just what they select (one 'browser' project of all the browser files, as in a plain `vitest run`).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const TYPECHECK = fileURLToPath(new URL('./typecheck.mjs', import.meta.url));
/** Where a lane's summary reporter writes its counts instead of printing them (summary-reporter.ts). */
export const SUMMARY_FILE_VARIABLE = 'VITEST_SUMMARY_FILE';
/**
 * Set for `npm test`'s lanes: vite.config.ts then moves LATE_BROWSER_TESTS out of the 'browser'
 * project into a 'browser-late' project. Without it (a plain `vitest run`, `npm test -- files`)
 * there is one 'browser' project, whose global setup starts one Chromium and one dev server.
 */
export const LANES_VARIABLE = 'NPM_TEST_LANES';
/**
 * The browser files that `npm test` runs in the second lane once the node and gpu projects are
 * done (the 'browser-late' project), chosen so that both lanes end together: the browser lane
 * is the critical path, and the second lane used to end 100–150 s before it, leaving a core
 * idle. Retune by the lane times `npm test` prints at its end: a file moved from one lane to the
 * other moves about its own time there (its ✓ line), so move files adding up to half the gap
 * between the two lanes' ends (a second browser process costs ~3–8 CPU-s to start: vitest, dev
 * server, Chromium, the first page's transforms). Files that share the run's packed library
 * (test/support/packed-library.ts: element-build, package-consumer, package-publish) stay in
 * the browser lane, which packs it once. test/scripts/test-lanes.test.ts checks that every test
 * file runs in exactly one lane.
 */
export const LATE_BROWSER_TESTS = [
  'test/browser/element-vrm.test.ts',
  'test/browser/mtoon-three-vrm.test.ts',
  'test/gpu/compressed-assets-render.test.ts',
  'test/browser/element-hotspots.test.ts',
  'test/browser/element-lighting.test.ts',
];
/**
 * `npm test`'s lanes, all started at once: each either vitest runs one after another (`runs`,
 * each a `vitest run`'s arguments), or a Node script that passes or fails by its exit status
 * (`script`, a check with no tests to count); and whether the report streams (one lane only)
 * or is held to its end.
 */
export const LANES = [
  { name: 'the browser project', runs: [['--project', 'browser']], stream: true },
  {
    name: 'the node and gpu projects, then the late browser files',
    runs: [['--project', 'node', '--project', 'node-isolated', '--project', 'gpu'], ['--project', 'browser-late']],
    stream: false,
  },
  { name: 'the type check', script: TYPECHECK, stream: false },
];

/**
 * Runs the lanes, all at once (each lane's vitest runs one after another), writing their reports
 * through `write` (a held lane's in one piece when it ends), then each lane's wall time and one
 * line of the counts of all of them. Resolves with those counts and the exit status: 1 if any
 * lane failed or a vitest run in it reported nothing.
 */
export async function runLanes(lanes, { write = (text) => process.stdout.write(text), cwd = process.cwd(), env = process.env } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vitest-lanes-'));
  const children = new Set();
  // Interrupted: the lanes are stopped, no further run starts, and what a held lane wrote so far is still shown.
  let interrupted = false;
  const stop = (signal) => {
    interrupted = true;
    for (const child of children) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
  // One process of a lane: its exit status, the signal that ended it, and its counts (none if
  // it did not get as far as its report).
  const runProcess = (command, summaryFile, take) => new Promise((resolve) => {
    const child = spawn(process.execPath, command, { cwd, env: { ...env, [SUMMARY_FILE_VARIABLE]: summaryFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code, signal) => {
      children.delete(child);
      let counts;
      try {
        counts = JSON.parse(readFileSync(summaryFile, 'utf8'));
      } catch {
        // No counts: the run did not get as far as its report.
      }
      resolve({ code: code ?? 1, signal, counts });
    });
  });
  const results = await Promise.all(lanes.map(async (lane, i) => {
    const started = performance.now();
    const held = [];
    const take = (chunk) => (lane.stream ? write(chunk.toString()) : held.push(chunk));
    const commands = lane.script ? [[lane.script]] : lane.runs.map((args) => [VITEST, 'run', ...args]);
    const runs = [];
    for (const [j, command] of commands.entries()) {
      if (interrupted) break;
      const runStarted = performance.now();
      runs.push({ ...(await runProcess(command, join(dir, `lane-${i}-run-${j}.json`), take)), seconds: (performance.now() - runStarted) / 1000 });
    }
    if (held.length > 0) write(`\n── ${lane.name}, run beside the others ──\n${Buffer.concat(held).toString()}`);
    return { lane, runs, seconds: (performance.now() - started) / 1000 };
  }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, stop);
  rmSync(dir, { recursive: true, force: true });
  let passed = 0, failed = 0, skipped = 0;
  for (const { lane, runs } of results) {
    if (lane.script) {
      const { code, signal } = runs[0] ?? { code: 1, signal: 'not started' };
      if (code !== 0) {
        write(`\n${lane.name} failed (${signal ?? `exit ${code}`}); see its report above\n`);
        failed++;
      }
      continue;
    }
    for (const [j, args] of lane.runs.entries()) {
      // A lane of several runs names the one it means.
      const name = lane.runs.length > 1 ? `${lane.name} (vitest run ${args.join(' ')})` : lane.name;
      if (j >= runs.length) {
        write(`\n${name} did not start: interrupted\n`);
        failed++;
        continue;
      }
      const { code, signal, counts } = runs[j];
      if (!counts) {
        write(`\n${name} ended (${signal ?? `exit ${code}`}) without reporting its tests\n`);
        failed++;
        continue;
      }
      passed += counts.passed;
      failed += counts.failed;
      skipped += counts.skipped;
      // Failed without a failed test: vitest's own error (no file matched, an error outside the tests).
      if (code !== 0 && counts.failed === 0) write(`\n${name} failed (exit ${code}) with no test failing; see its report above\n`);
    }
  }
  const seconds = (s) => `${Math.round(s)} s`;
  write(`\nwall time by lane: ${results.map(({ lane, runs, seconds: s }) => `${lane.name} ${seconds(s)}${runs.length > 1 ? ` (${runs.map((r) => seconds(r.seconds)).join(' + ')})` : ''}`).join('; ')}\n`);
  write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  const anyRunFailed = results.some(({ lane, runs }) => runs.length < (lane.script ? 1 : lane.runs.length) || runs.some((r) => r.code !== 0));
  return { passed, failed, skipped, code: failed > 0 || anyRunFailed ? 1 : 0 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (args.length > 0) {
    const { typecheck } = await import(TYPECHECK);
    if ((await typecheck()) !== 0) process.exit(1);
    const child = spawn(process.execPath, [VITEST, 'run', ...args], { stdio: 'inherit' });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  } else {
    // The lanes' projects (LANES_VARIABLE: the late browser files in a project of their own), and
    // colours as the terminal would show them: the lanes write to pipes.
    const env = { ...process.env, [LANES_VARIABLE]: '1', ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}) };
    const { code } = await runLanes(LANES, { env });
    process.exit(code);
  }
}
