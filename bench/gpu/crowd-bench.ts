/**
 * `npm run bench -- --crowd` (issue #16): crowds of 1,000–100,000 Foxes and CesiumMen in one
 * headless Chromium (WebGPU on SwiftShader), per frame: main-thread CPU ms (advance, pose,
 * encode, submit), bytes written to the GPU (counted exactly around the frame), GPU ms
 * (timestamp queries where available), for three columns in the same run: ours with the CPU
 * batch evaluator, ours with the GPU evaluator (when Crowd has it: `{ evaluator: 'gpu' }`), our
 * GPU draw path alone (palettes evaluated once and kept on the GPU: bounds, culling, records and
 * indirect draws on the GPU, no pose evaluation), and
 * three.js (one SkinnedMesh per character) up to the count it can run. Every side skips a count
 * when its last count's frame, scaled by the count, predicts more than FRAME_BUDGET_MS.
 * Writes bench/results/crowd-latest.json (`--quick`: crowd-quick.json.tmp).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { assetPath, ASSETS_DIR } from '../../test/support/assets.ts';
import { browserUnavailable, chromiumArgs, CHROMIUM } from '../../test/support/browser.ts';
import type { CrowdSetup, CrowdTimes, CrowdView, OursEvaluator } from './crowd-page.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const CASES = [
  { asset: 'Fox', clip: 1 }, // "Walk"
  { asset: 'CesiumMan', clip: 0 },
];
/**
 * A side runs a count only while its frame, predicted from its last count's (scaled by the
 * count), stays under this: on SwiftShader, a CPU rasteriser, a frame of 100,000 skinned
 * characters takes minutes whoever poses them.
 */
const FRAME_BUDGET_MS = 30_000;
/** Warm-up wall time before measuring (see framesFor). */
const WARM_MS = 3000;
/** The street view's far plane, in grid spacings (crowd-page.ts CrowdView). */
const STREET_FAR = 24;

export interface CrowdBenchOptions {
  readonly quick?: boolean;
  /** Instance counts (default 1,000 / 10,000 / 50,000 / 100,000; `--counts=1000,10000`). */
  readonly counts?: readonly number[];
  /** Assets (default Fox and CesiumMan; `--assets=Fox`). */
  readonly assets?: readonly string[];
  /** Camera (crowd-page.ts CrowdView; default 'grid'; `--view=street`). */
  readonly view?: CrowdView;
}

interface SideResult {
  /** Medians over the measured frames. */
  cpuMs: number;
  frameMs: number;
  bytesPerFrame: number;
  bytesPerInstance: number;
  gpuMs: number | null;
  drawCalls: number;
  culled?: number;
}
type Side = SideResult | { error: string } | { skipped: string };

interface CrowdRow {
  asset: string;
  instances: number;
  cpuBatch: Side;
  gpuEvaluator: Side;
  /** The renderer's GPU draw path with static palettes on the GPU (no pose evaluation per frame). */
  gpuDraw: Side;
  three: Side;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function summarize(t: CrowdTimes, n: number): SideResult {
  const bytes = median(t.bytes);
  return {
    cpuMs: median(t.cpu), frameMs: median(t.frame), bytesPerFrame: bytes, bytesPerInstance: bytes / n,
    gpuMs: t.gpu.length > 0 ? median(t.gpu) : null, drawCalls: t.drawCalls, culled: t.culled,
  };
}

const short = (e: unknown): string => (e as Error).message.split('\n')[0].replace(/^page\.evaluate: /, '');

export async function runCrowdBench(options: CrowdBenchOptions = {}): Promise<void> {
  const started = performance.now();
  const unavailable = browserUnavailable();
  if (unavailable) {
    console.log(`crowd bench skipped: ${unavailable}`);
    return;
  }
  const quick = options.quick ?? false;
  const loadBefore = loadavg()[0];
  const counts = options.counts ?? (quick ? [100, 1000] : [1000, 10_000, 50_000, 100_000]);
  const cases = options.assets ? CASES.filter((c) => options.assets!.includes(c.asset)) : CASES;
  const partial = options.counts !== undefined || options.assets !== undefined;
  const view = options.view ?? 'grid';
  if (view !== 'grid' && view !== 'street') throw new Error(`--view=${String(view)}: 'grid' or 'street'`);
  // Warm-up: at least these frames and WARM_MS (the JIT compiles the per-frame path; one frame of a big grid view is longer anyway).
  const framesFor = (n: number) => (quick ? { warmup: 1, frames: 2 } : n <= 1000 ? { warmup: 2, frames: 5 } : { warmup: 1, frames: view === 'street' ? 5 : 3 });

  const server = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'error',
    clearScreen: false,
    cacheDir: join(tmpdir(), 'skinned-mesh-crowd-bench-vite'),
    optimizeDeps: {
      entries: ['bench/gpu/crowd.html'],
      include: ['three/webgpu', 'three/addons/loaders/GLTFLoader.js', 'three/addons/utils/SkeletonUtils.js', 'wgpu-matrix'],
    },
    server: {
      host: '127.0.0.1', port: 0, strictPort: false, hmr: false, fs: { allow: [ROOT, ASSETS_DIR] },
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    },
  });
  await server.listen();
  const address = server.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('vite did not report a port');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs() });
  const rows: CrowdRow[] = [];
  const setups: Record<string, CrowdSetup> = {};
  const pageErrors: string[] = [];
  try {
    for (const c of cases) {
      // A page per asset: three.js's crowd and our buffers go with it.
      const page = await browser.newPage({ viewport: { width: 640, height: 240 }, deviceScaleFactor: 1 });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
      await page.goto(`http://127.0.0.1:${address.port}/bench/gpu/crowd.html`);
      await page.waitForFunction(() => typeof window.crowdBench === 'object', undefined, { timeout: 60_000 });
      const setup = await page.evaluate(([url, name, clip]) => window.crowdBench.setup(url, name, clip), [`/@fs${assetPath(c.asset)}`, c.asset, c.clip] as const);
      setups[c.asset] = setup;
      console.log(`crowd bench ${c.asset}: adapter "${setup.adapter}", timestamp-query ${setup.timestampQuery ? 'yes' : 'no'}, three.js ${setup.threeBackend}${setup.oursError ? `; ours failed: ${setup.oursError}` : ''}${setup.threeError ? `; three failed: ${setup.threeError}` : ''}`);
      type Key = 'cpuBatch' | 'gpuEvaluator' | 'gpuDraw' | 'three';
      const last: Partial<Record<Key, { n: number; ms: number }>> = {};
      /** Why a side does not run `n` (its predicted frame is over budget), or undefined. */
      const overBudget = (key: Key, n: number): string | undefined => {
        const l = last[key];
        const predicted = l ? (l.ms * n) / l.n : 0;
        return predicted > FRAME_BUDGET_MS ? `not run: ${(predicted / 1000).toFixed(0)} s per frame predicted from ${l!.n}` : undefined;
      };
      let threeStopped: string | undefined = setup.threeError;
      for (const n of counts) {
        const { warmup, frames } = framesFor(n);
        threeStopped ??= overBudget('three', n);
        const withThree = !threeStopped;
        const row: CrowdRow = { asset: c.asset, instances: n, cpuBatch: { error: 'not run' }, gpuEvaluator: { error: 'not run' }, gpuDraw: { error: 'not run' }, three: { skipped: threeStopped ?? '' } };
        // Ours first, without three.js's crowd: a three.js layout too big for the page must not take our rows with it.
        try {
          await page.evaluate(([count, v, far]) => window.crowdBench.layout(count, false, v, far), [n, view, STREET_FAR] as const);
        } catch (e) {
          row.cpuBatch = row.gpuEvaluator = row.gpuDraw = row.three = { error: `layout: ${short(e)}` };
          rows.push(row);
          continue;
        }
        for (const evaluator of ['cpu', 'gpu', 'gpu-draw'] as const satisfies readonly OursEvaluator[]) {
          const key = evaluator === 'cpu' ? 'cpuBatch' : evaluator === 'gpu' ? 'gpuEvaluator' : 'gpuDraw';
          if (setup.oursError) { row[key] = { error: setup.oursError }; continue; }
          const skip = overBudget(key, n);
          if (skip) { row[key] = { skipped: skip }; continue; }
          try {
            await page.evaluate((e) => window.crowdBench.prepareOurs(e), evaluator);
            const result = summarize(await page.evaluate(([w, f, ms]) => window.crowdBench.runOurs(w, f, ms), [warmup, frames, quick ? 0 : WARM_MS] as const), n);
            row[key] = result;
            last[key] = { n, ms: result.frameMs };
          } catch (e) {
            row[key] = { error: short(e) };
          }
        }
        if (withThree) {
          try {
            await page.evaluate(([count, v, far]) => window.crowdBench.layout(count, true, v, far), [n, view, STREET_FAR] as const);
            const three = summarize(await page.evaluate(([w, f, ms]) => window.crowdBench.runThree(w, f, ms), [warmup, frames, quick ? 0 : WARM_MS] as const), n);
            row.three = three;
            last.three = { n, ms: three.frameMs };
          } catch (e) {
            row.three = { error: short(e) };
            threeStopped = `stopped after an error at ${n}`;
          }
        }
        rows.push(row);
        const fmt = (s: Side) => ('error' in s ? `error: ${s.error}` : 'skipped' in s ? s.skipped : `cpu ${s.cpuMs.toFixed(1)} ms, ${(s.bytesPerFrame / 1e6).toFixed(2)} MB (${s.bytesPerInstance.toFixed(0)} B/inst), GPU ${s.gpuMs === null ? '–' : `${s.gpuMs.toFixed(0)} ms`}, frame ${s.frameMs.toFixed(0)} ms`);
        console.log(`  ${c.asset} ×${n}: CPU batch ${fmt(row.cpuBatch)}; GPU evaluator ${fmt(row.gpuEvaluator)}; GPU draw path ${fmt(row.gpuDraw)}; three ${fmt(row.three)}`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const cell = (s: Side, key: 'cpuMs' | 'bytesPerInstance' | 'gpuMs', digits: number): string =>
    ('error' in s ? 'error' : 'skipped' in s ? '–' : s[key] === null ? '–' : (s[key] as number).toFixed(digits));
  console.table(rows.map((r) => ({
    asset: r.asset, instances: r.instances,
    'CPU batch ms': cell(r.cpuBatch, 'cpuMs', 2), 'CPU batch B/inst': cell(r.cpuBatch, 'bytesPerInstance', 0), 'CPU batch GPU ms': cell(r.cpuBatch, 'gpuMs', 0),
    'GPU eval ms': cell(r.gpuEvaluator, 'cpuMs', 2), 'GPU eval B/inst': cell(r.gpuEvaluator, 'bytesPerInstance', 0), 'GPU eval GPU ms': cell(r.gpuEvaluator, 'gpuMs', 0),
    'GPU draw ms': cell(r.gpuDraw, 'cpuMs', 2), 'GPU draw B/inst': cell(r.gpuDraw, 'bytesPerInstance', 0), 'GPU draw GPU ms': cell(r.gpuDraw, 'gpuMs', 0),
    'three ms': cell(r.three, 'cpuMs', 2), 'three B/inst': cell(r.three, 'bytesPerInstance', 0), 'three GPU ms': cell(r.three, 'gpuMs', 0),
  })));
  if (pageErrors.length > 0) console.log(`page errors:\n  ${pageErrors.join('\n  ')}`);
  const name = view === 'street' ? 'crowd-street' : 'crowd';
  const out = resolve(HERE, '..', 'results', quick ? `${name}-quick.json.tmp` : partial ? `${name}-partial.json.tmp` : `${name}-latest.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    canvas: [320, 240],
    view,
    method: [
      view === 'street'
        ? `Street view: the camera at the grid's centre, 4 spacings from it, pitch 0.15, far plane ${STREET_FAR} spacings: every character posed, a few hundred in the frustum.`
        : 'Grid view: the camera frames the whole grid.',
      `One page per asset; per count, our crowd on the CPU batch evaluator, then on the GPU evaluator, then our GPU draw path with static palettes on the GPU (no pose evaluation), then three.js, each warm-up frames (at least ${WARM_MS / 1000} s of them, so the JIT has compiled the frame path) then measured frames.`,
      'CPU ms: main thread from the start of the frame (advance every character by 1/60 s, pose, encode, submit) to the return of the submit; then the frame waits for queue.onSubmittedWorkDone() (frame ms).',
      'Bytes: every GPUQueue.writeBuffer / writeTexture of the page during the frame, counted by wrapping the prototype (exact, both libraries).',
      'GPU ms: timestamp queries around the render passes (ours: Renderer stats, a frame or two late; three: trackTimestamp).',
      'three.js: one SkeletonUtils.clone per character with its own AnimationMixer (r187 has no instanced skinning).',
      `Any side skips a count when its previous count's frame time scaled by the count predicts more than ${FRAME_BUDGET_MS / 1000} s (SwiftShader rasterises on the CPU).`,
    ],
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadAverage1m: { before: loadBefore, after: loadavg()[0] } },
    setups,
    rows,
    pageErrors,
    seconds: (performance.now() - started) / 1000,
  }, null, 2) + '\n');
  console.log(`wrote ${out} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
