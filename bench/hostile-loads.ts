/**
 * `npm run bench -- --hostile-loads`: what files that ask the loader for a lot cost in time,
 * each against a named peer measured in the same run. The tests count the same files' work
 * exactly (load-budget bytes, allocations: test/gltf/limits.test.ts, fuzz.test.ts,
 * extensions/khr-animation-pointer.test.ts); the times, which a busy machine moves, live here.
 *
 * - A 100,000-node joint chain against the 10,000-node chain: about 10× when loading is linear
 *   in the chain (a quadratic step would make it about 100×).
 * - One accessor used by 2,000 primitives, samplers and morph targets against the same file
 *   with one user: what 1,999 more users cost when the accessor is read once.
 * - The mesh-weight pointer fan-out (4,001 nodes × 4,001 animations, refused at the budget)
 *   against `JSON.parse` of the same bytes: the refusal over reading the file's JSON at all.
 * - The fuzzer's cases (the suite's seed, the first N indices): the slowest mutated case,
 *   re-timed, against its unmutated source.
 *
 * Times are process CPU time (steadier than wall time on a shared machine), medians of
 * interleaved rounds. Writes bench/results/hostile-loads-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isGlb, parseGlb } from '../src/gltf/glb.ts';
import { loadGltf } from '../src/gltf/load.ts';
import { makeCase, runCase } from '../test/support/fuzz.ts';
import { fuzzSources } from '../test/support/fuzz-sources.ts';
import { jointChainFile, meshWeightFanOutFile, sharedAccessorFile } from '../test/support/hostile-files.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The fuzz suite's default seed (test/gltf/fuzz.test.ts). */
const FUZZ_SEED = 1;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Process CPU milliseconds of one call. */
async function cpuMs(f: () => unknown): Promise<number> {
  const c0 = process.cpuUsage();
  await f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/** Loads, refusals included (a GltfError is the expected end of some). */
const load = (bytes: Uint8Array) => () => loadGltf(bytes).catch(() => undefined);

interface Pair {
  readonly name: string;
  readonly peer: string;
  readonly ms: number;
  readonly peerMs: number;
  readonly ratio: number;
}

/** Median CPU ms of `subject` and `peer`, alternating which goes first each round. */
async function pair(name: string, subject: () => unknown, peer: string, peerRun: () => unknown, rounds: number): Promise<Pair> {
  await subject();
  await peerRun();
  const a: number[] = [], b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) { a.push(await cpuMs(subject)); b.push(await cpuMs(peerRun)); }
    else { b.push(await cpuMs(peerRun)); a.push(await cpuMs(subject)); }
  }
  const ms = median(a), peerMs = median(b);
  return { name, peer, ms, peerMs, ratio: ms / peerMs };
}

/** The JSON text of a GLB or .gltf: what loadGltf parses first. */
function jsonText(bytes: Uint8Array): string {
  return isGlb(bytes) ? JSON.stringify(parseGlb(bytes).json) : new TextDecoder().decode(bytes);
}

export async function runHostileLoadsBench({ quick }: { quick: boolean }): Promise<void> {
  const rounds = quick ? 3 : 9;
  const fuzzCases = quick ? 300 : 3000;
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const pairs: Pair[] = [];
  const chain = jointChainFile(100_000), chainTenth = jointChainFile(10_000);
  pairs.push(await pair('100,000-node joint chain', load(chain), '10,000-node joint chain', load(chainTenth), rounds));
  const shared = sharedAccessorFile(2000), sharedOnce = sharedAccessorFile(1);
  pairs.push(await pair('one accessor, 2,000 users', load(shared), 'one accessor, 1 user', load(sharedOnce), rounds));
  const fanOut = meshWeightFanOutFile(4000);
  const fanOutJson = jsonText(fanOut);
  pairs.push(await pair('mesh-weight pointers, 4,001 × 4,001 (refused)', load(fanOut), 'JSON.parse of the same file', () => JSON.parse(fanOutJson), rounds));

  // The fuzzer: every case once to warm up (the first cases would rank slowest for compiling
  // the loader), once timed, then the slowest few re-timed against their unmutated sources.
  const sources = await fuzzSources();
  for (let index = 0; index < fuzzCases; index++) await runCase(makeCase(sources, FUZZ_SEED, index).bytes);
  const timed: { index: number; source: number; ms: number; label: string }[] = [];
  for (let index = 0; index < fuzzCases; index++) {
    const c = makeCase(sources, FUZZ_SEED, index);
    const outcome = await runCase(c.bytes);
    timed.push({ index, source: sources.findIndex((s) => s.name === c.asset), ms: outcome.cpuMs, label: `${c.asset}: ${c.label}`.slice(0, 70) });
  }
  timed.sort((x, y) => y.ms - x.ms);
  const fuzz: (Pair & { index: number })[] = [];
  for (const t of timed.slice(0, 5)) {
    const c = makeCase(sources, FUZZ_SEED, t.index);
    const source = sources[t.source];
    fuzz.push({ ...await pair(`fuzz case ${t.index} (${t.label})`, load(c.bytes), `${source.name} unmutated`, load(source.bytes), rounds), index: t.index });
  }
  fuzz.sort((x, y) => y.ratio - x.ratio);

  console.log(`hostile loads, median process CPU ms of ${rounds} interleaved rounds (2-vCPU VM: only the ratios compare):`);
  console.table([...pairs, ...fuzz].map((p) => ({ file: p.name, ms: p.ms.toFixed(1), peer: p.peer, 'peer ms': p.peerMs.toFixed(1), ratio: `${p.ratio.toFixed(1)}×` })));
  const out = resolve(HERE, quick ? 'results/hostile-loads-quick.json.tmp' : 'results/hostile-loads-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    loadAverage: loadavg()[0],
    quick,
    rounds,
    fuzzCasesTimed: fuzzCases,
    pairs,
    slowestFuzzCases: fuzz,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
}
