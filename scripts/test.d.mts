// Types of scripts/test.mjs for the TypeScript that imports it (test/scripts/test-lanes.test.ts).

/** A vitest process of `npm test`: its arguments, and whether its report streams or is held to its end. */
export interface Lane {
  name: string;
  args: string[];
  stream: boolean;
}

/** The environment variable naming where a lane's summary reporter writes its counts. */
export const SUMMARY_FILE_VARIABLE: string;

/** `npm test`'s lanes. */
export const LANES: Lane[];

/** Runs the lanes side by side; resolves with the counts of all of them and the exit status. */
export function runLanes(
  lanes: Lane[],
  options?: { write?: (text: string) => void; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<{ passed: number; failed: number; skipped: number; code: number }>;
