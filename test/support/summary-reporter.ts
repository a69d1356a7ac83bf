import type { Reporter, TestModule } from 'vitest/node';

import { writeFileSync } from 'node:fs';

/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own
 * report, so CI logs state the count in a form any tool can read. Where `npm test` runs the
 * suite as several vitest processes (scripts/test.mjs), each writes its counts as JSON to the
 * file VITEST_SUMMARY_FILE names instead, and the script prints the line for all of them.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0, failed = 0, skipped = 0;
    for (const module of testModules) {
      const failedBefore = failed;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load, or whose hooks failed, must count as a failure
      // even when none of its tests did.
      if (module.state() === 'failed' && failed === failedBefore) failed++;
    }
    const summaryFile = process.env.VITEST_SUMMARY_FILE;
    if (summaryFile) writeFileSync(summaryFile, JSON.stringify({ passed, failed, skipped }));
    else process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
