// Types of scripts/api-reference-server.mjs for the TypeScript that imports it (vite.config.ts, test/scripts/api-reference-server.test.ts).
import type { Plugin } from 'vite';

/** What the reference is made from: every file of `folders` and each of `files`, from the checkout's root. */
export const REFERENCE_SOURCES: { readonly folders: readonly string[]; readonly files: readonly string[] };

/** The key of the reference made from the tree at `root`: a hash of the names and bytes of REFERENCE_SOURCES. */
export function referenceKey(root?: string): string;

/** Makes the reference of the tree at `root` into `out` as `npm run build` does; resolves with its problems. */
export function makeReference(root: string, out: string): Promise<string[]>;

/** A Vite plugin serving the reference at `path` (`/api/`) on the dev server, made on the first request into `cacheDir`/KEY. */
export function servedApiReference(options: {
  path: string;
  root?: string;
  cacheDir?: string;
  make?: (root: string, out: string) => Promise<string[]>;
}): Plugin;
