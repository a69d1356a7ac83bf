// `npm run pictures`: the README's pictures of the demo (public/demo.png, public/demo-embedded.png)
// drawn again. They are the demo's browser test's own screenshots (test/browser/demo.test.ts, its
// 'shows the built-in character (home)' test: headless Chromium, WebGPU on SwiftShader, 1400×900,
// every viewer paused at a set moment), so this runs that one test (CI=true: no skipping) and copies
// what it wrote to test-artifacts/ into public/ as it is (re-encoded by pngjs, opaque RGB at deflate
// level 9, they came out 13% and 47% larger than Chromium's own PNGs). Rendering varies between
// machines and versions, so no test compares pixels with these files; test/docs.test.ts checks that
// the README shows each, and that each stays under PICTURE_MAX_BYTES.
import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the tests write their screenshots (test/support/png.ts's ARTIFACTS_DIR). */
const ARTIFACTS = join(ROOT, 'test-artifacts');
/** The test that takes them: its file, and a pattern of its name for vitest's -t (a regular expression). */
const TEST_FILE = 'test/browser/demo.test.ts';
const TEST_NAME = 'shows the built-in character \\(home\\)';

/** Each README picture: the screenshot the demo test writes, and the file the README shows. */
export const README_PICTURES = [
  { artifact: 'demo.png', file: 'public/demo.png' },
  { artifact: 'demo-embedded.png', file: 'public/demo-embedded.png' },
];

/** The most a README picture may weigh, bytes: each is downloaded by whoever opens the front page. */
export const PICTURE_MAX_BYTES = 200_000;

function main() {
  const started = Date.now();
  const vitest = spawnSync('npx', ['vitest', 'run', TEST_FILE, '-t', TEST_NAME], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
  if (vitest.status !== 0) {
    console.error(`readme-pictures: the demo test failed (exit ${vitest.status}); public/ is left as it was`);
    return 1;
  }
  // A pattern that matches no test passes too, with everything skipped: the screenshots must be this run's.
  const stale = README_PICTURES.filter(({ artifact }) => !(statSync(join(ARTIFACTS, artifact), { throwIfNoEntry: false })?.mtimeMs >= started));
  if (stale.length > 0) {
    console.error(`readme-pictures: the demo test did not write ${stale.map((p) => p.artifact).join(', ')}; public/ is left as it was`);
    return 1;
  }
  for (const { artifact, file } of README_PICTURES) {
    const before = statSync(join(ROOT, file), { throwIfNoEntry: false })?.size;
    copyFileSync(join(ARTIFACTS, artifact), join(ROOT, file));
    const size = statSync(join(ROOT, file)).size;
    console.log(`${file}: ${size} bytes (was ${before ?? 'absent'})`);
    if (size > PICTURE_MAX_BYTES) console.warn(`readme-pictures: ${file} is over ${PICTURE_MAX_BYTES} bytes (test/docs.test.ts will fail)`);
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
