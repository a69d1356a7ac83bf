/**
 * The GPU section of `npm run bench`: our Renderer against three.js's WebGPURenderer on
 * the same crowd of Foxes, in one headless Chromium (WebGPU on SwiftShader), one page,
 * interleaved rounds. SwiftShader is a CPU rasteriser, so only the ratios mean anything.
 *
 * Serves bench/gpu/index.html with its own Vite dev server (the Fox from ../shared/assets
 * read in place through /@fs/), drives the page with playwright-core, prints a table and
 * writes bench/results/gpu-latest.json.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { assetPath, ASSETS_DIR, sharedAssets } from '../../test/support/assets.ts';
import { COMPRESSED_VARIANTS, compressFile } from '../../test/support/compressed.ts';
import { fileHasImages, ktx2Glb } from '../../test/support/ktx2.ts';
import { browserUnavailable, chromiumArgs, CHROMIUM } from '../../test/support/browser.ts';
import { decodeImageBytes, writeArtifactPng } from '../../test/support/png.ts';
import type { LoadResult, SetupResult, SideTimes } from './page.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const WIDTH = 640, HEIGHT = 480;
/** Fox clip 1: "Walk". */
const CLIP = 1;

export interface GpuBenchOptions {
  /** Fewer instances and frames: a smoke run, not for quoting. */
  readonly quick?: boolean;
  /** Only the load + first frame rows (every shared asset and its compressed variants): `--load-only`. */
  readonly loadOnly?: boolean;
  /** Our renderer's frustum culling and front-to-back order (default on; off = the path before them). */
  readonly culling?: boolean;
}

interface LoadRow {
  asset: string;
  /** Median milliseconds from bytes in memory to the first frame done on the GPU, new renderer each time. */
  oursMs: number | null;
  threeMs: number | null;
  /** ours / three (< 1: ours faster). */
  ratio: number | null;
  /** GPU vertex buffer bytes per vertex as uploaded (page.ts: GpuModel.bytesPerVertex, threeBytesPerVertex). */
  oursBytesPerVertex: number | null;
  threeBytesPerVertex: number | null;
  oursError?: string;
  threeError?: string;
}

/** A load row's file: a shared asset or one of its variants, and the original that frames it. */
interface LoadCase {
  readonly name: string;
  readonly url: string;
  readonly frameUrl: string;
  /** The variant could not be made (both sides then report this). */
  readonly error?: string;
}

/** Three.js's Draco decoder files, served to the page at /bench-draco/ (no network). */
const THREE_DRACO_DIR = join(ROOT, 'node_modules/three/examples/jsm/libs/draco');
/** Three.js's Basis transcoder files (KTX2Loader), served to the page at /bench-basis/. */
const THREE_BASIS_DIR = join(ROOT, 'node_modules/three/examples/jsm/libs/basis');
/** Where the compressed variants are written for Vite to serve (made again every run). */
const VARIANTS_DIR = join(tmpdir(), 'skinned-mesh-bench-variants');

/**
 * Each shared asset, then its Draco, meshopt (+ quantization) and quantized variants, made
 * now with glTF-Transform and the packages' encoders (test/support/compressed.ts) as a user
 * gets them from `gltf-transform draco | meshopt | quantize`, and for an asset with textures
 * a KTX2 variant (every texture UASTC KTX2, `gltf-transform uastc`; test/support/ktx2.ts).
 */
async function loadCases(quick: boolean): Promise<LoadCase[]> {
  rmSync(VARIANTS_DIR, { recursive: true, force: true });
  mkdirSync(VARIANTS_DIR, { recursive: true });
  const cases: LoadCase[] = [];
  for (const asset of quick ? sharedAssets().slice(0, 2) : sharedAssets()) {
    const frameUrl = `/@fs${asset.path}`;
    cases.push({ name: asset.name, url: frameUrl, frameUrl });
    for (const variant of [...COMPRESSED_VARIANTS, ...(fileHasImages(asset.path) ? ['ktx2' as const] : [])]) {
      const name = `${asset.name} (${variant})`;
      const file = join(VARIANTS_DIR, `${asset.name}-${variant}.glb`);
      try {
        writeFileSync(file, variant === 'ktx2' ? await ktx2Glb(new Uint8Array(readFileSync(asset.path))) : await compressFile(asset.path, variant));
        cases.push({ name, url: `/@fs${file}`, frameUrl });
      } catch (e) {
        cases.push({ name, url: '', frameUrl, error: `variant could not be made: ${(e as Error).message.split('\n')[0]}` });
      }
    }
  }
  return cases;
}

/** The sides of a crowd row, in the order of even rounds (odd rounds run them in reverse). */
type Side = 'ours' | 'three' | 'floor' | 'floorTextured';
const SIDES: readonly Side[] = ['ours', 'three', 'floor', 'floorTextured'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

interface SideSummary {
  /** Means of the middle 80% over every measured frame of every round, milliseconds. */
  animMs: number;
  encodeMs: number;
  /** anim + encode: the CPU time of a frame on the main thread. */
  cpuMs: number;
  frameMs: number;
  /** Median GPU time of the frame's render passes (timestamp queries), or null without them. */
  gpuMs: number | null;
  drawCalls: number;
  /** Ours: instances culled in the last frame. */
  culled?: number;
  frames: number;
  /** Share of canvas pixels that differ from the background in a screenshot (both should draw the same crowd). */
  coverage?: number;
}

interface GpuBenchRow {
  instances: number;
  /** The camera at 45% of the framing distance: much of the crowd off screen (culling matters). */
  closeUp: boolean;
  ours: SideSummary | { error: string };
  three: SideSummary | { error: string };
  /** The same triangles unskinned and unshaded (page.ts `floorFor`): what rasterising them alone costs here. */
  floor: SideSummary | { error: string };
  /** The floor plus the base colour texture sampled as the glTF asks (as both renderers do). */
  floorTextured: SideSummary | { error: string };
  /** ours / three: below 1 means ours is faster. */
  ratio: { cpu: number; encode: number; frame: number; gpu: number | null } | null;
  /** floor / three: the lowest frame and GPU ratios any renderer of these triangles could reach here. */
  floorRatio: { frame: number; gpu: number | null } | null;
  /** The textured floor / three: the same bound for renderers that show the base colour texture. */
  floorTexturedRatio: { frame: number; gpu: number | null } | null;
}

/** Mean of the middle 80%: robust to the odd GC pause, finer than a median of sub-tick times. */
function trimmedMean(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const cut = Math.floor(s.length * 0.1);
  const kept = s.slice(cut, s.length - cut);
  return kept.length === 0 ? NaN : kept.reduce((a, b) => a + b, 0) / kept.length;
}

function summarize(runs: SideTimes[]): SideSummary {
  const all = (key: 'anim' | 'encode' | 'frame' | 'gpu') => runs.flatMap((r) => r[key]);
  const cpu = runs.flatMap((r) => r.anim.map((a, i) => a + r.encode[i]));
  const gpu = all('gpu');
  return {
    animMs: trimmedMean(all('anim')),
    encodeMs: trimmedMean(all('encode')),
    cpuMs: trimmedMean(cpu),
    frameMs: trimmedMean(all('frame')),
    gpuMs: gpu.length > 0 ? trimmedMean(gpu) : null,
    drawCalls: runs[runs.length - 1].drawCalls,
    culled: runs[runs.length - 1].culled,
    frames: all('frame').length,
  };
}

/** Share of pixels of an RGBA screenshot that differ from its background (its top-left pixel). */
function coverage(png: Buffer): number {
  const { data, width, height } = decodeImageBytes(new Uint8Array(png));
  const bg = [data[0], data[1], data[2]];
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 12) n++;
  }
  return n / (width * height);
}

export async function runGpuBench(options: GpuBenchOptions = {}): Promise<void> {
  const started = performance.now();
  const unavailable = browserUnavailable();
  if (unavailable) {
    console.log(`GPU bench skipped: ${unavailable}`);
    return;
  }
  const quick = options.quick ?? false;
  // SwiftShader rasterises on every core: other load on the machine moves the numbers.
  const loadBefore = loadavg()[0];
  const counts = quick ? [1, 10] : [1, 10, 50, 100];
  const cases = [...counts.map((n) => ({ n, closeUp: false })), ...(quick ? [] : [{ n: 100, closeUp: true }])];
  const warmup = quick ? 3 : 5;
  const frames = quick ? 8 : 20;
  const rounds = 2;

  const server = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'error',
    clearScreen: false,
    // Its own dependency cache, so it never disturbs a dev server of the project.
    cacheDir: join(tmpdir(), 'skinned-mesh-gpu-bench-vite'),
    // As vite.config.ts: the Basis transcoder's WebAssembly is imported as a data URL (src/gpu/textures/basis-transcoder.ts).
    assetsInclude: ['**/basis_transcoder.wasm'],
    optimizeDeps: {
      entries: ['bench/gpu/index.html'],
      include: [
        'three/webgpu', 'three/addons/loaders/GLTFLoader.js', 'three/addons/loaders/DRACOLoader.js',
        'three/addons/libs/meshopt_decoder.module.js', 'three/addons/loaders/KTX2Loader.js', 'three/addons/utils/SkeletonUtils.js', 'wgpu-matrix',
        // Ours, imported lazily by the first file that needs them (also in the KTX2 worker).
        'meshoptimizer/decoder', 'ktx-parse', 'draco3dgltf/draco_decoder_gltf_nodejs.js',
      ],
    },
    server: {
      // node_modules by its real path too: in a git worktree it may be a link to another checkout's.
      host: '127.0.0.1', port: 0, strictPort: false, hmr: false, fs: { allow: [ROOT, realpathSync(join(ROOT, 'node_modules')), ASSETS_DIR, VARIANTS_DIR] },
      // Cross-origin isolation: performance.now() then resolves 5 µs instead of 100 µs.
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    },
  });
  const loads = await loadCases(quick);
  await server.listen();
  const address = server.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('vite did not report a port');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs() });
  const rows: GpuBenchRow[] = [];
  const loadRows: LoadRow[] = [];
  const culling = options.culling ?? true;
  const loadRounds = quick ? 1 : 3;
  let setup: SetupResult | undefined;
  const pageErrors: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 2 * WIDTH, height: HEIGHT }, deviceScaleFactor: 1 });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.route('**/bench-draco/**', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
      return route.fulfill({ status: 200, contentType: type, body: readFileSync(join(THREE_DRACO_DIR, file)) });
    });
    await page.route('**/bench-basis/**', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
      return route.fulfill({ status: 200, contentType: type, body: readFileSync(join(THREE_BASIS_DIR, file)) });
    });
    page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
    await page.goto(`${baseUrl}/bench/gpu/index.html`);
    await page.waitForFunction(() => typeof window.gpuBench === 'object', undefined, { timeout: 60_000 });
    const foxUrl = `/@fs${assetPath('Fox')}`;
    setup = await page.evaluate(([url, clip]) => window.gpuBench.setup(url, clip), [foxUrl, CLIP] as const);
    console.log(`GPU bench: adapter "${setup.adapter}", ours timestamp-query ${setup.oursFeatures.includes('timestamp-query') ? 'yes' : 'no'}, three.js backend ${setup.threeBackend}, cross-origin isolated ${setup.crossOriginIsolated}`);
    if (setup.oursError) console.log(`  our renderer failed to start: ${setup.oursError}`);
    if (setup.threeError) console.log(`  three.js WebGPURenderer failed to start: ${setup.threeError}`);
    await page.evaluate((on) => window.gpuBench.setCulling(on), culling);

    for (const { n, closeUp } of options.loadOnly ? [] : cases) {
      await page.evaluate(([count, close]) => window.gpuBench.layout(count, close), [n, closeUp] as const);
      const runs: Record<Side, SideTimes[]> = { ours: [], three: [], floor: [], floorTextured: [] };
      const errors: Record<Side, string | undefined> = { ours: setup.oursError, three: setup.threeError, floor: setup.oursError, floorTextured: setup.oursError };
      for (let round = 0; round < rounds; round++) {
        // Alternate the order, so no side always runs on a warmer machine.
        for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
          if (errors[side]) continue;
          try {
            runs[side].push(await page.evaluate(([which, w, f]) => {
              const bench = window.gpuBench;
              return which === 'ours' ? bench.runOurs(w, f) : which === 'three' ? bench.runThree(w, f) : bench.runFloor(w, f, which === 'floorTextured');
            }, [side, warmup, frames] as const));
          } catch (e) {
            errors[side] = (e as Error).message.split('\n')[0];
          }
        }
      }
      const summaryOf = (side: Side): SideSummary | { error: string } => (errors[side] ? { error: errors[side]! } : summarize(runs[side]));
      const row: GpuBenchRow = {
        instances: n, closeUp, ours: summaryOf('ours'), three: summaryOf('three'), floor: summaryOf('floor'), floorTextured: summaryOf('floorTextured'),
        ratio: null, floorRatio: null, floorTexturedRatio: null,
      };
      // What each canvas shows: both should draw the same crowd. The floor draws into our
      // canvas, so ours draws one more frame first.
      if (!errors.ours) await page.evaluate(([w, f]) => window.gpuBench.runOurs(w, f), [0, 1] as const);
      for (const [side, x] of [['ours', 0], ['three', WIDTH]] as const) {
        const summary = row[side];
        if ('error' in summary) continue;
        const shot = await page.screenshot({ clip: { x, y: 0, width: WIDTH, height: HEIGHT } });
        summary.coverage = coverage(shot);
        const image = decodeImageBytes(new Uint8Array(shot));
        writeArtifactPng(`bench-gpu-${side}-${n}${closeUp ? '-close' : ''}`, image.width, image.height, new Uint8Array(image.data));
      }
      if (!('error' in row.ours) && !('error' in row.three)) {
        const o = row.ours, t = row.three;
        row.ratio = {
          cpu: o.cpuMs / t.cpuMs,
          encode: o.encodeMs / t.encodeMs,
          frame: o.frameMs / t.frameMs,
          gpu: o.gpuMs !== null && t.gpuMs !== null ? o.gpuMs / t.gpuMs : null,
        };
        const over = (fl: SideSummary | { error: string }) => ('error' in fl ? null : { frame: fl.frameMs / t.frameMs, gpu: fl.gpuMs !== null && t.gpuMs !== null ? fl.gpuMs / t.gpuMs : null });
        row.floorRatio = over(row.floor);
        row.floorTexturedRatio = over(row.floorTextured);
      }
      rows.push(row);
      const fmt = (s: SideSummary | { error: string }) => ('error' in s ? `error: ${s.error}` : `cpu ${s.cpuMs.toFixed(2)} ms, frame ${s.frameMs.toFixed(1)} ms`);
      console.log(`  Fox ×${n}${closeUp ? ' close-up' : ''}: ours ${fmt(row.ours)}; three ${fmt(row.three)}; floor ${fmt(row.floor)}; textured floor ${fmt(row.floorTextured)}`);
    }

    // Load + first frame of every shared asset, last: three's dispose() may unconfigure its canvas.
    for (const c of loads) {
      const row: LoadRow = { asset: c.name, oursMs: null, threeMs: null, ratio: null, oursBytesPerVertex: null, threeBytesPerVertex: null };
      if (c.error) {
        row.oursError = row.threeError = c.error;
        loadRows.push(row);
        console.log(`  load ${c.name}: ${c.error}`);
        continue;
      }
      await page.evaluate(([url, frameUrl]) => window.gpuBench.prepareLoad(url, frameUrl), [c.url, c.frameUrl] as const);
      const ours: number[] = [], three: number[] = [];
      const keep = (side: 'ours' | 'three', result: LoadResult, into: number[]): void => {
        into.push(result.ms);
        if (side === 'ours') row.oursBytesPerVertex = result.bytesPerVertex;
        else row.threeBytesPerVertex = result.bytesPerVertex;
      };
      for (let round = 0; round < loadRounds; round++) {
        const order = round % 2 === 0 ? ['ours', 'three'] as const : ['three', 'ours'] as const;
        for (const side of order) {
          if (side === 'ours' && !row.oursError) {
            try {
              keep('ours', await page.evaluate(() => window.gpuBench.loadOurs()), ours);
            } catch (e) {
              row.oursError = (e as Error).message.split('\n')[0].replace(/^page\.evaluate: /, '');
            }
          }
          if (side === 'three' && !row.threeError) {
            try {
              keep('three', await page.evaluate(() => window.gpuBench.loadThree()), three);
            } catch (e) {
              row.threeError = (e as Error).message.split('\n')[0].replace(/^page\.evaluate: /, '');
            }
          }
        }
      }
      if (!row.oursError) row.oursMs = median(ours);
      if (!row.threeError) row.threeMs = median(three);
      if (row.oursMs !== null && row.threeMs !== null) row.ratio = row.oursMs / row.threeMs;
      loadRows.push(row);
      console.log(`  load ${c.name}: ours ${row.oursError ?? `${row.oursMs!.toFixed(1)} ms`}; three ${row.threeError ?? `${row.threeMs!.toFixed(1)} ms`}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }

  const num = (s: SideSummary | { error: string }, key: keyof SideSummary, digits = 2): string => {
    if ('error' in s) return 'error';
    const v = s[key];
    return typeof v === 'number' ? v.toFixed(digits) : '–';
  };
  const ratio = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : `${v.toFixed(2)}×`);
  if (rows.length > 0) {
    console.log('');
    console.log(`GPU frame, Fox "Walk" crowd, ${WIDTH}×${HEIGHT}, 4× MSAA both, SwiftShader (a CPU rasteriser: compare ratios only).`);
    console.log(`Mean of the middle 80% of ${rounds} interleaved rounds × ${frames} frames (after ${warmup} warm-up frames each). ratio = ours / three (< 1: ours faster).`);
    console.log('floor: the same triangles skinned once on the CPU, drawn unshaded into the same 4× MSAA targets; textured floor: also sampling the base colour texture as the glTF asks. floor/three bounds any renderer\'s ratio here.');
    console.table(rows.map((r) => ({
      Foxes: `${r.instances}${r.closeUp ? ' close-up' : ''}`,
      'ours anim ms': num(r.ours, 'animMs'),
      'ours encode ms': num(r.ours, 'encodeMs'),
      'three anim ms': num(r.three, 'animMs'),
      'three render() ms': num(r.three, 'encodeMs'),
      'CPU ratio': ratio(r.ratio?.cpu),
      'ours frame ms': num(r.ours, 'frameMs', 1),
      'three frame ms': num(r.three, 'frameMs', 1),
      'frame ratio': ratio(r.ratio?.frame),
      'ours GPU ms': num(r.ours, 'gpuMs', 1),
      'three GPU ms': num(r.three, 'gpuMs', 1),
      'GPU ratio': ratio(r.ratio?.gpu),
      'floor GPU ms': num(r.floor, 'gpuMs', 1),
      'floor/three GPU': ratio(r.floorRatio?.gpu),
      'textured floor GPU ms': num(r.floorTextured, 'gpuMs', 1),
      'textured floor/three GPU': ratio(r.floorTexturedRatio?.gpu),
      'draws ours/three': 'error' in r.ours || 'error' in r.three ? '–' : `${r.ours.drawCalls}/${r.three.drawCalls}`,
      'ours culled': 'error' in r.ours ? '–' : String(r.ours.culled ?? 0),
    })));
  }
  console.log('');
  console.log(`Load + first frame (bytes in memory → parse → new renderer → upload → one frame of the rest pose done on the GPU), median of ${loadRounds} interleaved rounds; three.js: GLTFLoader.parseAsync (DRACOLoader, MeshoptDecoder, KTX2Loader) + a new WebGPURenderer on its device. Each asset, then its Draco, meshopt, quantized and (with textures) KTX2 variants; GPU B/vertex: vertex buffer bytes per vertex as uploaded.`);
  console.table(loadRows.map((r) => ({
    asset: r.asset,
    'ours ms': r.oursMs === null ? `error: ${r.oursError}` : r.oursMs.toFixed(1),
    'three ms': r.threeMs === null ? `error: ${r.threeError}` : r.threeMs.toFixed(1),
    ratio: ratio(r.ratio),
    'ours GPU B/vertex': r.oursBytesPerVertex === null ? '–' : r.oursBytesPerVertex.toFixed(1),
    'three GPU B/vertex': r.threeBytesPerVertex === null ? '–' : r.threeBytesPerVertex.toFixed(1),
  })));
  if (pageErrors.length > 0) console.log(`page errors:\n  ${pageErrors.join('\n  ')}`);
  console.log(`1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after, on ${cpus().length} CPUs (SwiftShader uses all of them).`);

  const out = resolve(HERE, '..', 'results', quick ? 'gpu-quick.json.tmp' : options.loadOnly ? 'gpu-load-latest.json' : culling ? 'gpu-latest.json' : 'gpu-no-culling.json.tmp');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    setup: { canvas: [WIDTH, HEIGHT], msaa: 4, asset: 'Fox', clip: CLIP, ...setup },
    method: [
      'One page, two canvases, two WebGPU devices; rounds alternate the order of the sides (ours, three, floor).',
      'Per frame: advance every animation by 1/60 s (anim), encode and submit one frame (encode: Renderer.renderInstances / WebGPURenderer.render), then await device.queue.onSubmittedWorkDone() (frame = all three).',
      'Ours draws the crowd with one instanced draw call per primitive (Renderer.renderInstances, one AnimationPlayer per Fox); three.js draws one SkinnedMesh clone per Fox (SkeletonUtils.clone, one AnimationMixer each).',
      'GPU ms: timestamp queries around the render passes (ours: Renderer stats, a frame or two late; three: trackTimestamp, resolved after each frame outside the timed span).',
      'Ours culls instances outside the frustum by their skinned bounds and draws the rest nearest first (settings.culling; the framing camera sees every Fox, so nothing is culled there; the close-up row puts the camera at 45% of the framing distance, so much of the crowd is off screen); three.js culls by bounding sphere and sorts opaque objects front to back.',
      'Floor: the crowd\'s triangles as posed when the row starts, skinned once on the CPU into one world-space vertex buffer, one non-indexed draw with a projecting vertex stage and a constant colour, into 4× MSAA colour and depth like ours, on our device and canvas. floor / three is the lowest ratio any renderer drawing these triangles could reach on this rasteriser. Textured floor: the same plus TEXCOORD_0 and one sample of the base colour texture with the glTF sampler (mipmapped, sRGB), as both renderers take it.',
      'Load rows: bytes already in memory; ours loadGltf + new Renderer + setModel + one render of the rest pose; three GLTFLoader.parseAsync + new WebGPURenderer (same device) + one render; each until queue.onSubmittedWorkDone(). Median of interleaved rounds.',
      'Each shared asset is followed by its Draco, meshopt (+ KHR_mesh_quantization) and quantized variants, made at bench time with glTF-Transform (test/support/compressed.ts), and an asset with textures by its KTX2 variant (every texture UASTC KTX2, test/support/ktx2.ts); three.js decodes them with DRACOLoader (decoder files from three\'s examples/jsm/libs/draco, served locally), MeshoptDecoder and KTX2Loader (transcoder from examples/jsm/libs/basis, served locally, in its worker pool, detectSupport on the bench\'s WebGPURenderer), one GLTFLoader for the run, as an app sets it up. Ours transcodes KTX2 in its own worker (src/gpu/textures/ktx2-offthread.ts).',
      'GPU B/vertex: vertex buffer bytes per vertex as uploaded, no indices, no morph targets. Ours: GpuModel.bytesPerVertex. three.js: its BufferAttributes as WebGPUAttributeUtils uploads them (non-normalized 8/16-bit integers widened to 32 bits, elements padded to 4 bytes, interleaved buffers once), over the geometries\' vertices.',
    ],
    settings: { quick, warmup, frames, rounds, counts, culling, loadRounds },
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadAverage1m: { before: loadBefore, after: loadavg()[0] } },
    rows,
    loadRows,
    pageErrors,
    seconds: (performance.now() - started) / 1000,
  }, null, 2) + '\n');
  console.log(`wrote ${out} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
