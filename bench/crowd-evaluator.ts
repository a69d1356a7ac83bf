/**
 * `npm run bench -- --crowd-evaluator`: a crowd evaluated by the GPU pose evaluator
 * (src/gpu/crowd) against the same crowd on the CPU batch, in Node with Dawn on
 * SwiftShader, for 1,000 to 100,000 Foxes ("Walk") and CesiumMen.
 *
 * Per frame, medians over the measured frames:
 * - main-thread ms: what the JS thread spends. CPU batch: `Crowd.update` plus the writeBuffer
 *   of palettes and placements the renderer makes. GPU evaluator: `Crowd.update` (clocks and
 *   the 32-byte state upload) plus encoding and submitting the compute pass.
 * - bytes uploaded: counted (exact on any machine). CPU: palettes + placements (the draw
 *   records' other fields are left out, so this is a lower bound). GPU: the evaluator's state.
 * - GPU ms: the compute pass by timestamp queries when the device has them, else the wall time
 *   from submit to `onSubmittedWorkDone` (SwiftShader runs on the same two cores: a CPU time).
 * Also: the two hierarchy modes at 10,000, and the crossover `'auto'` uses (the smallest
 * count whose GPU main-thread time is below the CPU batch's).
 * Root motion is off in both paths (CesiumMan's clip travels; on the GPU path its deltas stay
 * on the CPU, measured separately in the last table).
 * Writes bench/results/crowd-evaluator-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Crowd } from '../src/anim/crowd.ts';
import { createCrowd } from '../src/crowd/gpu-crowd.ts';
import { loadGltfFile } from '../src/cli/load-file.ts';
import type { Model } from '../src/gltf/model.ts';
import type { HierarchyMode } from '../src/gpu/crowd/evaluator.ts';
import { GpuTimer } from '../src/gpu/device/timer.ts';
import { createNodeDevice } from '../src/gpu/device/node-device.ts';
import { assetPath } from '../test/support/assets.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const DT = 1 / 60;

export interface CrowdEvaluatorBenchOptions {
  readonly quick?: boolean;
}

interface Row {
  asset: string;
  instances: number;
  path: 'cpu batch' | 'gpu evaluator';
  hierarchy?: HierarchyMode;
  mainThreadMs: number;
  /** GPU path: of mainThreadMs, Crowd.update and the state upload (the rest is encode + submit, Dawn's). */
  updateAndUploadMs?: number;
  bytesUploaded: number;
  bytesPerInstance: number;
  gpuMs?: number;
  gpuMsSource?: 'timestamp' | 'wall';
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/**
 * Frames before measuring: at least this many, and at least WARM_MS of them, so V8 has
 * optimised the frame path (at 50,000+ a frame's loops are long enough to optimise in one).
 */
const warmFrames = (n: number): number => (n >= 50000 ? 1 : 3);
const WARM_MS = 1500;

function spread(crowd: Crowd, model: Model): void {
  const clips = model.animations.length;
  for (let k = 0; k < crowd.capacity; k++) crowd.play(k, k % clips, (k * 0.37) % model.animations[k % clips].duration);
  crowd.rootMotion = false;
  crowd.placeOnGrid(2);
}

async function cpuRow(device: GPUDevice, model: Model, asset: string, n: number, frames: number): Promise<Row> {
  const crowd = new Crowd(model, n);
  spread(crowd, model);
  const paletteBytes = n * crowd.paletteMatrices * 64, placementBytes = n * 64;
  const palettes = device.createBuffer({ label: 'bench cpu palettes', size: paletteBytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const placements = device.createBuffer({ label: 'bench cpu placements', size: placementBytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  // The placements in single precision, as the GPU takes them; without root motion they stay put,
  // so they are packed once (as Crowd's own float32 copy was, before the renderer took doubles).
  const placementsF32 = Float32Array.from(crowd.placements);
  const times: number[] = [];
  const warmUntil = performance.now() + WARM_MS;
  for (let f = 0, measured = 0; measured < frames; f++) {
    const warm = f >= warmFrames(n) && performance.now() >= warmUntil;
    const t0 = performance.now();
    crowd.update(DT);
    device.queue.writeBuffer(palettes, 0, crowd.palettes.buffer, crowd.palettes.byteOffset, paletteBytes);
    device.queue.writeBuffer(placements, 0, placementsF32.buffer, placementsF32.byteOffset, placementBytes);
    const t1 = performance.now();
    await device.queue.onSubmittedWorkDone();
    if (warm) { times.push(t1 - t0); measured++; }
  }
  palettes.destroy();
  placements.destroy();
  const bytes = paletteBytes + placementBytes;
  return { asset, instances: n, path: 'cpu batch', mainThreadMs: median(times), bytesUploaded: bytes, bytesPerInstance: bytes / n };
}

async function gpuRow(device: GPUDevice, model: Model, asset: string, n: number, frames: number, hierarchy: HierarchyMode): Promise<Row> {
  const crowd = createCrowd(model, n, { evaluator: 'gpu', device, hierarchy });
  spread(crowd, model);
  const timer = new GpuTimer(device, { label: 'bench crowd evaluator' });
  const main: number[] = [], ours: number[] = [], gpu: number[] = [];
  let bytes = 0;
  const warmUntil = performance.now() + WARM_MS;
  for (let f = 0, measured = 0; measured < frames; f++) {
    const warm = f >= warmFrames(n) && performance.now() >= warmUntil;
    const resolved = timer.resolvedCount;
    const t0 = performance.now();
    crowd.update(DT);
    crowd.gpu!.writeInstances(device.queue);
    const tu = performance.now();
    const encoder = device.createCommandEncoder({ label: 'bench crowd frame' });
    const writes = timer.beginPass();
    crowd.gpu!.encode(encoder, writes);
    timer.endPass(encoder);
    device.queue.submit([encoder.finish()]);
    timer.afterSubmit();
    const t1 = performance.now();
    await device.queue.onSubmittedWorkDone();
    const t2 = performance.now();
    if (timer.supported) for (let i = 0; i < 100 && timer.resolvedCount === resolved; i++) await new Promise((r) => setTimeout(r, 1));
    if (warm) {
      main.push(t1 - t0);
      ours.push(tu - t0);
      gpu.push(timer.supported && timer.lastMs !== undefined ? timer.lastMs : t2 - t1);
      bytes = crowd.gpu!.bytesUploaded;
      measured++;
    }
  }
  timer.destroy();
  crowd.gpu!.destroy();
  return {
    asset, instances: n, path: 'gpu evaluator', hierarchy, mainThreadMs: median(main), updateAndUploadMs: median(ours), bytesUploaded: bytes, bytesPerInstance: bytes / n,
    gpuMs: median(gpu), gpuMsSource: timer.supported ? 'timestamp' : 'wall',
  };
}

/** CPU ms per frame of the GPU path's root motion (CesiumMan's clip travels): Crowd.update with rootMotion on vs off. */
async function rootMotionCost(device: GPUDevice, model: Model, n: number, frames: number): Promise<{ on: number; off: number }> {
  const crowd = createCrowd(model, n, { evaluator: 'gpu', device });
  spread(crowd, model);
  const time = (motion: boolean): number => {
    crowd.rootMotion = motion;
    const xs: number[] = [];
    const warmUntil = performance.now() + WARM_MS;
    for (let f = 0; xs.length < frames; f++) {
      const warm = f >= warmFrames(n) && performance.now() >= warmUntil;
      const t0 = performance.now();
      crowd.update(DT);
      crowd.gpu!.writeInstances(device.queue);
      if (warm) xs.push(performance.now() - t0);
    }
    return median(xs);
  };
  const off = time(false), on = time(true);
  crowd.gpu!.destroy();
  return { on, off };
}

export async function runCrowdEvaluatorBench(options: CrowdEvaluatorBenchOptions = {}): Promise<void> {
  const quick = options.quick === true;
  const device = await createNodeDevice({ label: 'crowd evaluator bench', timestampQuery: true });
  const counts = quick ? [1000, 10000] : [1000, 10000, 50000, 100000];
  const frames = quick ? 3 : 9;
  const rows: Row[] = [];
  const hierarchyRows: Row[] = [];
  const crossover: { asset: string; instances: number; cpuMs: number; gpuMs: number }[] = [];
  const rootMotion: { asset: string; instances: number; on: number; off: number }[] = [];
  for (const asset of ['Fox', 'CesiumMan']) {
    const model = await loadGltfFile(assetPath(asset));
    for (const n of counts) {
      // SwiftShader takes seconds per frame at 50,000+: fewer measured frames there.
      const f = n >= 50000 ? Math.min(frames, 2) : frames;
      const cpu = await cpuRow(device, model, asset, n, f);
      const gpu = await gpuRow(device, model, asset, n, f, 'instance');
      rows.push(cpu, gpu);
      console.log(`${asset} ×${n}: main thread cpu batch ${cpu.mainThreadMs.toFixed(2)} ms, gpu evaluator ${gpu.mainThreadMs.toFixed(3)} ms (update + upload ${gpu.updateAndUploadMs!.toFixed(3)}); uploaded ${cpu.bytesPerInstance} vs ${gpu.bytesPerInstance} B/instance; GPU ${gpu.gpuMs!.toFixed(2)} ms (${gpu.gpuMsSource})`);
      if (n === 10000) {
        const depth = await gpuRow(device, model, asset, n, f, 'depth');
        hierarchyRows.push(gpu, depth);
        console.log(`${asset} ×${n}: hierarchy per instance ${gpu.gpuMs!.toFixed(2)} ms, per depth ${depth.gpuMs!.toFixed(2)} ms (GPU, ${gpu.gpuMsSource})`);
      }
    }
    for (const n of quick ? [64, 256] : [64, 128, 256, 512, 768, 1024]) {
      const cpu = await cpuRow(device, model, asset, n, frames * 3);
      const gpu = await gpuRow(device, model, asset, n, frames * 3, 'instance');
      crossover.push({ asset, instances: n, cpuMs: cpu.mainThreadMs, gpuMs: gpu.mainThreadMs });
    }
    if (model.animations.some((_, c) => new Crowd(model, 1).rootMotions[c] !== undefined)) {
      const r = await rootMotionCost(device, model, 10000, frames);
      rootMotion.push({ asset, instances: 10000, ...r });
      console.log(`${asset} ×10000 on the GPU path: Crowd.update ${r.off.toFixed(2)} ms without root motion, ${r.on.toFixed(2)} ms with`);
    }
  }
  const crossoverAt = (asset: string): number | undefined => crossover.find((c) => c.asset === asset && c.gpuMs < c.cpuMs)?.instances;
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg(), node: process.version, adapter: 'Dawn on SwiftShader', timestampQuery: device.features.has('timestamp-query') };
  console.log('crossover (smallest count whose GPU-path main-thread time is below the CPU batch):', JSON.stringify({ Fox: crossoverAt('Fox'), CesiumMan: crossoverAt('CesiumMan') }));
  console.table(rows.map((r) => ({ asset: r.asset, n: r.instances, path: r.path, 'main ms': r.mainThreadMs.toFixed(3), 'update+upload ms': r.updateAndUploadMs?.toFixed(3) ?? '', 'B/inst': r.bytesPerInstance, 'GPU ms': r.gpuMs?.toFixed(2) ?? '' })));
  const out = resolve(HERE, 'results', 'crowd-evaluator-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine, rows, hierarchyRows, crossover, rootMotion }, null, 2));
  console.log(`wrote ${out}`);
  device.destroy();
}
