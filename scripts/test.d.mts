// Types of scripts/test.mjs for the TypeScript that imports it (test/scripts/test-lanes.test.ts).

/**
 * A process of `npm test`: vitest's arguments, or a Node script judged by its exit status (a
 * check with no tests to count); and whether its report streams or is held to its end.
 */
export type Lane = { name: string; stream: boolean } & ({ args: string[]; script?: undefined } | { script: string; args?: undefined });

/** The environment variable naming where a lane's summary reporter writes its counts. */
export const SUMMARY_FILE_VARIABLE: string;

/** `npm test`'s lanes. */
export const LANES: Lane[];

/** Runs the lanes side by side; resolves with the counts of all of them and the exit status. */
export function runLanes(
  lanes: Lane[],
  options?: { write?: (text: string) => void; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<{ passed: number; failed: number; skipped: number; code: number }>;
