/**
 * The library build: `scripts/build.mjs` (what `npm run build` and the package's `prepack`
 * run), the build `npm pack` packs (test/support/packed-library.ts, shared with
 * package-consumer.test.ts), checked as a consumer sees it — the files package.json `exports`
 * names, a self-contained ES module, declarations a TypeScript project can use through the
 * package name, and the built module registering a working <skinned-mesh-viewer> in Chromium.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DRACO_WORKER_MEASURE } from '../../src/gltf/extensions/draco-offthread.ts';
import { KTX2_WORKER_MEASURE } from '../../src/gpu/textures/ktx2-offthread.ts';
import { assetPath } from '../support/assets.ts';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { compressFile } from '../support/compressed.ts';
import { ktx2Glb } from '../support/ktx2.ts';
import { packedLibrary, STALE_DECLARATION } from '../support/packed-library.ts';
import { decodeBase64Image, foregroundFraction } from './element-support.ts';
import { ELEMENT_ENTRY, LIBRARY_ENTRIES } from '../../vite.config.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** The packed build (inside the repository, so the declarations resolve @webgpu/types from its node_modules). */
let OUT: string;
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string; types: string; module: string; exports: Record<string, string | Record<string, string>>; files: string[];
};

/**
 * Gzipped bytes the element's first load may take (its entry and static chunks): under the issue's
 * target, half of model-viewer 4.4's 284.3 KB (145,562 B; bench/first-load.ts measures the ratio).
 * Set at 144,000 when it took 143,228 B; 145,000 since session 7 added two things the first frame
 * needs, the WebCodecs texture upload (textures/video-frame-pixels.ts) and the CPU prefilter of the
 * neutral environment (environment/cpu-prefilter.ts), together 144,542 B.
 */
const ELEMENT_FIRST_LOAD_BUDGET = 145_000;

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** `./dist/lib/x.js` → the same file in the scratch build. */
function built(packagePath: string): string {
  return join(OUT, packagePath.replace(/^\.\/dist\//, ''));
}

/**
 * The specifiers of a built module's static imports and re-exports, and of its lazy `import("…")`s.
 * Comment blocks that start a line (the readable build keeps bundled code's JSDoc, whose examples
 * write imports) are not code; the minified build has none, nor spaces (`import{a as b}from"./c.js"`),
 * and writes a lazy import's path in backquotes.
 */
function importsOf(source: string): { statics: string[]; lazy: string[] } {
  const code = source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '');
  return {
    statics: [...code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[^'"`;]*?[\s}]from\s*)?["']([^"']+)["']/g)].map((m) => m[1]),
    lazy: [...code.matchAll(/\bimport\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]),
  };
}

/** The paths of `file` (in lib/) and of every chunk it imports, statically or lazily, transitively. */
function chunkPaths(file: string): string[] {
  const seen = new Set([join(OUT, 'lib', file)]);
  const stack = [...seen];
  while (stack.length > 0) {
    const path = stack.pop()!;
    const { statics, lazy } = importsOf(readFileSync(path, 'utf8'));
    for (const spec of [...statics, ...lazy]) {
      const next = resolve(dirname(path), spec);
      if (spec.startsWith('.') && !seen.has(next)) { seen.add(next); stack.push(next); }
    }
  }
  return [...seen];
}

/** The code of `file` (in lib/) and of every chunk it imports, statically or lazily, transitively. */
function withChunks(file: string): string[] {
  return chunkPaths(file).map((p) => readFileSync(p, 'utf8'));
}

/** The source modules a built file holds, by its source map (none for a file without one). */
function sourcesOf(file: string): string[] {
  return existsSync(`${file}.map`) ? (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources : [];
}

/**
 * The source modules that are in more than one of `files` (paths of one build's modules), by
 * each file's source map: a module bundled twice runs twice on a page that loads both files (two
 * shared GPU devices, two element classes under one tag). A file without a map holds no module's
 * code (an entry that only re-exports a chunk).
 */
function modulesInTwoFiles(files: readonly string[]): string[] {
  const fileOf = new Map<string, string>();
  const twice: string[] = [];
  for (const file of files) {
    for (const source of sourcesOf(file)) {
      const first = fileOf.get(source);
      if (first === undefined) fileOf.set(source, file);
      else twice.push(`${source} in ${first} and ${file}`);
    }
  }
  return twice;
}

describe('library build', () => {
  beforeAll(() => { OUT = packedLibrary().dist; }, 300_000);

  it('writes every file package.json points at', () => {
    const targets = [PACKAGE.types, PACKAGE.module];
    for (const entry of Object.values(PACKAGE.exports)) {
      if (typeof entry === 'string') continue;
      targets.push(...Object.values(entry));
    }
    for (const target of targets) expect(existsSync(built(target)), target).toBe(true);
    // The build's three folders; the guides and the pictures the packed README links (package-publish.test.ts).
    expect(PACKAGE.files).toEqual(['dist/lib', 'dist/types', 'dist/cli', 'docs/*.md', 'public/demo.png', 'public/demo-embedded.png']);
    expect(existsSync(join(OUT, 'types', STALE_DECLARATION, '..'))).toBe(false);
  });

  it('prints no warning: npm pack (its prepack, the build) writes nothing to stderr', () => {
    // Once there were draco's "Module fs/path has been externalized", rolldown's "name is a
    // function. Set … debugName" (vite.config.ts dracoNodeBranchUnused, elementFirstLoadChunk).
    expect(packedLibrary().packStderr).toBe('');
  });

  it('reports each minified entry and chunk with its size, and what an entry loads before its first lazy import (sizes.json)', () => {
    const sizes = JSON.parse(readFileSync(join(OUT, 'sizes.json'), 'utf8')) as {
      entries: { entry: string; bytes: number; gzip: number; firstLoad: { files: number; bytes: number; gzip: number }; lazy: string[] }[];
      chunks: Record<string, { bytes: number; gzip: number; imports: string[] }>;
    };
    expect(sizes.entries.map((e) => e.entry).sort()).toEqual(LIBRARY_ENTRIES.map((e) => `${e.name}.min.js`).sort());
    for (const [file, chunk] of Object.entries(sizes.chunks)) {
      const data = readFileSync(join(OUT, 'lib', file));
      expect(chunk.bytes, file).toBe(data.length);
      expect(chunk.gzip, file).toBe(gzipSync(data, { level: 9 }).length);
    }
    const minChunks = readdirSync(join(OUT, 'lib/chunks')).filter((f) => f.endsWith('.js') && Object.keys(sizes.chunks).includes(`chunks/${f}`));
    expect(minChunks.length).toBeGreaterThan(0);
    for (const entry of sizes.entries) {
      // The first load is the entry and its static imports, transitively: at least the entry, and
      // for the element, the chunk that defines the tag; the EXR decoder stays out of every first load.
      expect(entry.firstLoad.gzip, entry.entry).toBeGreaterThanOrEqual(entry.gzip);
      expect(entry.firstLoad.files, entry.entry).toBeGreaterThanOrEqual(1 + sizes.chunks[entry.entry].imports.length);
    }
    const element = sizes.entries.find((e) => e.entry === `${ELEMENT_ENTRY}.min.js`)!;
    expect(element.lazy.some((f) => f.includes('EXRLoader'))).toBe(true);
    // The element's first load is its entry and one chunk (vite.config.ts elementFirstLoadChunk),
    // which the other entries import what they share with it from: not a wave of shared chunks.
    expect(sizes.chunks[element.entry].imports).toEqual([expect.stringMatching(/^chunks\/element-[\w-]+\.js$/)]);
    expect(element.firstLoad.files).toBe(2);
    // Each entry names every chunk of its first load itself (vite.config.ts hoistedChunkImports): a
    // page asks for them all once it has read the entry, not one import level at a time.
    for (const entry of sizes.entries) {
      const reached = new Set<string>(sizes.chunks[entry.entry].imports);
      for (const file of reached) for (const next of sizes.chunks[file].imports) reached.add(next);
      const named = importsOf(readFileSync(join(OUT, 'lib', entry.entry), 'utf8')).statics.map((spec) => spec.replace(/^\.\//, ''));
      expect(new Set(named), entry.entry).toEqual(reached);
    }
  });

  it('the element\'s first load carries what a plain glTF needs: crowds, built-in models, retargeting, environment decoders, the WGSL of MToon, the PBR extensions, the GPU culling/record passes and compute pre-skinning (code and WGSL), the DQ palette pass\'s WGSL, the debug views (code and WGSL), the VRM readers and runtime, the less common material extensions\' and instancing\'s readers, the ray caster of hotspots and picking, the page-thread KTX2 transcoding, the Draco decoding, the CPU downscaler of oversized images and wgpu-matrix are lazy chunks', () => {
    const sizes = JSON.parse(readFileSync(join(OUT, 'sizes.json'), 'utf8')) as {
      entries: { entry: string; firstLoad: { files: number; gzip: number }; lazy: string[] }[];
      chunks: Record<string, { imports: string[] }>;
    };
    const element = sizes.entries.find((e) => e.entry === 'element.min.js')!;
    const firstLoad = new Set(['element.min.js']);
    for (const file of firstLoad) for (const next of sizes.chunks[file].imports) firstLoad.add(next);
    expect(firstLoad.size).toBe(element.firstLoad.files);
    const code = (files: Iterable<string>) => [...files].map((f) => readFileSync(join(OUT, 'lib', f), 'utf8')).join('\n');
    const eager = code(firstLoad), lazy = code(element.lazy);
    // Text each part keeps through minification (WGSL entry points, messages, names).
    const parts: Record<string, string> = {
      'the GPU crowd evaluator (instances)': 'fn sampleLocals',
      'MToon\'s WGSL (a VRM file)': 'fn fsMToon',
      'the PBR extensions\' WGSL (KHR_materials_*)': 'fn fsExtended',
      'the built-in models (builtin:)': 'twist-cylinder',
      'retargeting (animation-src)': 'translationJoints: the target has no skeleton joint',
      'the Radiance HDR decoder (environment-image)': '#?RADIANCE',
      'the GPU culling pass\'s WGSL (crowds)': 'fn writeArgs',
      'the GPU record pass\'s WGSL (crowds)': 'fn writeRecords',
      'compute pre-skinning\'s WGSL (skinning-path="compute")': 'fn preskin(',
      'the GPU dual-quaternion palette pass\'s WGSL (crowds skinned by dual quaternions)': 'fn jacobiEigen3',
      'the GPU dual-quaternion palette pass\'s TypeScript (dual-quaternion or centre-of-rotation skinning)': 'DqPalettePass.encode: prepare() first',
      'the debug overlays\' WGSL (debug-view)': 'fn fsBone(',
      'the sheen albedo table\'s builder (KHR_materials_sheen)': 'fn fsSheenAlbedo',
      'the VRM readers (a file with a VRM part)': 'is not a VRM 0.x shader three-vrm converts',
      'the Draco decoding (a KHR_draco_mesh_compression file)': 'draco-worker-decode',
      // A property of its factory-built API (names of properties survive minification); the camera uses src/math/view-projection.ts.
      'wgpu-matrix (the built-in models\' rig)': 'perspectiveReverseZ',
      'the GPU culling pass\'s TypeScript (crowds on the GPU)': 'GpuCuller.encode: resize to the source records first',
      'the GPU record pass\'s TypeScript (crowds on the GPU)': 'GpuRecords.encode: instances',
      'the debug views\' TypeScript (debug)': 'skeleton joints`',
      'compute pre-skinning\'s TypeScript (skinning-path="compute", or shadows with "auto")': 'vertices need more than',
      'the bounds overlay\'s TypeScript (debug="bounds")': 'bounds boxes ×',
      'the VRM runtime: spring bones, look-at, expressions, constraints (a VRM model)': 'SpringBoneJob: worldFromModel is not finite',
      'the skinned ray caster (hotspots, positionAndNormalFromPoint)': 'SkinnedRaycaster.cast: the instance is of another model',
      'the less common material extensions\' readers (VRMC_materials_mtoon, clearcoat…)': 'is not a VRMC_materials_mtoon version this reader knows',
      'KHR_animation_pointer\'s channel reader (a pointer channel)': 'channel needs the KHR_animation_pointer extension object',
      'EXT_mesh_gpu_instancing\'s reader (an instanced node)': 'has no attributes; the node is drawn once, as three.js r187 does',
      'ktx-parse and the KTX2 transcoding glue (a page transcodes in its worker; only without one on its own thread)': 'Missing KTX 2.0 identifier.',
    };
    for (const [part, text] of Object.entries(parts)) {
      expect(eager.includes(text), `${part} in the first load`).toBe(false);
      expect(lazy.includes(text), `${part} in a lazy chunk`).toBe(true);
    }
    // Parts with no text that survives minification are found by module, in the files' source maps.
    const lazyModules: Record<string, string> = {
      'the CPU box filter for images over the device\'s texture size limit': 'src/gpu/textures/downscale.ts',
    };
    const modulesOf = (files: Iterable<string>) => [...files].flatMap((f) => sourcesOf(join(OUT, 'lib', f)));
    const eagerModules = modulesOf(firstLoad), lazyChunkModules = modulesOf(element.lazy);
    for (const [part, module] of Object.entries(lazyModules)) {
      expect(eagerModules.some((m) => m.endsWith(module)), `${part} in the first load`).toBe(false);
      expect(lazyChunkModules.some((m) => m.endsWith(module)), `${part} in a lazy chunk`).toBe(true);
    }
    // The WGSL is carried without its comments and indentation (scripts/wgsl-compact.mjs): the mesh
    // shader's code is there, a comment of its header and an indented line are not.
    expect(eager).toContain('override DEPTH_PULL: f32 = 0.0;');
    expect(eager).not.toContain('WebGPU has no depth bias for line topologies');
    expect(eager).not.toMatch(/(\\n|\n) {4}let /);
    // The minified files are printed without whitespace (vite.config.ts: minify `codegen`), not as Vite prints an ES library.
    expect(eager).toMatch(/^(?:import|export)\{[^}]+\}from"\.\/[\w/-]+\.js";/m);
    expect(eager).not.toMatch(/^(?:import|export) \{/m);
    // The budget the first-load benchmark measures against (docs/performance.md): grows only on purpose.
    expect(element.firstLoad.gzip).toBeLessThan(ELEMENT_FIRST_LOAD_BUDGET);
  });

  it('bundles each module once: no source module is in two files of the same build (minified or readable)', () => {
    const sizes = JSON.parse(readFileSync(join(OUT, 'sizes.json'), 'utf8')) as { chunks: Record<string, { worker?: boolean }> };
    // Workers run in a realm of their own and are built apart (each carries what it imports).
    const minified = Object.keys(sizes.chunks).filter((f) => !sizes.chunks[f].worker).map((f) => join(OUT, 'lib', f));
    expect(minified.filter((f) => existsSync(`${f}.map`)).length).toBeGreaterThan(10);
    expect(modulesInTwoFiles(minified)).toEqual([]);
    const readable = new Set(LIBRARY_ENTRIES.flatMap((e) => chunkPaths(`${e.name}.js`)).filter((f) => !f.includes('/assets/')));
    expect(readable.size).toBeGreaterThan(10);
    expect(modulesInTwoFiles([...readable])).toEqual([]);
  });

  it('is self-contained ES modules: every import is a file of the build (wgpu-matrix and the WGSL bundled in)', () => {
    const files = readdirSync(join(OUT, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    for (const file of files) {
      const { statics, lazy } = importsOf(readFileSync(join(OUT, 'lib', file), 'utf8'));
      for (const spec of [...statics, ...lazy]) {
        expect(spec, `${file} imports ${spec}`).toMatch(/^\.\.?\//);
        expect(existsSync(resolve(dirname(join(OUT, 'lib', file)), spec)), `${file} imports ${spec}`).toBe(true);
      }
    }
    for (const file of ['skinned-mesh-webgpu.js', 'skinned-mesh-webgpu.min.js', 'element.js', 'element.min.js']) {
      const code = withChunks(file).join('\n');
      expect(code).toContain('skinned-mesh-viewer');
      expect(code).toMatch(/@vertex/);
    }
  });

  it('carries the Draco decoder (its JS and WebAssembly) only in the worker asset each module starts', () => {
    // A string of the decoder's Emscripten glue, and the inlined WebAssembly.
    const decoderJs = 'both async and sync fetching of the wasm failed';
    const wasm = 'data:application/wasm;base64,';
    for (const file of ['skinned-mesh-webgpu.js', 'skinned-mesh-webgpu.min.js']) {
      const modules = withChunks(file);
      for (const code of modules) {
        expect(code, file).not.toContain(decoderJs);
        expect(code, file).not.toContain(wasm);
      }
      // What a page without Workers gets instead of a decoder: the message, in a chunk the module imports.
      expect(modules.some((c) => c.includes('cannot start a Web Worker, where the library decodes Draco')), file).toBe(true);
      const code = modules.join('\n');
      const worker = /assets\/draco-worker-[\w-]+\.js/.exec(code)?.[0];
      expect(worker, file).toBeDefined();
      const workerCode = readFileSync(join(OUT, 'lib', worker!), 'utf8');
      expect(workerCode).toContain(decoderJs);
      expect(workerCode).toContain(wasm);
    }
  });

  it('carries the Basis transcoder only in the KTX2 worker asset each module starts, and writes the licences of the third-party code it carries', () => {
    // The transcoder's Emscripten glue, and its inlined WebAssembly (~530 KB).
    const transcoderJs = 'both async and sync fetching of the wasm failed';
    const wasm = 'data:application/wasm;base64,';
    for (const file of ['skinned-mesh-webgpu.js', 'skinned-mesh-webgpu.min.js']) {
      const modules = withChunks(file);
      for (const code of modules) expect(code, file).not.toContain(wasm);
      // What a page without Workers gets instead of a transcoder: the message, in a chunk the module imports lazily.
      expect(modules.some((c) => c.includes('cannot start a Web Worker, where the library transcodes KTX2')), file).toBe(true);
      const code = modules.join('\n');
      const worker = /assets\/ktx2-worker-[\w-]+\.js/.exec(code)?.[0];
      expect(worker, file).toBeDefined();
      const workerCode = readFileSync(join(OUT, 'lib', worker!), 'utf8');
      expect(workerCode).toContain(transcoderJs);
      expect(workerCode).toContain(wasm);
    }
    // The OpenEXR decoder (three.js's EXRLoader, with its Huffman tables) is a lazy chunk, loaded by
    // the first `.exr`; it carries only the parts of three.js it imports, so it does not announce
    // itself as three.js on the page.
    const exrDecoder = 'Something wrong with hufUnpackEncTable';
    const chunks = readdirSync(join(OUT, 'lib/chunks')).filter((f) => f.endsWith('.js'));
    for (const file of ['skinned-mesh-webgpu.js', 'skinned-mesh-webgpu.min.js', 'element.js', 'element.min.js']) {
      expect(readFileSync(join(OUT, 'lib', file), 'utf8'), file).not.toContain(exrDecoder);
    }
    const exrChunks = chunks.filter((f) => readFileSync(join(OUT, 'lib/chunks', f), 'utf8').includes(exrDecoder));
    expect(exrChunks.length).toBe(2);
    for (const f of exrChunks) expect(readFileSync(join(OUT, 'lib/chunks', f), 'utf8'), f).not.toContain('__THREE__');
    const notices = readFileSync(join(OUT, 'lib/THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const name of ['wgpu-matrix', 'meshoptimizer', 'ktx-parse', 'draco3dgltf', 'three', 'fflate', 'OpenEXR and TinyEXR notices', 'Basis Universal transcoder']) {
      expect(notices).toMatch(new RegExp(`^## ${name} `, 'm'));
    }
    expect(notices).toContain('Apache License');
    expect(notices).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
  });

  it('has declarations a TypeScript project can use through the package name', () => {
    expect(readFileSync(join(OUT, 'types/index.d.ts'), 'utf8')).toContain('/// <reference types="@webgpu/types"');
    expect(readFileSync(join(OUT, 'types/element/index.d.ts'), 'utf8')).toContain('HTMLElementTagNameMap');
    // A consumer with the package installed: node_modules/<name> holding package.json and dist.
    const consumer = join(OUT, 'consumer');
    const installed = join(consumer, 'node_modules', PACKAGE.name);
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, 'package.json'), JSON.stringify(PACKAGE));
    symlinkSync(OUT, join(installed, 'dist'), 'dir');
    writeFileSync(join(consumer, 'use.ts'), `
import { loadGltf, SkinnedMeshViewerElement, type ViewerErrorDetail } from '${PACKAGE.name}';
const viewer = document.createElement('skinned-mesh-viewer');
const typed: SkinnedMeshViewerElement = viewer;
viewer.addEventListener('error', (event) => { const detail: ViewerErrorDetail = event.detail; console.log(detail.message, detail.kind); });
viewer.addEventListener('progress', (event) => console.log(event.detail.loaded / event.detail.total));
viewer.addEventListener('click', (event) => console.log(event.clientX));
viewer.cameraOrbit = '30deg 75deg 2.5m';
// @ts-expect-error src is string | null: proves the declarations resolved (not any)
const wrong: number = viewer.src;
// @ts-expect-error a load event's detail has no byte counts
viewer.addEventListener('load', (event) => event.detail.loaded);
const device: GPUDevice | undefined = undefined;
void [typed, wrong, device, loadGltf];
`);
    for (const moduleResolution of ['Bundler', 'NodeNext']) {
      writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: moduleResolution === 'Bundler' ? 'ESNext' : 'NodeNext', moduleResolution, strict: true,
          noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
        },
        files: ['use.ts'],
      }));
      const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
      const check = spawnSync(process.execPath, [tsc, '-p', consumer], { cwd: consumer, encoding: 'utf8' });
      expect(`${check.stdout}${check.stderr}`.trim(), moduleResolution).toBe('');
      expect(check.status).toBe(0);
    }
  }, 60_000);

  describe.skipIf(!!unavailable)('in Chromium', () => {
    const session = useBrowserSession();

    /** Serves the build under /built/, opens element-dist.html on it and waits for its viewer's built-in character. */
    async function openBuiltPage(page: Page): Promise<void> {
      await page.route('**/built/**', async (route) => {
        const path = join(OUT, new URL(route.request().url()).pathname.replace(/^\/built\//, ''));
        await route.fulfill({ status: 200, contentType: 'text/javascript', body: readFileSync(path) });
      });
      await page.goto(`${session.baseUrl}/test/browser/pages/element-dist.html`);
      await page.waitForFunction(() => customElements.get('skinned-mesh-viewer') !== undefined && window.helpers !== undefined);
      await page.evaluate(() => window.helpers.whenLoaded(window.helpers.viewer('viewer'), 45_000));
    }

    /** Serves `glb` at /models/NAME and loads it into the page's viewer. */
    async function loadServedModel(page: Page, name: string, glb: Uint8Array): Promise<void> {
      await page.route(`**/models/${name}`, (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: Buffer.from(glb) }));
      await page.evaluate(async (src) => {
        const viewer = window.helpers.viewer('viewer');
        const loaded = window.helpers.nextLoad(viewer, 45_000);
        viewer.setAttribute('src', src);
        await loaded;
      }, `/models/${name}`);
    }

    it('one <script type="module"> of the built file registers a working element; a second copy is ignored', async () => {
      const { page, consoleErrors } = await session.newPage();
      const warnings: string[] = [];
      page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
      try {
        await openBuiltPage(page);
        const { base64 } = await page.evaluate(() => window.helpers.captureBase64(window.helpers.viewer('viewer')));
        expect(foregroundFraction(decodeBase64Image(base64))).toBeGreaterThan(0.03);
        const names = await page.evaluate(() => window.helpers.viewer('viewer').animations);
        expect(names).toEqual(['Walk', 'Idle', 'Wave']);
        await page.evaluate("import('/built/lib/skinned-mesh-webgpu.min.js')");
        expect(warnings.some((w) => w.includes('already defined by another copy'))).toBe(true);
        expect(consoleErrors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);

    it('a Draco-compressed shared asset loads and renders, decoded in the bundled worker, with no request beyond the page\'s server', async () => {
      const { page, consoleErrors } = await session.newPage();
      const requests: string[] = [];
      page.context().on('request', (request) => requests.push(request.url()));
      const fox = await compressFile(assetPath('Fox'), 'draco');
      try {
        await openBuiltPage(page);
        await loadServedModel(page, 'fox-draco.glb', fox);
        // Decoded off the main thread: the library's worker ran (it ends itself when idle, so
        // it is looked for now) and the page recorded one measure per primitive it decoded.
        expect(page.workers().map((w) => new URL(w.url()).pathname)).toContainEqual(expect.stringMatching(/^\/built\/lib\/assets\/draco-worker-[\w-]+\.js$/));
        const measures = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMeasure).detail as string), DRACO_WORKER_MEASURE);
        expect(measures).toEqual(['meshes[0].primitives[0].extensions.KHR_draco_mesh_compression']);
        const { base64 } = await page.evaluate(() => window.helpers.captureBase64(window.helpers.viewer('viewer')));
        expect(foregroundFraction(decodeBase64Image(base64))).toBeGreaterThan(0.03);
        expect(await page.evaluate(() => window.helpers.viewer('viewer').animations)).toEqual(['Survey', 'Walk', 'Run']);
        // The decoder's JS and WebAssembly came with the build: nothing but the page's own server (data: URLs are not requests).
        expect(requests.filter((url) => !url.startsWith(`${session.baseUrl}/`) && !url.startsWith('data:'))).toEqual([]);
        expect(requests).toContainEqual(expect.stringMatching(/\/built\/lib\/assets\/draco-worker-[\w-]+\.js$/));
        expect(consoleErrors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 90_000);

    it('a KTX2-textured shared asset loads and renders, transcoded in the bundled worker, with no request beyond the page\'s server', async () => {
      const { page, consoleErrors } = await session.newPage();
      const requests: string[] = [];
      page.context().on('request', (request) => requests.push(request.url()));
      // CesiumMan's only texture as UASTC KTX2, required, with no plain source to fall back to.
      const man = await ktx2Glb(new Uint8Array(readFileSync(assetPath('CesiumMan'))));
      try {
        await openBuiltPage(page);
        await loadServedModel(page, 'man-ktx2.glb', man);
        expect(page.workers().map((w) => new URL(w.url()).pathname)).toContainEqual(expect.stringMatching(/^\/built\/lib\/assets\/ktx2-worker-[\w-]+\.js$/));
        const measures = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMeasure).detail as string), KTX2_WORKER_MEASURE);
        expect(measures).toEqual(['images[0]']);
        const { base64 } = await page.evaluate(() => window.helpers.captureBase64(window.helpers.viewer('viewer')));
        expect(foregroundFraction(decodeBase64Image(base64))).toBeGreaterThan(0.03);
        expect(requests.filter((url) => !url.startsWith(`${session.baseUrl}/`) && !url.startsWith('data:'))).toEqual([]);
        // The transcoder came in the worker's file: no chunk of it was fetched by the page.
        expect(requests.filter((url) => /basis_transcoder/.test(url))).toEqual([]);
        expect(consoleErrors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 120_000);
  });
});
