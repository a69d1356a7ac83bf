/**
 * `npm run bench -- --first-load`: what a page that shows one model costs before its first frame,
 * ours against `<model-viewer>` 4.4 (the dev dependency's dist/model-viewer.min.js, three.js
 * inside) in the same run and the same Chromium.
 *
 * Each page is one <script type="module"> and one tag with src="Fox.glb": ours loads the built
 * dist/lib/element.min.js (this script builds the library into a scratch folder first), model-viewer
 * its own bundle. A local HTTP server serves both; ours draws with WebGPU and model-viewer with WebGL,
 * both on SwiftShader (CPU rasterisers). The first frame is the second animation frame after the
 * element's `load` event; by then the page has fetched everything it needed to draw.
 * Bytes are what the page fetched by then except the model (the same file for both): each
 * script and WebAssembly response gzipped at level 9, as a server's static compression would
 * send it. Rounds alternate which page goes first; the medians are reported, with ratios ours / peer,
 * and every round's numbers are recorded.
 *
 * Every load runs in a browser of its own (its own GPU process). In one browser shared by all
 * loads, model-viewer's `load` stalled 17–39 s in some rounds: its first render's synchronous
 * WebGL calls (ANGLE on SwiftShader, in the GPU process) waited behind the GPU-process work left
 * by the page before (our WebGPU page, closed right after its first frame: the device's teardown
 * on SwiftShader), so its main thread was blocked (no timer fired) until that finished. A fresh
 * browser per load measures each page from the same cold start, as a visitor's first page is.
 *
 * The pages count what they compile before the first frame (the init script wraps the WebGPU
 * pipeline and WebGL program calls): pipelines/programs created, and for ours each pipeline's
 * label with its request and resolve times (the first-frame profile).
 * Writes bench/results/first-load-latest.json and appends a line to first-load-history.jsonl.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { assetPath } from '../test/support/assets.ts';
import { browserUnavailable, chromiumArgs, CHROMIUM } from '../test/support/browser.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const MODEL_VIEWER_DIST = join(ROOT, 'node_modules/@google/model-viewer/dist');
/** The issue's targets: at most half model-viewer's bytes, and a first frame no later than its. */
const TARGET_BYTES_RATIO = 0.5;
const TARGET_FRAME_RATIO = 1;

const MIME: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.glb': 'model/gltf-binary', '.wasm': 'application/wasm', '.map': 'application/json',
};

const PAGES = {
  ours: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/lib/element.min.js"></script>
<skinned-mesh-viewer src="/Fox.glb" style="width: 480px; height: 360px"></skinned-mesh-viewer>`,
  peer: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/model-viewer/model-viewer.min.js"></script>
<model-viewer src="/Fox.glb" style="width: 480px; height: 360px"></model-viewer>`,
};
type Side = keyof typeof PAGES;

/** Serves the two pages, our build's lib/ under /lib/, model-viewer's dist/ under /model-viewer/, and the Fox. */
function serve(libDir: string): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    let file: string | undefined;
    if (path === '/ours.html' || path === '/peer.html') {
      response.writeHead(200, { 'content-type': MIME['.html'], 'cache-control': 'no-store' });
      response.end(PAGES[path.slice(1, -'.html'.length) as Side]);
      return;
    }
    if (path === '/Fox.glb') file = assetPath('Fox');
    else if (path.startsWith('/lib/')) file = join(libDir, path.slice('/lib/'.length));
    else if (path.startsWith('/model-viewer/')) file = join(MODEL_VIEWER_DIST, path.slice('/model-viewer/'.length));
    const inside = file && (file === assetPath('Fox') || file.startsWith(libDir + sep) || file.startsWith(MODEL_VIEWER_DIST + sep));
    if (!file || !inside || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    response.end(readFileSync(file));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('first-load bench: no server address');
    done({ server, baseUrl: `http://127.0.0.1:${address.port}` });
  }));
}

/**
 * Counts what the page compiles (the WebGPU pipelines ours creates, the WebGL programs
 * model-viewer links) and when each WebGPU pipeline was asked for and arrived; and marks the
 * steps before the first frame (ms after navigation): the adapter and device asked for, the
 * synchronous part of that call (the browser's GPU channel), their arrival, the tag's definition, the WebGL context,
 * texture uploads over 2 ms, the first command submissions and when the GPU finished each
 * (onSubmittedWorkDone), and the element's `load`. A string, not a function: tsx's transform
 * would put helpers into a serialised function that the page lacks.
 */
const COMPILE_PROFILE = `(() => {
  const profile = { pipelines: [], programs: 0, marks: [] };
  window.__firstLoadProfile = profile;
  const now = () => Math.round(performance.now());
  const mark = (name, ms) => profile.marks.push({ name, ms });
  const timeCall = (proto, name, what) => {
    const original = proto[name];
    if (!original) return;
    proto[name] = function (...args) {
      const asked = now();
      mark(what + ' asked', asked);
      const result = original.apply(this, args);
      const returned = now();
      if (returned - asked > 2) mark(what + ' call returned', returned);
      if (result && typeof result.then === 'function') result.then(() => mark(what + ' arrived', now()), () => {});
      return result;
    };
  };
  if (window.GPUDevice) {
    for (const name of ['createRenderPipelineAsync', 'createComputePipelineAsync', 'createRenderPipeline', 'createComputePipeline']) {
      const original = GPUDevice.prototype[name];
      GPUDevice.prototype[name] = function (descriptor) {
        const entry = { label: String(descriptor && descriptor.label), call: name, requestedMs: now(), resolvedMs: -1 };
        profile.pipelines.push(entry);
        const result = original.call(this, descriptor);
        if (result && typeof result.then === 'function') result.then(() => { entry.resolvedMs = now(); }, () => {});
        else entry.resolvedMs = entry.requestedMs;
        return result;
      };
    }
    timeCall(GPU.prototype, 'requestAdapter', 'adapter');
    timeCall(GPUAdapter.prototype, 'requestDevice', 'device');
    for (const name of ['copyExternalImageToTexture', 'writeTexture']) {
      const original = GPUQueue.prototype[name];
      GPUQueue.prototype[name] = function (...args) {
        const start = performance.now();
        const result = original.apply(this, args);
        const end = performance.now();
        if (end - start > 2) mark(name + ' ' + Math.round(end - start) + ' ms', Math.round(start));
        return result;
      };
    }
    const submit = GPUQueue.prototype.submit;
    let submits = 0;
    GPUQueue.prototype.submit = function (buffers) {
      const index = ++submits;
      const result = submit.call(this, buffers);
      if (index <= 4) {
        mark('submit ' + index, now());
        this.onSubmittedWorkDone().then(() => mark('submit ' + index + ' done on the GPU', now()), () => {});
      }
      return result;
    };
  }
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    const asked = now();
    const result = getContext.call(this, type, ...rest);
    if (type !== '2d') mark(type + ' context (' + (now() - asked) + ' ms)', asked);
    return result;
  };
  // When the page's script (and what it imports statically) has arrived and run up to defining its
  // tag: marked as define is called, before the upgrade it starts (ours asks for its adapter there,
  // whose synchronous part can take a quarter of a second under load).
  const define = customElements.define;
  customElements.define = function (name, ...rest) {
    if (name === 'skinned-mesh-viewer' || name === 'model-viewer') mark('tag defined', now());
    return define.call(this, name, ...rest);
  };
  document.addEventListener('load', (event) => {
    const tag = event.target && event.target.localName;
    if (tag === 'skinned-mesh-viewer' || tag === 'model-viewer') mark('element load', now());
  }, true);
  const link = WebGL2RenderingContext.prototype.linkProgram;
  WebGL2RenderingContext.prototype.linkProgram = function (program) { if (profile.programs++ === 0) mark('first program linked', now()); return link.call(this, program); };
  const link1 = WebGLRenderingContext.prototype.linkProgram;
  WebGLRenderingContext.prototype.linkProgram = function (program) { if (profile.programs++ === 0) mark('first program linked', now()); return link1.call(this, program); };
})()`;

/** A step before the first frame and when it happened (ms after navigation). */
interface Mark {
  readonly name: string;
  readonly ms: number;
}

/** A WebGPU pipeline the page asked for: when (ms after navigation) and when it arrived (-1: not before the first frame). */
interface PipelineTiming {
  readonly label: string;
  readonly call: string;
  readonly requestedMs: number;
  readonly resolvedMs: number;
}

interface Round {
  /** Milliseconds from navigation start to the first frame after `load`. */
  readonly firstFrameMs: number;
  /** Scripts and WebAssembly fetched by then, gzipped at level 9; and how many responses. */
  readonly gzipBytes: number;
  readonly rawBytes: number;
  readonly files: string[];
  /** WebGPU pipelines (ours) or WebGL programs (model-viewer) created before the first frame. */
  readonly compiledBeforeFirstFrame: number;
  /** Ours: every pipeline asked for before the first frame. */
  readonly pipelines: PipelineTiming[];
  /** Both: the steps before the first frame (COMPILE_PROFILE's marks, the model's fetch), in time order. */
  readonly timeline: Mark[];
}

/** One cold load of `side`'s page (a fresh browser, no cache). */
async function measure(page: Page, baseUrl: string, side: Side): Promise<Round> {
  const bodies = new Map<string, Buffer>();
  page.on('response', (response) => {
    const url = response.url();
    if (/\.(m?js|wasm)(\?|$)/.test(url)) void response.body().then((body) => bodies.set(url, body), () => undefined);
  });
  await page.addInitScript({ content: COMPILE_PROFILE });
  await page.goto(`${baseUrl}/${side}.html`, { waitUntil: 'commit' });
  const tag = side === 'ours' ? 'skinned-mesh-viewer' : 'model-viewer';
  const { firstFrameMs, fetched, profile, model, scriptsEnd } = await page.evaluate(async (selector) => {
    const element = document.querySelector(selector)!;
    await customElements.whenDefined(selector);
    if (!(element as unknown as { loaded?: boolean }).loaded) {
      await new Promise<void>((done, fail) => {
        element.addEventListener('load', () => done(), { once: true });
        element.addEventListener('error', (event) => fail(new Error(`${selector}: ${JSON.stringify((event as CustomEvent).detail)}`)), { once: true });
      });
    }
    for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);
    return {
      firstFrameMs: performance.now(),
      fetched: performance.getEntriesByType('resource').map((entry) => entry.name),
      profile: structuredClone((window as unknown as { __firstLoadProfile: { pipelines: PipelineTiming[]; programs: number; marks: Mark[] } }).__firstLoadProfile),
      model: performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/Fox.glb'))
        .map((entry) => ({ start: entry.startTime, end: (entry as PerformanceResourceTiming).responseEnd }))[0],
      scriptsEnd: Math.max(0, ...(performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((entry) => /\.(m?js|wasm)(\?|$)/.test(entry.name)).map((entry) => entry.responseEnd)),
    };
  }, tag);
  // Bodies arrive asynchronously in the test process: wait for each one the page fetched.
  const wanted = fetched.filter((url) => /\.(m?js|wasm)(\?|$)/.test(url));
  for (let i = 0; i < 100 && wanted.some((url) => !bodies.has(url)); i++) await new Promise((done) => setTimeout(done, 20));
  let gzipBytes = 0, rawBytes = 0;
  for (const url of wanted) {
    const body = bodies.get(url);
    if (!body) throw new Error(`first-load bench: no body for ${url}`);
    rawBytes += body.length;
    gzipBytes += gzipSync(body, { level: 9 }).length;
  }
  const pipelines = profile.pipelines.map((p) => ({ ...p, resolvedMs: p.resolvedMs <= firstFrameMs ? p.resolvedMs : -1 }));
  const marks: Mark[] = [...profile.marks];
  if (model) marks.push({ name: 'model fetch started', ms: Math.round(model.start) }, { name: 'model fetched', ms: Math.round(model.end) });
  marks.push({ name: 'last script fetched', ms: Math.round(scriptsEnd) });
  marks.push({ name: 'first frame', ms: Math.round(firstFrameMs) });
  const timeline = marks.filter((m) => m.ms <= firstFrameMs).sort((a, b) => a.ms - b.ms);
  return {
    firstFrameMs, gzipBytes, rawBytes, files: wanted.map((url) => new URL(url).pathname),
    compiledBeforeFirstFrame: side === 'ours' ? pipelines.length : profile.programs, pipelines, timeline,
  };
}

/** When the round's page defined its tag (ms after navigation; -1: not seen). */
const definedMs = (round: Round): number => round.timeline.find((m) => m.name === 'tag defined')?.ms ?? -1;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function runFirstLoadBench(options: { quick: boolean }): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable) {
    console.log(`First load: skipped (${unavailable})`);
    return;
  }
  const out = mkdtempSync(join(tmpdir(), 'first-load-bench-'));
  try {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--out-dir', out, '--no-site'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`first-load bench: build failed:\n${build.stdout}\n${build.stderr}`);
    const { server, baseUrl } = await serve(join(out, 'lib'));
    // ANGLE on SwiftShader rather than on Vulkan: model-viewer draws with WebGL, which ANGLE's
    // Vulkan path cannot give here; WebGPU still runs on SwiftShader's Vulkan.
    const args = chromiumArgs().map((arg) => (arg === '--use-angle=vulkan' ? '--use-angle=swiftshader' : arg)).concat('--enable-unsafe-swiftshader');
    const rounds = options.quick ? 1 : 5;
    const results: Record<Side, Round[]> = { ours: [], peer: [] };
    const loadByRound: number[] = [];
    try {
      for (let r = 0; r < rounds; r++) {
        loadByRound.push(Math.round(loadavg()[0] * 10) / 10);
        for (const side of (r % 2 ? ['peer', 'ours'] : ['ours', 'peer']) as Side[]) {
          // A browser per load: see the module comment (a shared GPU process stalled the next page).
          const browser = await chromium.launch({ executablePath: CHROMIUM, args });
          const page = await browser.newPage();
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(error.message));
          page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
          try {
            results[side].push(await measure(page, baseUrl, side));
          } finally {
            await browser.close();
          }
          if (errors.length > 0) throw new Error(`first-load bench: ${side} page errors: ${errors.join('; ')}`);
        }
      }
    } finally {
      server.close();
    }
    const round1 = (x: number) => Math.round(x * 10) / 10;
    const summary = (side: Side) => ({
      'first frame ms': Math.round(median(results[side].map((r) => r.firstFrameMs))),
      'script+wasm gzip KB': round1(median(results[side].map((r) => r.gzipBytes)) / 1024),
      'script+wasm raw KB': round1(median(results[side].map((r) => r.rawBytes)) / 1024),
      files: results[side][0].files.length,
      'compiled before first frame': median(results[side].map((r) => r.compiledBeforeFirstFrame)),
    });
    const ours = summary('ours'), peer = summary('peer');
    const bytesRatio = ours['script+wasm gzip KB'] / peer['script+wasm gzip KB'];
    const frameRatio = ours['first frame ms'] / peer['first frame ms'];
    console.log(`First load of one Fox.glb (Chromium on SwiftShader), medians of ${rounds} cold loads each:`);
    console.table({ 'skinned-mesh-viewer': ours, 'model-viewer 4.4': peer });
    console.log(`first frame ms by round: ours ${results.ours.map((r) => Math.round(r.firstFrameMs)).join(', ')}; peer ${results.peer.map((r) => Math.round(r.firstFrameMs)).join(', ')}`);
    console.log(`ratio by round: ${results.ours.map((r, i) => (r.firstFrameMs / results.peer[i].firstFrameMs).toFixed(2)).join(', ')} (load average ${loadByRound.join(', ')})`);
    const oursFirst = results.ours.filter((r, i) => r.firstFrameMs < results.peer[i].firstFrameMs).length;
    console.log(`ours first in ${oursFirst} of ${rounds} rounds`);
    console.log(`tag defined, ms after navigation, by round: ours ${results.ours.map(definedMs).join(', ')}; peer ${results.peer.map(definedMs).join(', ')}`);
    const lastOurs = results.ours[results.ours.length - 1];
    console.log(`ours' pipelines before the first frame (last round, ms after navigation: asked → arrived; first frame ${Math.round(lastOurs.firstFrameMs)}):`);
    for (const p of lastOurs.pipelines) console.log(`  ${p.requestedMs} → ${p.resolvedMs < 0 ? 'later' : p.resolvedMs}  ${p.call} ${p.label.length > 90 ? `${p.label.slice(0, 90)}…` : p.label}`);
    for (const side of ['ours', 'peer'] as Side[]) {
      const last = results[side][results[side].length - 1];
      console.log(`${side === 'ours' ? 'ours' : 'model-viewer'}, last round, ms after navigation: ${last.timeline.map((m) => `${m.ms} ${m.name}`).join('; ')}`);
    }
    console.log(`bytes ours/peer ${bytesRatio.toFixed(2)}× (target ≤ ${TARGET_BYTES_RATIO}×: ${bytesRatio <= TARGET_BYTES_RATIO ? 'met' : 'NOT met'}); `
      + `first frame ours/peer ${frameRatio.toFixed(2)}× (target ≤ ${TARGET_FRAME_RATIO}×: ${frameRatio <= TARGET_FRAME_RATIO ? 'met' : 'NOT met'})`);
    const record = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
      rounds, ours, peer, bytesRatio, frameRatio,
      oursFiles: results.ours[0].files, peerFiles: results.peer[0].files,
      // Every round's first frame, in the order run: a median hides a stall of one side on a busy machine.
      firstFrameMsByRound: { ours: results.ours.map((r) => Math.round(r.firstFrameMs)), peer: results.peer.map((r) => Math.round(r.firstFrameMs)) },
      // Every round's tag definition (ms after navigation): when the page's script had arrived and run.
      tagDefinedMsByRound: { ours: results.ours.map(definedMs), peer: results.peer.map(definedMs) },
      // Each round's ratio (the same round's two loads) and the load average as the round began.
      frameRatioByRound: results.ours.map((r, i) => Math.round((r.firstFrameMs / results.peer[i].firstFrameMs) * 100) / 100),
      loadavgByRound: loadByRound,
      // How many rounds ours drew its first frame before model-viewer did.
      oursFirstInRounds: oursFirst,
      // Ours, round by round: each pipeline asked for before the first frame, requested and resolved (ms after navigation).
      oursPipelinesByRound: results.ours.map((r) => r.pipelines),
      // Both, round by round: the steps before the first frame (ms after navigation).
      timelineByRound: { ours: results.ours.map((r) => r.timeline), peer: results.peer.map((r) => r.timeline) },
      sizes: JSON.parse(readFileSync(join(out, 'sizes.json'), 'utf8')).entries,
    };
    const results_ = resolve(HERE, 'results');
    mkdirSync(results_, { recursive: true });
    const latest = join(results_, options.quick ? 'first-load-quick.json.tmp' : 'first-load-latest.json');
    writeFileSync(latest, JSON.stringify(record, null, 2) + '\n');
    if (!options.quick) {
      appendFileSync(join(results_, 'first-load-history.jsonl'), JSON.stringify({
        date: record.date, ours, peer, bytesRatio, frameRatio, frameRatioByRound: record.frameRatioByRound, loadavgByRound: loadByRound, oursFirstInRounds: oursFirst,
        tagDefinedMsByRound: record.tagDefinedMsByRound,
      }) + '\n');
    }
    console.log(`wrote ${latest}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
