/**
 * `npm run bench`: per-frame pose evaluation of 1–1000 characters, ours vs three.js on the
 * same glTF data in the same process, after checking both produce the same palettes.
 * Writes bench/results/latest.json. Then the GPU section (bench/gpu/gpu-bench.ts): frames
 * of a Fox crowd, our Renderer vs three.js's WebGPURenderer in headless Chromium, written
 * to bench/results/gpu-latest.json. `--no-gpu` skips it, `--gpu-only` runs only it.
 * Sections run on their own: `--skin-paths` (bench/gpu/skin-paths.ts) and `--skinned-bounds`
 * (bench/skinned-bounds.ts: how tight the skinned bounds are and what they cost), `--retarget`
 * (bench/retarget.ts: retargeting once, and a retargeted clip's frame against the native one),
 * `--raycast` (bench/raycast.ts: ray casts against the skinned surface vs three.js), `--load-only`
 * (load + first frame of every shared asset and its Draco, meshopt, quantized and KTX2
 * variants against three.js's GLTFLoader; bench/results/gpu-load-latest.json),
 * `--environment` (bench/environment.ts: prefiltering a 2k×1k .hdr; also after the GPU section),
 * `--crowd-evaluator` (bench/crowd-evaluator.ts: the GPU pose evaluator against the CPU batch),
 * `--crowd` (bench/gpu/crowd-bench.ts: 1,000–100,000 characters, CPU batch vs GPU evaluator vs three.js),
 * `--hostile-loads` (bench/hostile-loads.ts: files that ask the loader for a lot, each against a peer),
 * `--pbr-extensions` (bench/gpu/pbr-extensions.ts: each PBR material extension's frame cost against the plain material),
 * `--skinning-methods` (bench/skinning-methods.ts: centre-of-rotation precomputation, its worker,
 * and the per-frame cost of linear, dual-quaternion and centre-of-rotation skinning side by side),
 * `--vrm` (bench/vrm.ts: VRM spring bones against three-vrm's vrm.update, and a crowd of VRM avatars),
 * `--first-load` (bench/first-load.ts: bytes and time before the first frame of a page with one
 * model, <skinned-mesh-viewer> against <model-viewer> 4.4),
 * `--mtoon` (bench/gpu/mtoon-bench.ts: MToon frames with and without outlines against PBR frames of the same avatar).
 *
 * Heap growth needs `global.gc`: without --expose-gc the script re-runs itself under
 * `node --expose-gc` with the same loader flags (tsx's).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, arch, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadGltfFile } from '../src/cli/load-file.ts';
import { assetPath } from '../test/support/assets.ts';
import { loadThreeGltf } from '../test/support/three-node.ts';
import { Crowd } from '../src/anim/crowd.ts';
import { checkPalettes, FRAME_SECONDS, OurCrowd, phaseOf, ThreeCrowd, type PaletteCheck } from './pose-bench.ts';
import { runCrowdBench } from './gpu/crowd-bench.ts';
import { runGpuBench } from './gpu/gpu-bench.ts';
import { runSkinPathsBench } from './gpu/skin-paths.ts';
import { runPbrExtensionsBench } from './gpu/pbr-extensions.ts';
import { runSkinnedBoundsBench } from './skinned-bounds.ts';
import { runRetargetBench } from './retarget.ts';
import { runRaycastBench } from './raycast.ts';
import { runEnvironmentBench } from './environment.ts';
import { runCrowdEvaluatorBench } from './crowd-evaluator.ts';
import { runHostileLoadsBench } from './hostile-loads.ts';
import { runSkinningMethodsBench } from './skinning-methods.ts';
import { runVrmBench } from './vrm.ts';
import { runFirstLoadBench } from './first-load.ts';
import { runMToonBench } from './gpu/mtoon-bench.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (typeof gc !== 'function' && process.env.POSE_BENCH_CHILD !== '1') {
  const script = fileURLToPath(import.meta.url);
  const loader = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];
  const child = spawnSync(process.execPath, ['--expose-gc', ...loader, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, POSE_BENCH_CHILD: '1' },
  });
  process.exit(child.status ?? 1);
}

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = [
  { asset: 'Fox', clip: 1 }, // "Walk"
  { asset: 'CesiumMan', clip: 0 },
];
/** `--quick`: a smoke run (fewer characters, short batches), not for quoting numbers. */
const QUICK = process.argv.includes('--quick');
if (process.argv.includes('--skin-paths')) {
  await runSkinPathsBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--pbr-extensions')) {
  await runPbrExtensionsBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--crowd-evaluator')) {
  await runCrowdEvaluatorBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--crowd')) {
  const list = (flag: string) => process.argv.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3).split(',');
  await runCrowdBench({ quick: QUICK, counts: list('counts')?.map(Number), assets: list('assets'), view: list('view')?.[0] as 'grid' | 'street' | undefined });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--skinned-bounds')) {
  await runSkinnedBoundsBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--retarget')) {
  await runRetargetBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--skinning-methods')) {
  await runSkinningMethodsBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--vrm')) {
  await runVrmBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--mtoon')) {
  await runMToonBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--hostile-loads')) {
  await runHostileLoadsBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--raycast')) {
  await runRaycastBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--load-only')) {
  await runGpuBench({ quick: QUICK, loadOnly: true });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--first-load')) {
  await runFirstLoadBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--environment')) {
  await runEnvironmentBench({ quick: QUICK });
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes('--gpu-only')) {
  await runGpuBench({ quick: QUICK, culling: !process.argv.includes('--no-culling') });
  process.exit(process.exitCode ?? 0);
}
const COUNTS = QUICK ? [1, 10] : [1, 10, 100, 500, 1000];
const PALETTE_TOLERANCE = 1e-4;
/** Targets from the issue. */
const TARGET_NS_PER_JOINT = 60;
const targetRatio = (characters: number): number => (characters >= 100 ? 30 : 10);

const WARMUP_MS = QUICK ? 50 : 300;
const BATCH_MS = QUICK ? 20 : 150;
const ROUNDS = QUICK ? 3 : 9;
const HEAP_MS = QUICK ? 30 : 150;

// ---------------------------------------------------------------------------- harness

interface Runner {
  /** Runs `frames` frames, continuing the runner's own playback. */
  run(frames: number): void;
}

function oursRunner(crowd: OurCrowd): Runner {
  let frame = 0;
  return {
    run(frames) {
      const end = frame + frames;
      for (; frame < end; frame++) crowd.frame(frame);
    },
  };
}

/** The `Crowd` API on the same characters: its clocks and root motion on top of the batch (mesh-relative palettes). */
function crowdRunner(crowd: Crowd): Runner {
  return {
    run(frames) {
      for (let f = 0; f < frames; f++) crowd.update(FRAME_SECONDS);
    },
  };
}

function threeRunner(crowd: ThreeCrowd): Runner {
  return {
    run(frames) {
      for (let f = 0; f < frames; f++) crowd.frame(FRAME_SECONDS);
    },
  };
}

function nsPerFrame(r: Runner, frames: number): number {
  const t0 = process.hrtime.bigint();
  r.run(frames);
  return Number(process.hrtime.bigint() - t0) / frames;
}

/**
 * Wall-clock and process CPU time per frame of one batch. On a shared machine the CPU
 * time is the steadier figure (time slices lost to other processes do not count), but it
 * also counts V8's helper threads (concurrent GC), which only the allocating side uses.
 */
function timesPerFrame(r: Runner, frames: number): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  r.run(frames);
  const wall = Number(process.hrtime.bigint() - t0) / frames;
  const c1 = process.cpuUsage(c0);
  return { wall, cpu: ((c1.user + c1.system) * 1000) / frames };
}

/** Runs for about `ms`, returning the frame count that took about `ms`. */
function warmUp(r: Runner, ms: number): number {
  let frames = 1, total = 0, ns = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    ns = nsPerFrame(r, frames);
    total += frames;
    frames = Math.min(frames * 2, Math.max(1, Math.ceil((ms * 1e6) / 4 / ns)));
  }
  return Math.max(1, Math.round(total > 0 ? (BATCH_MS * 1e6) / ns : 1));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const gcTimes: number[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcTimes.push(e.startTime);
});
gcObserver.observe({ entryTypes: ['gc'] });
const flushObserver = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

interface HeapResult {
  frames: number;
  /** heapUsed change over the frames with no collection in between: allocation per frame. */
  bytesPerFrame: number;
  /** After a full collection at both ends: what the frames left alive, per frame. */
  retainedBytesPerFrame: number;
  /** A collection ran inside the window, so bytesPerFrame undercounts. */
  gcInWindow: boolean;
}

/** heapUsed change caused by reading heapUsed twice (the result objects), to subtract. */
function measurementOverhead(): number {
  const collect = gc!;
  collect();
  const a = process.memoryUsage().heapUsed;
  const b = process.memoryUsage().heapUsed;
  return b - a;
}

/**
 * Heap growth over `frames` frames with no collection in between, i.e. bytes allocated
 * per frame. A scavenge inside the window would hide garbage, so the window shrinks
 * (allocation is per frame, so fewer frames still measure it) until none runs. Of two
 * windows without one, the smaller growth counts: an allocation made every frame shows in
 * both, while V8 compiling or re-optimising a function once lands in one window only.
 */
async function measureHeap(r: Runner, frames: number): Promise<HeapResult> {
  const collect = gc!;
  const overhead = measurementOverhead();
  let result: HeapResult | undefined;
  let clean: HeapResult | undefined;
  for (let attempt = 0, cleanWindows = 0; attempt < 6 && cleanWindows < 2; attempt++) {
    collect(); collect();
    await flushObserver();
    const w0 = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    r.run(frames);
    const h1 = process.memoryUsage().heapUsed;
    const w1 = performance.now();
    collect(); collect();
    const h2 = process.memoryUsage().heapUsed;
    await flushObserver();
    const gcInWindow = gcTimes.some((t) => t >= w0 && t <= w1);
    result = {
      frames,
      bytesPerFrame: (h1 - h0 - overhead) / frames,
      retainedBytesPerFrame: (h2 - h0 - overhead) / frames,
      gcInWindow,
    };
    if (!gcInWindow || frames === 1) {
      cleanWindows++;
      if (!clean || result.bytesPerFrame < clean.bytesPerFrame) clean = result;
    } else {
      frames = Math.max(1, Math.floor(frames / 8));
    }
  }
  return clean ?? result!;
}

// ---------------------------------------------------------------------------- main

interface Timing {
  nsPerFrame: number;
  nsPerJoint: number;
  cpuNsPerJoint: number;
}

interface Row {
  asset: string;
  clip: string;
  characters: number;
  jointsPerCharacter: number;
  /** `ours` ran on the WebAssembly kernel. */
  accelerated: boolean;
  framesPerBatch: { ours: number; three: number };
  rounds: number;
  /** Medians of wall-clock time; `cpuNsPerJoint` the median of process CPU time. */
  ours: Timing;
  /** The same batch on the JS jobs (no WebAssembly): the fallback path. */
  oursJs: Timing;
  /** `Crowd.update` of the same characters (the crowd API on the same batch path). */
  crowd: Timing;
  three: Timing;
  /** three/ours of the CPU-time medians. */
  cpuRatio: number;
  /** 1-minute load average (all cores) when the row was measured. */
  loadAverage: number;
  ratio: number;
  heap: { ours: HeapResult; three: HeapResult };
  targets: { nsPerJoint: boolean; ratio: boolean; ratioTarget: number; zeroHeap: boolean };
}

const cpu = cpus();
const machine = {
  cpu: cpu[0]?.model ?? 'unknown',
  cores: cpu.length,
  node: process.version,
  v8: process.versions.v8,
  platform: `${platform()} ${arch()}`,
  memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  exposeGc: typeof gc === 'function',
  /** 1, 5 and 15-minute load averages at the start: other processes share these cores. */
  loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
};
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, node ${machine.node} (V8 ${machine.v8}), ${machine.platform}, load average ${machine.loadAverage.join(' ')}`);
if (!machine.exposeGc) console.log('warning: global.gc unavailable, heap numbers include garbage not yet collected');

const checks: Record<string, PaletteCheck> = {};
const rows: Row[] = [];
const started = performance.now();

for (const c of CASES) {
  const path = assetPath(c.asset);
  const model = await loadGltfFile(path);
  const gltf = await loadThreeGltf(path);
  const clipName = model.animations[c.clip].name ?? String(c.clip);

  const check = checkPalettes(model, c.clip, gltf, PALETTE_TOLERANCE);
  checks[c.asset] = check;
  console.log(
    `palette check ${c.asset} "${clipName}": three boneMatrices vs our world palette at ${check.times.length} times, ` +
    `max relative error ${check.maxRelativeError.toExponential(2)} (${check.worst}) — ${check.pass ? 'PASS' : 'FAIL'} (≤ ${PALETTE_TOLERANCE})`,
  );
  if (!check.pass) process.exitCode = 1;

  for (const n of COUNTS) {
    const ours = new OurCrowd(model, c.clip, n);
    const oursJs = new OurCrowd(model, c.clip, n, { wasm: false });
    const crowd = new Crowd(model, n);
    for (let k = 0; k < n; k++) crowd.play(k, c.clip, phaseOf(k, model.animations[c.clip].duration));
    const three = new ThreeCrowd(gltf, gltf.animations[c.clip], n);
    const threeJoints = three.skeletons.reduce((sum, s) => sum + s.bones.length, 0) / n;
    if (threeJoints !== ours.joints) throw new Error(`${c.asset}: three has ${threeJoints} bones per character, we have ${ours.joints} joints`);
    const ro = oursRunner(ours), rj = oursRunner(oursJs), rc = crowdRunner(crowd), rt = threeRunner(three);
    const fo = warmUp(ro, WARMUP_MS);
    const fj = warmUp(rj, WARMUP_MS);
    const fc = warmUp(rc, WARMUP_MS);
    const ft = warmUp(rt, WARMUP_MS);
    // Interleaved rounds, so load from other processes hits all sides alike.
    const to: { wall: number; cpu: number }[] = [], tj: typeof to = [], tc: typeof to = [], tt: typeof to = [];
    for (let round = 0; round < ROUNDS; round++) {
      to.push(timesPerFrame(ro, fo));
      tj.push(timesPerFrame(rj, fj));
      tc.push(timesPerFrame(rc, fc));
      tt.push(timesPerFrame(rt, ft));
    }
    const joints = n * ours.joints;
    const timing = (ts: typeof to): Timing => {
      const wall = median(ts.map((t) => t.wall));
      return { nsPerFrame: wall, nsPerJoint: wall / joints, cpuNsPerJoint: median(ts.map((t) => t.cpu)) / joints };
    };
    const oursTiming = timing(to), oursJsTiming = timing(tj), threeTiming = timing(tt);
    const oursNs = oursTiming.nsPerFrame, threeNs = threeTiming.nsPerFrame;
    const heapOurs = await measureHeap(ro, Math.max(10, Math.round((HEAP_MS * 1e6) / oursNs)));
    const heapThree = await measureHeap(rt, Math.max(10, Math.round((HEAP_MS * 1e6) / threeNs)));
    const ratio = threeNs / oursNs;
    const row: Row = {
      asset: c.asset, clip: clipName, characters: n, jointsPerCharacter: ours.joints, accelerated: ours.batch.accelerated,
      framesPerBatch: { ours: fo, three: ft }, rounds: ROUNDS,
      ours: oursTiming, oursJs: oursJsTiming, crowd: timing(tc), three: threeTiming,
      ratio,
      cpuRatio: threeTiming.cpuNsPerJoint / oursTiming.cpuNsPerJoint,
      loadAverage: loadavg()[0],
      heap: { ours: heapOurs, three: heapThree },
      targets: {
        nsPerJoint: oursNs / joints <= TARGET_NS_PER_JOINT,
        ratio: ratio >= targetRatio(n),
        ratioTarget: targetRatio(n),
        // Any real allocation is ≥ 16 bytes (one HeapNumber); below 1 byte/frame is measurement noise.
        zeroHeap: heapOurs.bytesPerFrame < 1 && !heapOurs.gcInWindow,
      },
    };
    rows.push(row);
    console.log(
      `  ${c.asset} ×${n}: ours ${row.ours.nsPerJoint.toFixed(1)} ns/joint (JS path ${row.oursJs.nsPerJoint.toFixed(1)}, Crowd.update ${row.crowd.nsPerJoint.toFixed(1)}), three ${row.three.nsPerJoint.toFixed(1)} ns/joint; ` +
      `CPU time ${row.ours.cpuNsPerJoint.toFixed(1)} / ${row.three.cpuNsPerJoint.toFixed(1)}; load ${row.loadAverage.toFixed(1)}`,
    );
  }
}

const fmtHeap = (h: HeapResult): string => `${h.bytesPerFrame.toFixed(1)}${h.gcInWindow ? ' (GC in window)' : ''}`;
const mark = (ok: boolean): string => (ok ? 'ok' : 'MISS');
console.log('');
console.log(`Pose evaluation per frame (rest pose + sample + local→model + world palette), median of ${ROUNDS} batches of ~${BATCH_MS} ms each side.`);
console.log(`ours: updateInstanceBatch on the WebAssembly kernel${rows.every((r) => r.accelerated) ? '' : ' (UNAVAILABLE here: JS jobs)'}; ours JS: the same batch on the JS jobs; Crowd.update: the crowd API (mesh-relative palettes) on the batch.`);
console.log(`Targets (checked on wall-clock medians): ours ≤ ${TARGET_NS_PER_JOINT} ns/joint; three/ours ≥ 10× (1–10 characters), ≥ 30× (≥ 100); 0 heap bytes per frame.`);
console.log('CPU columns: medians of process CPU time (steadier under load; includes V8 helper threads such as concurrent GC).');
console.table(rows.map((r) => ({
  asset: `${r.asset} "${r.clip}"`,
  characters: r.characters,
  joints: r.characters * r.jointsPerCharacter,
  'ours ns/joint': r.ours.nsPerJoint.toFixed(1),
  'ours JS ns/joint': r.oursJs.nsPerJoint.toFixed(1),
  'Crowd.update ns/joint': r.crowd.nsPerJoint.toFixed(1),
  'three ns/joint': r.three.nsPerJoint.toFixed(1),
  'three/ours': `${r.ratio.toFixed(1)}×`,
  'CPU ours / three ns/joint': `${r.ours.cpuNsPerJoint.toFixed(1)} / ${r.three.cpuNsPerJoint.toFixed(1)}`,
  'CPU three/ours': `${r.cpuRatio.toFixed(1)}×`,
  load: r.loadAverage.toFixed(1),
  'ours heap B/frame': fmtHeap(r.heap.ours),
  'three heap B/frame': fmtHeap(r.heap.three),
  'ns/joint target': mark(r.targets.nsPerJoint),
  'ratio target': `${mark(r.targets.ratio)} (≥${r.targets.ratioTarget}×)`,
  'heap target': mark(r.targets.zeroHeap),
})));

const out = resolve(HERE, QUICK ? 'results/quick.json.tmp' : 'results/latest.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({
  date: new Date().toISOString(),
  machine,
  notes: [
    'ns/joint = median frame time / (characters × palette joints per character); a frame also evaluates non-joint nodes.',
    'ours = updateInstanceBatch with world palettes (rest pose, sampling, local→model, palettes; WebAssembly SIMD kernel); oursJs = the same batch on the JS jobs (wasm: false).',
    'crowd = Crowd.update (clocks, root motion, batch sampling, mesh-relative palettes) of the same characters playing the same clip.',
    'ours heap = bytes allocated per frame on the WebAssembly path (clip times are written into the batch Float64Array, so no double is boxed).',
  ],
  settings: { quick: QUICK, frameSeconds: FRAME_SECONDS, warmupMs: WARMUP_MS, batchMs: BATCH_MS, rounds: ROUNDS, heapMs: HEAP_MS, paletteTolerance: PALETTE_TOLERANCE },
  paletteChecks: checks,
  rows,
  seconds: (performance.now() - started) / 1000,
}, null, 2) + '\n');
console.log(`wrote ${out} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
gcObserver.disconnect();

if (!process.argv.includes('--no-gpu')) {
  console.log('');
  await runGpuBench({ quick: QUICK, culling: !process.argv.includes('--no-culling') });
  console.log('');
  await runEnvironmentBench({ quick: QUICK });
}
