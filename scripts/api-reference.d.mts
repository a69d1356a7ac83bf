// Types of scripts/api-reference.mjs for the TypeScript that imports it (test/scripts/api-reference.test.ts).

/** The source file of each package subpath with code, read from package.json `exports`. */
export function entrySources(): string[];

/** Converts and validates the API reference (and renders it into `out` when given); returns the problems, one line each. */
export function apiReference(options?: { out?: string; extraEntries?: string[] }): Promise<string[]>;
