// What the two content-keyed build caches share: the test pages' (test/support/built-pages.ts) and
// the dev server's documentation (scripts/api-reference-server.mjs). Each keeps one build per key, a
// hash of the files it is made from, in a folder of its own under a cache folder.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A build of another key older than this is for a tree long gone (a build of today's tree is younger). */
export const OLD_BUILD_MS = 60 * 60_000;

/** Every file under `folder` (from `root`), as sorted '/'-separated paths from `root`: the order a key hashes them in. */
export function filesUnder(root, folder) {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** Removes the builds in `cache` other than `kept` made over OLD_BUILD_MS ago, so that editing does not fill the disk. */
export function removeOldBuilds(cache, kept) {
  for (const entry of readdirSync(cache, { withFileTypes: true })) {
    const path = join(cache, entry.name);
    if (path !== kept && entry.isDirectory() && Date.now() - statSync(path).mtimeMs > OLD_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
}
