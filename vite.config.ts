import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, Rolldown } from 'vite';
import { defineConfig } from 'vitest/config';
import { servedApiReference } from './scripts/api-reference-server.mjs';
import { LANES_VARIABLE, LATE_BROWSER_TESTS } from './scripts/test.mjs';
import { compactWgslImports } from './scripts/wgsl-compact.mjs';

/** The `bake` command as plain Node JavaScript (package.json `bin`), built by `--mode cli`. */
export const CLI_FILE = 'skinned-mesh-bake.js';

/**
 * The library's entries, each a file in dist/lib (NAME.js, and NAME.min.js minified) and a
 * subpath of the package (package.json `exports`): the full API, and the parts a page may
 * want alone, so that it pays only for what it imports.
 */
export const LIBRARY_ENTRIES: readonly { name: string; subpath: string; source: string }[] = [
  { name: 'skinned-mesh-webgpu', subpath: '.', source: 'src/index.ts' },
  { name: 'element', subpath: './element', source: 'src/element/index.ts' },
  { name: 'crowd', subpath: './crowd', source: 'src/crowd/index.ts' },
  { name: 'retarget', subpath: './retarget', source: 'src/anim/retarget/index.ts' },
  { name: 'environment', subpath: './environment', source: 'src/gpu/environment/index.ts' },
  { name: 'bake', subpath: './bake', source: 'src/bake/index.ts' },
];

/** The entry a page loads to embed the tag; its first load is one chunk (elementFirstLoadChunk). */
export const ELEMENT_ENTRY = 'element';

/** The Draco decoder's JS module, which draco.ts imports when a file first needs it. */
const DRACO_DECODER_MODULE = 'draco3dgltf/draco_decoder_gltf_nodejs.js';
/** The Node built-ins the Draco decoder's module requires, in its Node branch only (dracoNodeBranchUnused). */
const DRACO_NODE_BUILTINS = ['fs', 'path'];
/**
 * The largest file the site build may write without Vite's ">500 kB chunk" warning, in kB: the
 * files that carry the Basis transcoder, its 527 KB of WebAssembly inlined as base64 (a worker is
 * one file: it cannot fetch a chunk), the KTX2 worker (753 KB) and the site's page-thread
 * fallback (basis_transcoder-*.js, 703 KB). Both load only when a KTX2 image is met, so their size
 * is not a first-load cost; the build's size report (scripts/build-sizes.mjs) lists every file.
 * Anything else past Vite's 500 kB is far above our largest chunk (the element's, ~410 kB).
 */
const BASIS_TRANSCODER_FILES_MAX_KB = 800;
/** The Basis transcoder's script and WebAssembly, which basis-transcoder.ts imports when a KTX2 image is first transcoded. */
const BASIS_TRANSCODER_SCRIPT = 'three/examples/jsm/libs/basis/basis_transcoder.js?raw';
const BASIS_TRANSCODER_WASM = 'three/examples/jsm/libs/basis/basis_transcoder.wasm?inline';

/**
 * In the library build, the page's own thread gets no Draco decoder and no Basis transcoder:
 * pages decode and transcode in the bundled workers (whose builds do not use this plugin and
 * have the real ones), so the main module does not carry them for nothing. Where a page
 * cannot start a worker, a Draco file fails with the message below (a GltfError naming the
 * primitive), and a KTX2 image too (naming the image; its texture falls back to `source`).
 */
function decodersOnlyInWorkers(): Plugin {
  const noWorker = (what: string) => `this page cannot start a Web Worker, where the library ${what}`;
  const stubs: Record<string, string> = {
    [DRACO_DECODER_MODULE]: `export default () => Promise.reject(new Error(${JSON.stringify(noWorker('decodes Draco'))}));`,
    // Evaluated by basis-transcoder.ts as the transcoder's script: it throws, so loading fails with the message.
    [BASIS_TRANSCODER_SCRIPT]: `export default ${JSON.stringify(`throw new Error(${JSON.stringify(noWorker('transcodes KTX2'))});`)};`,
    [BASIS_TRANSCODER_WASM]: 'export default "";',
  };
  const prefix = '\0decoder-needs-a-worker:';
  return {
    name: 'decoders-only-in-workers',
    enforce: 'pre',
    resolveId: (id) => (Object.hasOwn(stubs, id) ? prefix + id : undefined),
    load: (id) => (id.startsWith(prefix) ? stubs[id.slice(prefix.length)] : undefined),
  };
}

/**
 * draco3dgltf's decoder is one Emscripten file for Node and browsers. It `require`s Node's `fs`
 * and `path` only inside its Node branch (`typeof process.versions.node == "string"`), which a
 * page or a worker never takes; in a browser build they are an empty module, said here, rather
 * than Vite's browser-compatibility stub with a warning for each on every build. Only for that
 * module: any other browser import of a Node built-in still warns.
 */
function dracoNodeBranchUnused(): Plugin {
  const prefix = '\0draco-node-branch:';
  return {
    name: 'draco-node-branch-unused',
    enforce: 'pre',
    resolveId: (id, importer) => (DRACO_NODE_BUILTINS.includes(id) && importer?.replaceAll('\\', '/').endsWith(`node_modules/${DRACO_DECODER_MODULE}`) ? prefix + id : undefined),
    load: (id) => (id.startsWith(prefix) ? 'export default {};' : undefined),
  };
}

/**
 * The test files that drive Chromium (test/support/browser.ts startBrowserSession): the
 * 'browser' test project. A file that does and is not listed still works; it starts its own
 * Chromium and dev server.
 */
const BROWSER_TESTS = ['test/browser/**/*.test.ts', 'test/gpu/**/browser-render.test.ts', 'test/gpu/**/compressed-assets-render.test.ts'];

/**
 * `npm test`'s lanes (scripts/test.mjs, which sets LANES_VARIABLE) run these browser files in a
 * 'browser-late' project of their own, in the second lane after the gpu project; anywhere else
 * they are in the 'browser' project with the rest.
 */
const LATE_BROWSER = process.env[LANES_VARIABLE] ? LATE_BROWSER_TESTS : [];

/**
 * The Node tests on a Dawn device (and the rest of their folders): the 'gpu' project, whose files run one after another in a
 * worker without isolation, so they share the worker's device and the renderer's per-device
 * pipelines (test/support/webgpu.ts). A file that resets modules (ktx2-offthread: a fresh
 * worker pool) is in the 'node-isolated' project (NODE_ISOLATED_TESTS).
 */
const GPU_TESTS = ['test/gpu/**/!(ktx2-offthread).test.ts', 'test/crowd/**/*.test.ts', 'test/bake/**/*.test.ts'];

/**
 * The plain Node files that run isolated, each in a fresh worker and module registry (the
 * 'node-isolated' project): those that mock modules or reset the registry (vi.mock,
 * vi.resetModules), and those that count the heap's growth to show that a frame allocates
 * nothing (test/support/allocation.ts), which what earlier files left running in a shared worker
 * can make fail (seen: quat.test.ts and anim/vrm/allocation.test.ts, 9.6 MB and 0.3 MB a round).
 * The other plain Node files run without isolation, several to a worker sharing its loaded
 * modules, which spares each file importing them again (import time summed over the project's
 * files, under load: 170 s isolated, 34 s not). test/scripts/test-lanes.test.ts keeps this list complete.
 */
export const NODE_ISOLATED_TESTS = [
  // Mock or reset modules.
  'test/anim/vrm/runtime-loader.test.ts',
  'test/element/lighting-prefilter-failure.test.ts',
  'test/element/stage.test.ts',
  'test/gltf/extensions/draco-offthread.test.ts',
  'test/gltf/extensions/lazy.test.ts',
  'test/gltf/extensions/material-presence.test.ts',
  'test/gpu/textures/ktx2-offthread.test.ts',
  'test/skin/centers-of-rotation/offthread.test.ts',
  // Count allocations.
  'test/anim/allocation.test.ts',
  'test/anim/crowd.test.ts',
  'test/anim/loop-time.test.ts',
  'test/anim/player.test.ts',
  'test/anim/vrm/allocation.test.ts',
  'test/element/allocation.test.ts',
  'test/element/animation-api.test.ts',
  'test/math/allocation.test.ts',
  'test/skin/raycast.test.ts',
];

/** Workers for the plain Node files: one per core (at least two). */
const NODE_WORKERS = Math.max(2, availableParallelism());

/**
 * three.js's EXRLoader (src/gpu/environment/exr.ts) imports a few classes and constants from
 * 'three'. Given whole, three.js's module also announces itself on the page (window.__THREE__,
 * which makes a page that has its own three.js warn about two copies) and brings far more
 * code than the loader runs; so the loader's 'three' is a module of just those parts, from
 * three's own src/ files.
 */
function exrLoaderAlone(): Plugin {
  const parts = '\0three-parts-for-exr-loader';
  return {
    name: 'exr-loader-alone',
    enforce: 'pre',
    resolveId: (id, importer) => (id === 'three' && importer?.endsWith('/examples/jsm/loaders/EXRLoader.js') ? parts : undefined),
    load: (id) => (id === parts
      ? [
        "export { DataTextureLoader } from 'three/src/loaders/DataTextureLoader.js';",
        "export { DataUtils } from 'three/src/extras/DataUtils.js';",
        "export { FloatType, HalfFloatType, LinearFilter, LinearSRGBColorSpace, RedFormat, RGFormat, RGBAFormat } from 'three/src/constants.js';",
      ].join('\n')
      : undefined),
  };
}

/**
 * Each entry of the library also imports every chunk its imports reach, so that a page asks for
 * them all as soon as it has read the entry, rather than one level at a time as each chunk is
 * parsed (the element's first load was four levels deep: entry → element chunk → 13 chunks → 1),
 * as Rollup's hoistTransitiveImports does (rolldown has no such option yet). The added imports
 * come after the entry's own and bind nothing, so every chunk is still evaluated after what it
 * imports, in the order it was before.
 */
function hoistedChunkImports(): Plugin {
  return {
    name: 'hoisted-chunk-imports',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry) continue;
        const reached = new Set<string>();
        const pending = [...chunk.imports];
        for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
          const next = bundle[file];
          if (reached.has(file) || next?.type !== 'chunk') continue;
          reached.add(file);
          pending.push(...next.imports);
        }
        const missing = [...reached].filter((file) => !chunk.imports.includes(file));
        if (missing.length === 0) continue;
        const from = posix.dirname(chunk.fileName);
        const specifier = (file: string) => { const r = posix.relative(from, file); return r.startsWith('.') ? r : `./${r}`; };
        chunk.code += `\n${missing.map((file) => `import"${specifier(file)}";`).join('')}\n`;
        chunk.imports.push(...missing);
      }
    },
  };
}

/**
 * The element's first load as one chunk (`chunks/element-*.js`): every module the `element` entry
 * imports statically, transitively (all it needs before its first frame). A page that embeds the
 * tag fetches `element.min.js` and that one file, not a wave of shared chunks (14 of them took a
 * further 100–400 ms to arrive after the entry, and the tag was defined only after the last).
 * The other entries import what they share with the element from that chunk, even where they
 * then load code they do not use: a module is never copied into two chunks (two copies would
 * mean two shared GPU devices and two element classes). What the element imports lazily
 * (decoders, VRM, crowds, debug…) stays in chunks of its own.
 */
function elementFirstLoadChunk(): Rolldown.CodeSplittingGroup {
  const entry = fileURLToPath(new URL(`./${LIBRARY_ENTRIES.find((e) => e.name === ELEMENT_ENTRY)!.source}`, import.meta.url));
  let firstLoad: Set<string> | undefined;
  return {
    // The group's label in rolldown's timing report, which asks for one when `name` is a function.
    debugName: `${ELEMENT_ENTRY} first load`,
    name(id, ctx) {
      if (!firstLoad) {
        firstLoad = new Set([entry]);
        for (const module of firstLoad) for (const next of ctx.getModuleInfo(module)?.importedIds ?? []) firstLoad.add(next);
      }
      return firstLoad.has(id) ? ELEMENT_ENTRY : null;
    },
  };
}

/** The site's pages, by name: the demo (index.html) and every page in examples/. */
function sitePages(): Record<string, string> {
  const pages: Record<string, string> = { main: fileURLToPath(new URL('./index.html', import.meta.url)) };
  for (const file of readdirSync(new URL('./examples/', import.meta.url))) {
    if (file.endsWith('.html')) pages[`examples/${file.slice(0, -'.html'.length)}`] = fileURLToPath(new URL(`./examples/${file}`, import.meta.url));
  }
  return pages;
}

/**
 * Where the site has the documentation: TypeDoc's rendering of the front page (its index), the
 * guides (`documents/`) and the API reference, in one site, made by scripts/api-reference.mjs;
 * written there by `npm run build` (scripts/build.mjs) and served there by `npm run demo`
 * (scripts/api-reference-server.mjs), so the pages' "Documentation" links are the same in both.
 */
export const SITE_DOCS_DIR = 'api';

/** The library's sources, which the demo and the examples import by the package's name (resolve.alias below). */
const SOURCES_DIR = fileURLToPath(new URL('./src/', import.meta.url));
/** The module ids of SOURCES_DIR's files. */
const SOURCE_IDS = new RegExp(`^${SOURCES_DIR.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}`);

/**
 * In the site's build, the library's sources keep their side effects, as the dev server runs
 * them and as a consumer's bundler keeps dist/lib's: package.json `sideEffects` names only
 * dist/lib (its entries and chunks, where the sources end up when packed), so for a file of src/
 * it says "none", and `import 'skinned-mesh-webgpu'` (the demo) or `import
 * 'skinned-mesh-webgpu/element'` (the examples), which bind nothing, would be dropped with the
 * customElements.define they exist for. Said per module: what resolving reads from package.json
 * overrides a default such as `treeshake.moduleSideEffects`.
 */
function sourcesKeepSideEffectsInSite(): Plugin {
  return {
    name: 'sources-keep-side-effects-in-site',
    // The filter spares the bundler a call into JavaScript for every other module (node_modules).
    transform: { filter: { id: SOURCE_IDS }, handler: (code) => ({ code, moduleSideEffects: true }) },
  };
}

/**
 * Rolldown's PLUGIN_TIMINGS warning says the JavaScript plugins took most of a build; on a busy
 * 2-core machine (CI, the suite's other lane) Vite's own import analysis alone crosses its line now
 * and then (seen: 1.4 s of a 3.3 s build), so the warning came and went with the machine's load,
 * not with anything in the build. Off in every build, whose output must be only the size report.
 */
const CHECKS = { bundlerTimings: false } as const;

// One config for the demo site (vite dev/build), the library builds (`vite build --mode lib`
// and `--mode lib-min`) and the test runner (vitest). `npm run build` (scripts/build.mjs)
// runs them all.
export default defineConfig(({ command, mode }) => ({
  // The library's files find each other relative to where the page loads them from (the
  // decoders' workers: `assets/draco-worker-*.js` with its WebAssembly, `assets/ktx2-worker-*.js`).
  // Their WGSL without comments or indentation (scripts/wgsl-compact.mjs); shaders/ stays readable.
  // The site build (the demo's page thread, whose Draco fallback is the real decoder) gets dracoNodeBranchUnused too,
  // and keeps the sources' side effects (sourcesKeepSideEffectsInSite); not the cli build (Node, where the decoder is a dependency Node loads) nor the tests.
  // The dev server (`npm run demo`, the browser tests' server) serves the documentation at SITE_DOCS_DIR, as the site has it.
  ...(mode === 'lib' || mode === 'lib-min'
    ? { base: './', plugins: [decodersOnlyInWorkers(), exrLoaderAlone(), compactWgslImports(), hoistedChunkImports()] }
    : { plugins: [exrLoaderAlone(), servedApiReference({ path: `/${SITE_DOCS_DIR}/` }), ...(command === 'build' && mode !== 'cli' ? [dracoNodeBranchUnused(), sourcesKeepSideEffectsInSite()] : [])] }),
  // Workers are module workers (src/gltf/offthread.ts starts them with type: 'module'), each
  // one file with what it imports lazily inlined (the Basis transcoder into the KTX2 worker).
  // The Draco worker runs the decoder's browser branch only.
  worker: { format: 'es' as const, plugins: () => [dracoNodeBranchUnused()], rolldownOptions: { checks: CHECKS, output: { codeSplitting: false } } },
  // The Basis transcoder's WebAssembly is bundled as a data URL (src/gpu/textures/basis-transcoder.ts).
  assetsInclude: ['**/basis_transcoder.wasm'],
  // The decoders are imported lazily, by the first file that needs them, on the page or in a
  // worker: the dev server prepares them when it starts, so meeting one mid-session (a dropped
  // file, a browser test) does not re-optimise dependencies and fail or reload the page.
  // three and three-vrm: the MToon comparison page (test/browser/pages/mtoon-page.ts); three/webgpu:
  // the PBR extensions' comparison page (pbr-three-page.ts); dev only.
  optimizeDeps: { include: ['meshoptimizer/decoder', 'ktx-parse', DRACO_DECODER_MODULE, 'three', 'three/examples/jsm/loaders/GLTFLoader.js', '@pixiv/three-vrm', 'three/webgpu'] },
  // Several pages (the demo and examples/*.html): a path that names no file is a 404, not the
  // demo page, so a dead link in them shows (test/browser/examples.test.ts).
  appType: 'mpa',
  resolve: {
    // The demo and the examples import the library by its package name and subpaths
    // (`skinned-mesh-webgpu/element`…), as a page that installed it would; served and built
    // from this checkout, each name is its entry's sources (tsconfig.json `paths` says the same
    // to the type checker). Exact matches only: the package exports no other paths.
    alias: LIBRARY_ENTRIES.map((e) => ({
      find: new RegExp(`^skinned-mesh-webgpu${e.subpath.slice(1).replaceAll('/', '\\/')}$`),
      replacement: fileURLToPath(new URL(`./${e.source}`, import.meta.url)),
    })),
  },
  build: mode === 'cli'
    ? {
      // The bake command for Node 20: the sources bundled (WGSL and the Basis transcoder
      // inlined as they are for pages), the package's dependencies left as imports Node resolves
      // from node_modules (the Draco decoder reads its WebAssembly beside its own file), and
      // `webgpu` (--backend gpu) imported only when asked for.
      ssr: 'src/cli/bin.ts',
      outDir: 'dist/cli',
      emptyOutDir: true,
      copyPublicDir: false,
      target: 'node20',
      sourcemap: true,
      minify: false,
      rolldownOptions: { checks: CHECKS, output: { entryFileNames: CLI_FILE, banner: '#!/usr/bin/env node' } },
    }
    : mode === 'lib' || mode === 'lib-min'
    ? {
      // One ES module per entry (LIBRARY_ENTRIES), which a page can load with a single
      // <script type="module">: wgpu-matrix is bundled rather than left as a bare import that
      // only a bundler or an import map resolves (it has no module state a second copy could
      // disagree with). What two entries share, and what is imported lazily, is in chunks/.
      lib: {
        entry: Object.fromEntries(LIBRARY_ENTRIES.map((e) => [e.name + (mode === 'lib' ? '' : '.min'), e.source])),
        formats: ['es' as const],
      },
      // Vite prints a minified ES library with its whitespace (minify's `codegen: false`), for a
      // consumer's bundler; the .min.js files are what a page loads as they are, so they are printed
      // without it (its pure annotations stay): about 10% of the element's first load, gzipped.
      rolldownOptions: { checks: CHECKS, output: { chunkFileNames: 'chunks/[name]-[hash].js', codeSplitting: { groups: [elementFirstLoadChunk()] }, ...(mode === 'lib-min' ? { minify: { codegen: true } } : {}) } },
      outDir: 'dist/lib',
      // The minified build lands beside the readable one.
      emptyOutDir: mode === 'lib',
      copyPublicDir: false,
      sourcemap: true,
      // Every browser with WebGPU runs ES2022.
      target: 'es2022',
      minify: mode === 'lib-min',
      // Lazily imported code stays in chunks, fetched by the page only when a file or an
      // attribute needs it. (The Draco decoder and the Basis transcoder live only in their
      // workers' files, in assets/.)
    }
    : {
      // The demo site (index.html and the example pages), beside the library rather than over it.
      outDir: 'dist/site',
      emptyOutDir: true,
      rolldownOptions: { checks: CHECKS, input: sitePages() },
      // Only the files that carry the Basis transcoder are above Vite's 500 kB (BASIS_TRANSCODER_FILES_MAX_KB).
      chunkSizeWarningLimit: BASIS_TRANSCODER_FILES_MAX_KB,
    },
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Three groups, one after another (groupOrder), each with its own worker count. `npm test`
    // runs the browser project in a vitest process beside the other two, and then the
    // 'browser-late' project in a vitest process of its own (scripts/test.mjs).
    projects: [
      // Plain Node files: one per core. vitest's default leaves a core free (one worker on the
      // 2-core CI machine, so a file that computes on one core leaves the other idle); these
      // files are single-threaded JS and share nothing, so two run side by side.
      // Without isolation (NODE_ISOLATED_TESTS above are the exceptions, beside them in the same group).
      {
        extends: true,
        test: { name: 'node', include: ['test/**/*.test.ts'], exclude: [...BROWSER_TESTS, ...GPU_TESTS, ...NODE_ISOLATED_TESTS], isolate: false, maxWorkers: NODE_WORKERS, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'node-isolated', include: NODE_ISOLATED_TESTS, maxWorkers: NODE_WORKERS, sequence: { groupOrder: 0 } } },
      // One Chromium and one dev server for the whole run, started only when one of these runs.
      // vitest's worker count: SwiftShader draws each page on several threads already.
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS, exclude: LATE_BROWSER, globalSetup: ['test/support/browser-server.ts'], sequence: { groupOrder: 1 } } },
      // One Dawn device per worker, its pipelines compiled once for all these files (test/support/webgpu.ts).
      // Its own group: vitest keeps a non-isolated worker only while the next file is of the same project.
      {
        extends: true,
        test: { name: 'gpu', include: GPU_TESTS, exclude: BROWSER_TESTS, isolate: false, provide: { shareGpuDevice: true }, sequence: { groupOrder: 2 } },
      },
      // Only under `npm test`, in a vitest process of its own (its Chromium and dev server start
      // when it does, not beside the browser project's at the start of a run).
      ...(LATE_BROWSER.length > 0
        ? [{ extends: true as const, test: { name: 'browser-late', include: LATE_BROWSER, globalSetup: ['test/support/browser-server.ts'], sequence: { groupOrder: 3 } } }]
        : []),
    ],
  },
}));
