// Types of scripts/typecheck.mjs for the TypeScript that imports it (test/demo/imports.test.ts, test/examples/imports.test.ts).

/** A TypeScript project the type check runs, and the one whose declarations it needs first. */
export interface Check {
  project: string;
  after?: string;
}

/** `npm run typecheck`'s projects. */
export const CHECKS: Check[];

/** Runs every check; resolves with the exit status (0 when all passed). */
export function typecheck(options?: { write?: (text: string) => void }): Promise<number>;
