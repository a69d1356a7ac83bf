/**
 * `npm run bench -- --skinning-methods`: what centre-of-rotation skinning costs, beside the
 * other two methods, in one run.
 * - Precomputation (src/skin/centers-of-rotation/precompute.ts) per skinned primitive of every
 *   shared asset and built-in model: its time, per vertex, and against loading the file.
 * - The worker (headless Chromium, bench/gpu/centers-page.ts): wall time of the built-in
 *   character's and CesiumMan's centres in the page's worker, cold (the worker's first job)
 *   and warm, against the same work on the page's thread, and the page's longest stall.
 * - CPU skinning per frame (palette conversion included): ns per vertex of linear, dual
 *   quaternions and centres of rotation on the same poses, interleaved.
 * - GPU frames (Dawn on SwiftShader, the Renderer's vertex path): frame time of each method on
 *   the same crowd, interleaved rounds; the target is centres of rotation ≤ 1.2× dual quaternions.
 * Only ratios between things measured side by side mean anything (a CPU rasteriser, a shared
 * machine). Writes bench/results/skinning-methods-latest.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dqPaletteFromMatrices } from '../src/anim/dq-palette.ts';
import { createModelInstance, updateModelInstance } from '../src/anim/instance.ts';
import { SKINNING_METHODS, usesDqPalette, type SkinningMethod } from '../src/anim/skinning-method.ts';
import { buildBuiltinGlb, builtinModelNames } from '../src/builtin/index.ts';
import { readBesideFile } from '../src/cli/load-file.ts';
import { loadGltf } from '../src/gltf/load.ts';
import type { Model } from '../src/gltf/model.ts';
import { centersInput, centersOf, skinnedPrimitives } from '../src/skin/centers-of-rotation/centers.ts';
import { computeCentersOfRotation } from '../src/skin/centers-of-rotation/precompute.ts';
import { createSkinnedVertices } from '../src/skin/cpu-skin.ts';
import { skinPrimitiveWith } from '../src/skin/skin-with.ts';
import { assetPath, sharedAssets } from '../test/support/assets.ts';
import { startBrowserSession } from '../test/support/browser.ts';
import type { CentersPageResult } from './gpu/centers-page.ts';
import { runMethodFrames, type MethodFramesRow } from './gpu/skinning-methods-gpu.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface SkinningMethodsOptions {
  readonly quick?: boolean;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median milliseconds of `run` over `n` calls. */
function timed(n: number, run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return median(times);
}

interface ModelFile { readonly name: string; readonly bytes: Uint8Array; readonly load: () => Promise<Model> }

async function modelFiles(): Promise<ModelFile[]> {
  const out: ModelFile[] = builtinModelNames().map((name) => {
    const bytes = buildBuiltinGlb(name);
    return { name: `builtin:${name}`, bytes, load: () => loadGltf(bytes, { name }) };
  });
  for (const asset of sharedAssets()) {
    const { bytes, options } = await readBesideFile(asset.path);
    out.push({ name: asset.name, bytes, load: () => loadGltf(bytes, options) });
  }
  return out;
}

interface PrecomputeRow {
  model: string;
  primitive: string;
  vertices: number;
  pieces: number;
  terms: number;
  ms: number;
  usPerVertex: number;
  /** Precomputation over loading the whole file (median of the same number of runs). */
  overLoad: number;
}

async function precomputeRows(files: readonly ModelFile[], runs: number): Promise<PrecomputeRow[]> {
  const rows: PrecomputeRow[] = [];
  for (const file of files) {
    const loads: number[] = [];
    let model: Model | undefined;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      model = await file.load();
      loads.push(performance.now() - started);
    }
    const loadMs = median(loads);
    for (const { prim, path } of skinnedPrimitives(model!)) {
      const input = centersInput(prim);
      let stats = { pieces: 0, terms: 0 };
      const ms = timed(runs, () => {
        const r = computeCentersOfRotation(input);
        stats = r.stats;
      });
      rows.push({ model: file.name, primitive: path, vertices: prim.vertexCount, pieces: stats.pieces, terms: stats.terms, ms, usPerVertex: (ms * 1000) / prim.vertexCount, overLoad: ms / loadMs });
    }
  }
  return rows;
}

interface CpuSkinRow { model: string; vertices: number; nsPerVertex: Record<SkinningMethod, number>; corOverDq: number }

/** ns per skinned vertex of a frame of each method (DqJoint conversion included), interleaved rounds. */
async function cpuSkinRows(files: readonly ModelFile[], quick: boolean): Promise<CpuSkinRow[]> {
  const rows: CpuSkinRow[] = [];
  for (const file of files) {
    const model = await file.load();
    const instance = createModelInstance(model);
    const clip = model.animations.length > 0 ? 0 : -1;
    const jobs = model.meshNodes.flatMap((mn, i) => model.meshes[mn.mesh].primitives
      .filter((p) => mn.skin >= 0 && p.influences > 0)
      .map((prim) => ({ prim, offset: instance.paletteOffsets[i], out: createSkinnedVertices(prim) })));
    for (const { prim } of jobs) centersOf(prim);
    const vertices = jobs.reduce((n, j) => n + j.prim.vertexCount, 0);
    const dq = new Float32Array(instance.palette.length);
    const frame = (method: SkinningMethod, t: number) => {
      updateModelInstance(instance, clip, t);
      const palette = usesDqPalette(method) ? dqPaletteFromMatrices(instance.palette, instance.palette.length / 16, dq) : instance.palette;
      for (const j of jobs) skinPrimitiveWith(method, j.prim, palette, j.out, j.offset);
    };
    const times: Record<SkinningMethod, number[]> = { 'linear': [], 'dual-quaternion': [], 'center-of-rotation': [] };
    const frames = quick ? 5 : 40;
    for (const method of SKINNING_METHODS) for (let f = 0; f < frames; f++) frame(method, f / 60); // warm-up
    for (let round = 0; round < (quick ? 2 : 7); round++) {
      for (const method of SKINNING_METHODS) {
        const started = performance.now();
        for (let f = 0; f < frames; f++) frame(method, f / 60);
        times[method].push(((performance.now() - started) * 1e6) / (frames * vertices));
      }
    }
    const ns = Object.fromEntries(SKINNING_METHODS.map((m) => [m, median(times[m])])) as Record<SkinningMethod, number>;
    rows.push({ model: file.name, vertices, nsPerVertex: ns, corOverDq: ns['center-of-rotation'] / ns['dual-quaternion'] });
  }
  return rows;
}

interface WorkerRow extends CentersPageResult { model: string; run: 'cold' | 'warm' }

async function workerRows(): Promise<WorkerRow[]> {
  const session = await startBrowserSession();
  const rows: WorkerRow[] = [];
  try {
    const { page, consoleErrors } = await session.newPage();
    await page.goto(`${session.baseUrl}/bench/gpu/centers.html`);
    await page.waitForFunction(() => typeof window.centersBench === 'object', undefined, { timeout: 120_000 });
    const cases: [string, string][] = [
      ['builtin:character', `data:model/gltf-binary;base64,${Buffer.from(buildBuiltinGlb('character')).toString('base64')}`],
      ['CesiumMan', `data:model/gltf-binary;base64,${readFileSync(assetPath('CesiumMan')).toString('base64')}`],
    ];
    for (const [name, url] of cases) {
      for (const run of ['cold', 'warm'] as const) {
        const r = await page.evaluate(([u, n]) => window.centersBench.run(u, n), [url, name] as const);
        rows.push({ model: name, run, ...r });
      }
    }
    // Under tsx the session's WebGPU-error init script is serialised with esbuild's __name helper,
    // which the page lacks; that script is the tests' and irrelevant here.
    const errors = consoleErrors.filter((e) => !e.includes('__name is not defined'));
    if (errors.length > 0) throw new Error(`centres page: ${errors.join('; ')}`);
  } finally {
    await session.close();
  }
  return rows;
}

export async function runSkinningMethodsBench(options: SkinningMethodsOptions = {}): Promise<void> {
  const quick = options.quick === true;
  const files = await modelFiles();

  console.log('Centre-of-rotation precomputation, per skinned primitive (median):');
  const precompute = await precomputeRows(quick ? files.slice(0, 4) : files, quick ? 1 : 5);
  for (const r of precompute) {
    console.log(`  ${r.model.padEnd(22)} ${r.primitive.padEnd(24)} ${String(r.vertices).padStart(6)} vertices ${String(r.pieces).padStart(7)} pieces ${String(r.terms).padStart(10)} terms  ${r.ms.toFixed(1).padStart(7)} ms  ${r.usPerVertex.toFixed(1).padStart(6)} µs/vertex  ${r.overLoad.toFixed(2).padStart(6)}× the file's load`);
  }

  console.log('The worker (headless Chromium):');
  const worker = await workerRows();
  for (const r of worker) {
    console.log(`  ${r.model.padEnd(18)} ${r.run}: worker ${r.workerWallMs.toFixed(0)} ms wall (${r.workerMeasuredMs.toFixed(0)} ms in its jobs), page thread ${r.pageThreadMs.toFixed(0)} ms; longest page stall ${r.longestStallWorkerMs.toFixed(0)} ms with the worker, ${r.longestStallPageMs.toFixed(0)} ms without`);
  }

  console.log('CPU skinning per frame (palette conversion included), ns per vertex:');
  const cpu = await cpuSkinRows(files.filter((f) => ['CesiumMan', 'Fox', 'builtin:character'].includes(f.name)), quick);
  for (const r of cpu) {
    console.log(`  ${r.model.padEnd(18)} ${String(r.vertices).padStart(6)} vertices: ${SKINNING_METHODS.map((m) => `${m} ${r.nsPerVertex[m].toFixed(1)}`).join(', ')}; centres/DQ ${r.corOverDq.toFixed(2)}`);
  }

  console.log('GPU frames (Dawn on SwiftShader, vertex path), median ms and over dual quaternions:');
  const gpu: MethodFramesRow[] = await runMethodFrames(quick);
  for (const r of gpu) {
    console.log(`  ${r.model.padEnd(12)} ×${String(r.instances).padStart(3)} ${r.target.padEnd(8)} ${SKINNING_METHODS.map((m) => `${m} ${r.ms[m].toFixed(2)}`).join(', ')}; linear/DQ ${r.linearOverDq.toFixed(2)}, centres/DQ ${r.corOverDq.toFixed(2)} (target ≤ 1.2)`);
  }

  const out = resolve(HERE, 'results/skinning-methods-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    quick,
    precompute, worker, cpu, gpu,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
}
