import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/** The library build in `dist/lib/`: readable (package.json `exports`) and minified (for a plain <script>). */
export const LIBRARY_FILE = 'skinned-mesh-webgpu.js';
export const LIBRARY_MIN_FILE = 'skinned-mesh-webgpu.min.js';

/** The Draco decoder's JS module, which draco.ts imports when a file first needs it. */
const DRACO_DECODER_MODULE = 'draco3dgltf/draco_decoder_gltf_nodejs.js';
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
 * The test files that drive Chromium (test/support/browser.ts startBrowserSession): the
 * 'browser' test project. A file that does and is not listed still works; it starts its own
 * Chromium and dev server.
 */
const BROWSER_TESTS = ['test/browser/**/*.test.ts', 'test/gpu/**/browser-render.test.ts', 'test/gpu/**/compressed-assets-render.test.ts'];

/**
 * The Node tests on a Dawn device (and the rest of their folders): the 'gpu' project, whose files run one after another in a
 * worker without isolation, so they share the worker's device and the renderer's per-device
 * pipelines (test/support/webgpu.ts). A file that resets modules (ktx2-offthread: a fresh
 * worker pool) stays in the isolated 'node' project.
 */
const GPU_TESTS = ['test/gpu/**/!(ktx2-offthread).test.ts', 'test/crowd/**/*.test.ts', 'test/bake/**/*.test.ts'];

/** Workers for the plain Node files: one per core (at least two). */
const NODE_WORKERS = Math.max(2, availableParallelism());

// One config for the demo site (vite dev/build), the library builds (`vite build --mode lib`
// and `--mode lib-min`) and the test runner (vitest). `npm run build` (scripts/build.mjs)
// runs them all.
export default defineConfig(({ mode }) => ({
  // The library's files find each other relative to where the page loads them from (the
  // decoders' workers: `assets/draco-worker-*.js` with its WebAssembly, `assets/ktx2-worker-*.js`).
  ...(mode === 'lib' || mode === 'lib-min' ? { base: './', plugins: [decodersOnlyInWorkers()] } : {}),
  // Workers are module workers (src/gltf/offthread.ts starts them with type: 'module'), each
  // one file with what it imports lazily inlined (the Basis transcoder into the KTX2 worker).
  worker: { format: 'es' as const, rolldownOptions: { output: { codeSplitting: false } } },
  // The Basis transcoder's WebAssembly is bundled as a data URL (src/gpu/textures/basis-transcoder.ts).
  assetsInclude: ['**/basis_transcoder.wasm'],
  // The decoders are imported lazily, by the first file that needs them, on the page or in a
  // worker: the dev server prepares them when it starts, so meeting one mid-session (a dropped
  // file, a browser test) does not re-optimise dependencies and fail or reload the page.
  optimizeDeps: { include: ['meshoptimizer/decoder', 'ktx-parse', DRACO_DECODER_MODULE] },
  resolve: {
    // The demo imports the library by its package name, as a page that installed it would;
    // served and built from this checkout, that name is the sources (tsconfig.json `paths`
    // says the same to the type checker). Exact match only: the package has no subpaths
    // the demo may use.
    alias: [{ find: /^skinned-mesh-webgpu$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }],
  },
  build: mode === 'lib' || mode === 'lib-min'
    ? {
      // One ES module a page can load with a single <script type="module">, so wgpu-matrix
      // is bundled rather than left as a bare import that only a bundler or an import map
      // resolves. It has no module state a second copy could disagree with.
      lib: { entry: 'src/index.ts', formats: ['es' as const], fileName: () => (mode === 'lib' ? LIBRARY_FILE : LIBRARY_MIN_FILE) },
      outDir: 'dist/lib',
      // The minified build lands beside the readable one.
      emptyOutDir: mode === 'lib',
      copyPublicDir: false,
      sourcemap: true,
      // Every browser with WebGPU runs ES2022.
      target: 'es2022',
      minify: mode === 'lib-min',
      // Lazily imported code stays in chunks beside the module, fetched by the page only when
      // a file needs it; the module itself has no static import. (The Draco decoder and the
      // Basis transcoder live only in their workers' files.)
    }
    : {
      // The demo site (index.html), beside the library rather than over it.
      outDir: 'dist/site',
      emptyOutDir: true,
    },
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Three groups, one after another (groupOrder), each with its own worker count.
    projects: [
      // Plain Node files: one per core. vitest's default leaves a core free (one worker on the
      // 2-core CI machine, so a file that computes on one core leaves the other idle); these
      // files are single-threaded JS and share nothing, so two run side by side.
      {
        extends: true,
        test: { name: 'node', include: ['test/**/*.test.ts'], exclude: [...BROWSER_TESTS, ...GPU_TESTS], maxWorkers: NODE_WORKERS, sequence: { groupOrder: 0 } },
      },
      // One Chromium and one dev server for the whole run, started only when one of these runs.
      // vitest's worker count: SwiftShader draws each page on several threads already.
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS, globalSetup: ['test/support/browser-server.ts'], sequence: { groupOrder: 1 } } },
      // One Dawn device per worker, its pipelines compiled once for all these files (test/support/webgpu.ts).
      // Its own group: vitest keeps a non-isolated worker only while the next file is of the same project.
      {
        extends: true,
        test: { name: 'gpu', include: GPU_TESTS, exclude: BROWSER_TESTS, isolate: false, provide: { shareGpuDevice: true }, sequence: { groupOrder: 2 } },
      },
    ],
  },
}));
