// Types of scripts/keyed-builds.mjs for the TypeScript that imports it (test/support/built-pages.ts).

/** A build of another key older than this is for a tree long gone. */
export const OLD_BUILD_MS: number;

/** Every file under `folder` (from `root`), as sorted '/'-separated paths from `root`. */
export function filesUnder(root: string, folder: string): string[];

/** Removes the builds in `cache` other than `kept` made over OLD_BUILD_MS ago. */
export function removeOldBuilds(cache: string, kept: string): void;
