import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assetPath, sharedAssets } from '../support/assets.ts';
import { compressFile } from '../support/compressed.ts';
import { encodeKtx2, gradientImage, ktx2Quad } from '../support/ktx2.ts';
import { encodePng } from '../support/png.ts';
import { COLOUR_VARIANTS, variantFileBytes } from '../support/variant-files.ts';
import {
  bakeProblem, fuzzSourceOf, GcPauses, ktx2Problem, loadFuzzSources, makeCase, modelProblems, Rng, runCase, sourceOf, Watchdog, type FuzzSource,
} from '../support/fuzz.ts';

/**
 * Every mutated copy of every shared asset must either load into a sane model or be
 * refused with a GltfError — never another exception, never a hang. CI runs 12,000 cases;
 * `FUZZ_CASES=200000 npm run fuzz` runs more. Other knobs: FUZZ_SEED (default 1),
 * FUZZ_CASE (run that one case index and print it), FUZZ_DUMP=dir (write failing cases
 * there, to reproduce with `npm run --silent bake -- dir/case-N.glb`).
 */
const CASES = Number(process.env.FUZZ_CASES ?? 12_000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
/**
 * A case slower than this fails. Measured in CPU time of this process, less the garbage
 * collections that ran during it (they collect what every earlier case left), so a busy
 * machine or a full GC does not make a fast case look slow.
 */
const CASE_LIMIT_MS = 1000;
/** Cases over this are judged once their GC pauses have been reported. */
const SLOW_MS = 50;
/** Wall time after which a case counts as a hang and the run is killed (see Watchdog). */
const HANG_MS = 30_000;
/** Bake one in this many loaded models (bake costs about what a load does). */
const BAKE_EVERY = 4;

interface Failure {
  readonly index: number;
  readonly mutation: string;
  readonly problem: string;
}

interface Slowest {
  /** CPU ms net of GC. */
  readonly ms: number;
  readonly wallMs: number;
  readonly index: number;
  readonly label: string;
}

async function fuzz(sources: (FuzzSource & { readonly ktx2?: boolean })[], source: number) {
  const failures: Failure[] = [];
  const tally = { cases: 0, loaded: 0, refused: 0, baked: 0, transcoded: 0 };
  let slowest: Slowest = { ms: 0, wallMs: 0, index: -1, label: '' };
  let loadedSinceBake = 0;
  const gc = new GcPauses();
  const watchdog = new Watchdog(HANG_MS);
  let slow: { index: number; cpuMs: number; start: number; end: number; label: string }[] = [];
  const judgeSlow = async () => {
    await gc.settle();
    for (const s of slow) {
      const net = s.cpuMs - gc.within(s.start, s.end);
      if (net > slowest.ms) slowest = { ms: net, wallMs: s.end - s.start, index: s.index, label: s.label };
      if (net > CASE_LIMIT_MS) failures.push({ index: s.index, mutation: s.label, problem: `took ${net.toFixed(0)} ms of CPU (not counting GC)` });
    }
    slow = [];
    gc.forgetBefore(performance.now() - 60_000);
  };
  for (let index = 0; index < CASES; index++) {
    if (sourceOf(sources, index) !== source) continue;
    tally.cases++;
    const c = makeCase(sources, SEED, index);
    watchdog.start(index);
    const outcome = await runCase(c.bytes);
    const label = `${c.asset}: ${c.label}`;
    if (outcome.cpuMs > SLOW_MS) slow.push({ index, cpuMs: outcome.cpuMs, start: outcome.start, end: outcome.end, label });
    else if (outcome.cpuMs > slowest.ms) slowest = { ms: outcome.cpuMs, wallMs: outcome.ms, index, label };
    if (slow.length >= 50) await judgeSlow();
    const fail = (problem: string) => {
      failures.push({ index, mutation: c.label, problem });
      if (process.env.FUZZ_DUMP) {
        mkdirSync(process.env.FUZZ_DUMP, { recursive: true });
        writeFileSync(join(process.env.FUZZ_DUMP, `case-${index}.${c.bytes[0] === 0x67 ? 'glb' : 'gltf'}`), c.bytes);
      }
    };
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
  await judgeSlow();
  gc.stop();
  await watchdog.stop();
  return { failures, tally, slowest };
}

/**
 * Besides the assets as they are, one meshopt-compressed and quantized variant (made with
 * glTF-Transform, as compressed.ts does for every test): its byte mutations land in
 * compressed streams (ATTRIBUTES with the OCTAHEDRAL, QUATERNION and EXPONENTIAL filters,
 * TRIANGLES), its JSON mutations in the extension objects and the fallback buffer.
 */
const MESHOPT_SOURCE = fuzzSourceOf('RiggedFigure (meshopt)', await compressFile(assetPath('RiggedFigure'), 'meshopt'));

// And the Fox as glTF-Transform's `draco()` writes it: bit flips land in its Draco stream.
const DRACO_SOURCE = fuzzSourceOf('Fox (Draco)', await compressFile(assetPath('Fox'), 'draco'));

/** Two quads with KHR_materials_variants: JSON mutations land in the variant names and mappings. */
const VARIANTS_SOURCE = fuzzSourceOf('variants quads', variantFileBytes(COLOUR_VARIANTS));

/**
 * KHR_texture_basisu: a quad whose base colour is a KTX2 image, ETC1S (BasisLZ) alone and
 * UASTC with a PNG fallback; bit flips land in the KTX2 streams, and every model that loads
 * has its KTX2 images transcoded as an upload would (ktx2Problem).
 */
const KTX2_IMAGE = gradientImage(32, 32);
const KTX2_SOURCES = [
  { ...fuzzSourceOf('KTX2 quad (ETC1S)', ktx2Quad(await encodeKtx2(KTX2_IMAGE, { uastc: false }), undefined)), ktx2: true },
  { ...fuzzSourceOf('KTX2 quad (UASTC + PNG)', ktx2Quad(await encodeKtx2(KTX2_IMAGE, { uastc: true }), encodePng(32, 32, KTX2_IMAGE.data))), ktx2: true },
];

describe('fuzzing the loader with mutated shared assets', () => {
  const sources: (FuzzSource & { readonly ktx2?: boolean })[] = [...loadFuzzSources(sharedAssets()), MESHOPT_SOURCE, DRACO_SOURCE, VARIANTS_SOURCE, ...KTX2_SOURCES];

  if (ONLY !== undefined) {
    it(`case ${ONLY}`, async () => {
      const c = makeCase(sources, SEED, ONLY);
      const outcome = await runCase(c.bytes);
      console.log(`case ${ONLY} (${c.asset}): ${c.label}\n→ ${outcome.kind}: ${outcome.kind === 'loaded' ? `${outcome.model.warnings.length} warning(s)` : String(outcome.error)}`);
      if (outcome.kind === 'crashed') throw outcome.error;
      if (outcome.kind === 'loaded') expect(modelProblems(outcome.model)).toEqual([]);
    });
    return;
  }

  // One test per asset, so a failure names its asset and vitest reports each one's time.
  sources.forEach((source, s) => {
    it(`${source.name}: mutated copies load sanely or fail with a GltfError`, async () => {
      const start = performance.now();
      const { failures, tally, slowest } = await fuzz(sources, s);
      const seconds = ((performance.now() - start) / 1000).toFixed(1);
      console.log(
        `fuzz ${source.name}: ${tally.cases} cases in ${seconds} s — ${tally.loaded} loaded (${tally.baked} baked${tally.transcoded ? `, ${tally.transcoded} transcoded` : ''}), ${tally.refused} refused; ` +
          `slowest ${slowest.ms.toFixed(1)} ms CPU (${slowest.wallMs.toFixed(1)} ms wall), case ${slowest.index}: ${slowest.label.slice(0, 100)}`,
      );
      expect(failures).toEqual([]);
      expect(slowest.ms).toBeLessThan(CASE_LIMIT_MS);
    }, 120_000 + CASES * 20);
  });
});
