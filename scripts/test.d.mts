// Types of scripts/test.mjs for the TypeScript that imports it (test/scripts/test-lanes.test.ts, vite.config.ts).

/**
 * A process of `npm test`: vitest runs one after another (each run's arguments), or a Node
 * script judged by its exit status (a check with no tests to count); and whether its report
 * streams or is held to its end.
 */
export type Lane = { name: string; stream: boolean } & ({ runs: string[][]; script?: undefined } | { script: string; runs?: undefined });

/** The environment variable naming where a lane's summary reporter writes its counts. */
export const SUMMARY_FILE_VARIABLE: string;

/** The environment variable, set for `npm test`'s lanes, under which the config has the 'browser-late' project. */
export const LANES_VARIABLE: string;

/** The browser files `npm test` runs in the second lane, after the gpu project (the 'browser-late' project). */
export const LATE_BROWSER_TESTS: string[];

/** `npm test`'s lanes. */
export const LANES: Lane[];

/** Runs the lanes side by side; resolves with the counts of all of them and the exit status. */
export function runLanes(
  lanes: Lane[],
  options?: { write?: (text: string) => void; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<{ passed: number; failed: number; skipped: number; code: number }>;
