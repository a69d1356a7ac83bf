// `npm test`: the type check and the tests. The browser project, the suite's longest part,
// runs one file at a time, and a page's work leaves part of the second core idle; so the suite
// runs as lanes side by side: the browser project in one vitest process, the node and gpu
// projects (one after the other, as vite.config.ts orders them) in another, and the type check
// (scripts/typecheck.mjs, four tsc projects) in a third, which no test waits for (it used to run
// before everything else, about 36 s of wall on the 2-core CI machine).
// The browser lane's report streams as it runs; the others' are printed whole when they end,
// so they never interleave. The closing line counts the lanes' tests (summary-reporter.ts), a
// failed check lane (the type check) as one failure; the exit status fails when any lane does.
//
// With arguments (`npm test -- test/anim`): the type check, then one vitest process running
// just what they select.
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
 * `npm test`'s lanes: vitest arguments (`args`), or a Node script that passes or fails by its
 * exit status (`script`, a check with no tests to count); and whether the report streams (one
 * lane only) or is held to its end.
 */
export const LANES = [
  { name: 'the browser project', args: ['--project', 'browser'], stream: true },
  { name: 'the node and gpu projects', args: ['--project', 'node', '--project', 'node-isolated', '--project', 'gpu'], stream: false },
  { name: 'the type check', script: TYPECHECK, stream: false },
];

/**
 * Runs `vitest run` once per lane, all at once, writing their reports through `write` (a
 * held lane's in one piece when it ends) and then one line of the counts of all of them.
 * Resolves with those counts and the exit status: 1 if any lane failed or reported nothing.
 */
export async function runLanes(lanes, { write = (text) => process.stdout.write(text), cwd = process.cwd(), env = process.env } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vitest-lanes-'));
  const children = [];
  // Interrupted: the lanes are stopped, and what a held lane wrote so far is still shown.
  const stop = (signal) => { for (const child of children) child.kill(signal); };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
  const results = await Promise.all(lanes.map((lane, i) => new Promise((resolve) => {
    const summaryFile = join(dir, `lane-${i}.json`);
    const command = lane.script ? [lane.script] : [VITEST, 'run', ...lane.args];
    const child = spawn(process.execPath, command, { cwd, env: { ...env, [SUMMARY_FILE_VARIABLE]: summaryFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const held = [];
    const take = (chunk) => (lane.stream ? write(chunk.toString()) : held.push(chunk));
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code, signal) => {
      if (held.length > 0) write(`\n── ${lane.name}, run beside the others ──\n${Buffer.concat(held).toString()}`);
      let counts;
      try {
        counts = JSON.parse(readFileSync(summaryFile, 'utf8'));
      } catch {
        // No counts: the lane did not get as far as its report.
      }
      resolve({ lane, code: code ?? 1, signal, counts });
    });
  })));
  for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, stop);
  rmSync(dir, { recursive: true, force: true });
  let passed = 0, failed = 0, skipped = 0;
  for (const { lane, code, signal, counts } of results) {
    if (lane.script) {
      if (code !== 0) {
        write(`\n${lane.name} failed (${signal ?? `exit ${code}`}); see its report above\n`);
        failed++;
      }
      continue;
    }
    if (!counts) {
      write(`\n${lane.name} ended (${signal ?? `exit ${code}`}) without reporting its tests\n`);
      failed++;
      continue;
    }
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    // Failed without a failed test: vitest's own error (no file matched, an error outside the tests).
    if (code !== 0 && counts.failed === 0) write(`\n${lane.name} failed (exit ${code}) with no test failing; see its report above\n`);
  }
  write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  return { passed, failed, skipped, code: failed > 0 || results.some((r) => r.code !== 0) ? 1 : 0 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (args.length > 0) {
    const { typecheck } = await import(TYPECHECK);
    if ((await typecheck()) !== 0) process.exit(1);
    const child = spawn(process.execPath, [VITEST, 'run', ...args], { stdio: 'inherit' });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  } else {
    // Colours as the terminal would show them: the lanes write to pipes.
    const env = { ...process.env, ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}) };
    const { code } = await runLanes(LANES, { env });
    process.exit(code);
  }
}
