import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadBudget } from '../../src/gltf/budget.ts';
import { bakeProblem, ktx2Problem, loadCase, makeCase, modelProblems, Rng, sourceOf, trackAllocations, Watchdog } from '../support/fuzz.ts';
import { fuzzSources, type FuzzSourceWithKtx2 } from '../support/fuzz-sources.ts';

/**
 * Every mutated copy of every shared asset must either load into a sane model or be
 * refused with a GltfError — never another exception, never a hang, never more allocated
 * than its load budget allows (typed arrays and ArrayBuffers counted). CI runs 12,000 cases;
 * `FUZZ_CASES=200000 npm run fuzz` runs more. Other knobs: FUZZ_SEED (default 1),
 * FUZZ_CASE (run that one case index and print it), FUZZ_DUMP=dir (write failing cases
 * there, to reproduce with `npm run --silent bake -- dir/case-N.glb`).
 */
const CASES = Number(process.env.FUZZ_CASES ?? 12_000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
/** Wall time after which a case counts as a hang and the run is killed (see Watchdog). */
const HANG_MS = 30_000;
/** Bake one in this many loaded models (bake costs about what a load does). */
const BAKE_EVERY = 4;

interface Failure {
  readonly index: number;
  readonly mutation: string;
  readonly problem: string;
}

/** The case that allocated the largest share of its load budget's limit. */
interface Largest {
  readonly share: number;
  readonly bytes: number;
  readonly index: number;
  readonly label: string;
}

async function fuzz(sources: readonly FuzzSourceWithKtx2[], source: number, watchdog: Watchdog) {
  const failures: Failure[] = [];
  const tally = { cases: 0, loaded: 0, refused: 0, baked: 0, transcoded: 0 };
  let largest: Largest = { share: 0, bytes: 0, index: -1, label: '' };
  let loadedSinceBake = 0;
  for (let index = 0; index < CASES; index++) {
    if (sourceOf(sources, index) !== source) continue;
    tally.cases++;
    const c = makeCase(sources, SEED, index);
    watchdog.start(index);
    // Counted, not timed (what a case costs in time is `npm run bench -- --hostile-loads`): a load
    // allocates no more than its budget allows (budget.ts), whatever the file asks for.
    const allocations = await trackAllocations(() => loadCase(c.bytes));
    const outcome = allocations.result!;
    const label = `${c.asset}: ${c.label}`;
    const limit = LoadBudget.forInput(c.bytes.byteLength).limit;
    if (allocations.totalBytes / limit > largest.share) largest = { share: allocations.totalBytes / limit, bytes: allocations.totalBytes, index, label };
    const fail = (problem: string) => {
      failures.push({ index, mutation: c.label, problem });
      if (process.env.FUZZ_DUMP) {
        mkdirSync(process.env.FUZZ_DUMP, { recursive: true });
        writeFileSync(join(process.env.FUZZ_DUMP, `case-${index}.${c.bytes[0] === 0x67 ? 'glb' : 'gltf'}`), c.bytes);
      }
    };
    if (allocations.totalBytes > limit) fail(`allocated ${allocations.totalBytes} bytes, over its load budget's limit of ${limit}`);
    if (outcome.kind === 'crashed') {
      const e = outcome.error as Error;
      fail(`${e?.name ?? typeof e}: ${e?.message ?? String(e)}\n${e?.stack?.split('\n').slice(1, 4).join('\n') ?? ''}`);
    } else if (outcome.kind === 'refused') {
      tally.refused++;
      if (!outcome.error.message.startsWith(outcome.error.path)) fail(`GltfError message does not start with its path: ${outcome.error.message}`);
    } else {
      tally.loaded++;
      const problems = modelProblems(outcome.model);
      if (problems.length > 0) fail(`loaded an insane model: ${problems.slice(0, 3).join('; ')}`);
      if (sources[source].ktx2) {
        tally.transcoded++;
        const problem = await ktx2Problem(outcome.model, new Rng(SEED ^ 0x2545f491, index));
        if (problem) fail(problem);
      }
      if (++loadedSinceBake >= BAKE_EVERY) {
        loadedSinceBake = 0;
        tally.baked++;
        const problem = bakeProblem(outcome.model, new Rng(SEED ^ 0x5bd1e995, index));
        if (problem) fail(problem);
      }
    }
    watchdog.done();
    if (failures.length >= 20) break;
  }
  return { failures, tally, largest };
}

/** The shared assets, then variants with compressed streams, material variants and KTX2 images (fuzz-sources.ts). */
const sources = await fuzzSources();

describe('fuzzing the loader with mutated shared assets', () => {
  if (ONLY !== undefined) {
    it(`case ${ONLY}`, async () => {
      const c = makeCase(sources, SEED, ONLY);
      const outcome = await loadCase(c.bytes);
      console.log(`case ${ONLY} (${c.asset}): ${c.label}\n→ ${outcome.kind}: ${outcome.kind === 'loaded' ? `${outcome.model.warnings.length} warning(s)` : String(outcome.error)}`);
      if (outcome.kind === 'crashed') throw outcome.error;
      if (outcome.kind === 'loaded') expect(modelProblems(outcome.model)).toEqual([]);
    });
    return;
  }

  // One hang guard for the file (a thread: starting one per test cost ~40 ms of CPU each); it
  // watches only while a case runs.
  let watchdog: Watchdog;
  beforeAll(() => { watchdog = new Watchdog(HANG_MS); });
  afterAll(async () => { await watchdog?.stop(); });

  // One test per asset, so a failure names its asset and vitest reports each one's time.
  sources.forEach((source, s) => {
    it(`${source.name}: mutated copies load sanely or fail with a GltfError`, async () => {
      const { failures, tally, largest } = await fuzz(sources, s, watchdog);
      console.log(
        `fuzz ${source.name}: ${tally.cases} cases — ${tally.loaded} loaded (${tally.baked} baked${tally.transcoded ? `, ${tally.transcoded} transcoded` : ''}), ${tally.refused} refused; ` +
          `largest allocation ${(largest.bytes / 1024).toFixed(0)} KiB, ${(100 * largest.share).toFixed(0)}% of its budget, case ${largest.index}: ${largest.label.slice(0, 100)}`,
      );
      expect(failures).toEqual([]);
    }, 120_000 + CASES * 20);
  });
});
