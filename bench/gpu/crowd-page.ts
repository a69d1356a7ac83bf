/**
 * The crowd-scale bench page (bench/gpu/crowd-bench.ts drives it): 1,000–100,000 copies of
 * one model, all playing one clip at golden-ratio phases on a grid that the camera frames,
 * per frame on the main thread: advance + pose + encode + submit, then wait for the GPU.
 *  - ours, `cpu`: a Crowd on the CPU batch path (WebAssembly), palettes uploaded, culled on the CPU;
 *  - ours, `gpu`: the same Crowd with `{ evaluator: 'gpu' }` (issue #16): palettes evaluated on
 *    the GPU, bounds, culling and indirect draws there too (GpuPaletteSource);
 *  - ours, `gpu-draw`: the renderer's GPU draw path alone (bounds, culling, records and indirect
 *    draws on the GPU) with palettes evaluated once and left on the GPU: what drawing costs the
 *    main thread and the upload once the poses are the GPU's, whoever evaluates them;
 *  - three.js: one SkinnedMesh clone per character (SkeletonUtils.clone, one AnimationMixer each),
 *    WebGPURenderer, as an app builds a crowd with it (r187 has no instanced skinning).
 * Bytes written to the GPU are counted exactly for every side by wrapping GPUQueue's writeBuffer
 * and writeTexture for the page (so three.js's uploads are counted as ours are).
 */
import { createCrowd, type AnyCrowd } from '../../src/crowd/gpu-crowd.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds, type Bounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { configureCanvas, requestWebGpuDevice } from '../../src/gpu/device/device.ts';
import type { GpuPaletteSource } from '../../src/gpu/draw/palette-source.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import * as THREE from 'three/webgpu';
import { GLTFLoader, type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { CLEAR, configureThree, FOV_Y, message, phase, threeCameraOf, threeLitScene } from './three-scene.ts';

export const FRAME_SECONDS = 1 / 60;

/** One side's frames: per measured frame, main-thread ms, bytes written to the GPU, GPU ms (timestamps; may be empty). */
export interface CrowdTimes {
  readonly cpu: number[];
  readonly frame: number[];
  readonly bytes: number[];
  readonly gpu: number[];
  readonly drawCalls: number;
  readonly culled?: number;
}

export interface CrowdSetup {
  readonly adapter: string;
  readonly timestampQuery: boolean;
  readonly threeBackend: string;
  readonly joints: number;
  readonly vertices: number;
  readonly oursError?: string;
  readonly threeError?: string;
}

export type OursEvaluator = 'cpu' | 'gpu' | 'gpu-draw';
/**
 * Where the camera looks from. 'grid': far enough to frame the whole grid (every character
 * drawn). 'street': at the grid's centre a few characters up, looking across it, with the far
 * plane a given number of grid spacings away, as a game draws a crowd around the player: every
 * character is posed every frame, the frustum keeps a few hundred.
 */
export type CrowdView = 'grid' | 'street';

declare global {
  interface Window {
    crowdBench: {
      setup(assetUrl: string, name: string, clip: number): Promise<CrowdSetup>;
      /** Lays out `n` characters and aims the camera (`view`); `three` false frees three.js's crowd (beyond its count). */
      layout(n: number, three: boolean, view: CrowdView, streetFar: number): void;
      /** Builds our crowd of the current count on `evaluator`; rejects when that evaluator is not available. */
      prepareOurs(evaluator: OursEvaluator): Promise<void>;
      /** At least `warmup` frames and `warmMs` of them, then `frames` measured. */
      runOurs(warmup: number, frames: number, warmMs: number): Promise<CrowdTimes>;
      runThree(warmup: number, frames: number, warmMs: number): Promise<CrowdTimes>;
    };
  }
}

// ---------------------------------------------------------------- exact byte counting

/** Bytes written through any GPUQueue of the page since the last reset. */
let written = 0;
{
  const proto = GPUQueue.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const writeBuffer = proto.writeBuffer, writeTexture = proto.writeTexture;
  // writeBuffer(buffer, offset, data, dataOffset?, size?): offsets and size in elements for a TypedArray, bytes otherwise.
  proto.writeBuffer = function (this: GPUQueue, ...args: unknown[]) {
    const data = args[2] as ArrayBufferLike | ArrayBufferView, dataOffset = (args[3] as number | undefined) ?? 0, size = args[4] as number | undefined;
    const element = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
    written += size !== undefined ? size * element : data.byteLength - dataOffset * element;
    return writeBuffer.apply(this, args);
  };
  // writeTexture(destination, data, dataLayout, size): the bytes the copy reads from `data`.
  proto.writeTexture = function (this: GPUQueue, ...args: unknown[]) {
    const data = args[1] as ArrayBufferLike | ArrayBufferView;
    const layout = args[2] as GPUTexelCopyBufferLayout;
    written += data.byteLength - (layout.offset ?? 0);
    return writeTexture.apply(this, args);
  };
}

/**
 * Runs `frame` until at least `warmup` frames and `warmMs` have passed (so the JIT has compiled
 * the per-frame path, as in a page that has been animating a while), then `frames` measured
 * ones: main-thread ms to the return of `frame`, bytes written meanwhile, ms until the queue is
 * idle; `after` adds what else a measured frame reports.
 */
async function measureFrames(
  warmup: number, frames: number, warmMs: number, queue: GPUQueue, frame: () => void, after: (t: CrowdTimes) => void | Promise<void>,
): Promise<CrowdTimes> {
  const times: CrowdTimes = { cpu: [], frame: [], bytes: [], gpu: [], drawCalls: 0 };
  const warmStart = performance.now();
  for (let f = 0; f < warmup || performance.now() - warmStart < warmMs; f++) {
    frame();
    await queue.onSubmittedWorkDone();
  }
  for (let f = 0; f < frames; f++) {
    written = 0;
    const t0 = performance.now();
    frame();
    const t1 = performance.now();
    const bytes = written;
    await queue.onSubmittedWorkDone();
    const t2 = performance.now();
    times.cpu.push(t1 - t0);
    times.frame.push(t2 - t0);
    times.bytes.push(bytes);
    await after(times);
  }
  return times;
}

// ---------------------------------------------------------------- the scene

const oursCanvas = document.getElementById('ours') as HTMLCanvasElement;
const threeCanvas = document.getElementById('three') as HTMLCanvasElement;
const camera = new OrbitCamera();
let model: Model;
let clipIndex = 0;
let bounds: Bounds;
let count = 0;
let offsets = new Float64Array(0);

let device: GPUDevice;
let context: GPUCanvasContext;
let renderer: Renderer;
let crowd: AnyCrowd | undefined;
/** `gpu-draw`: the crowd's palettes, uploaded once, as the frames' GpuPaletteSource. */
let staticPalettes: GpuPaletteSource | undefined;

let gltf: GLTF;
let three: THREE.WebGPURenderer;
let threeScene: THREE.Scene;
let threeCamera: THREE.PerspectiveCamera;
let threeRoots: THREE.Object3D[] = [];
let mixers: THREE.AnimationMixer[] = [];

window.crowdBench = {
  async setup(assetUrl, name, clip) {
    clipIndex = clip;
    const bytes = new Uint8Array(await (await fetch(assetUrl)).arrayBuffer());
    let oursError: string | undefined, threeError: string | undefined, threeBackend = 'none';
    try {
      device = await requestWebGpuDevice({ label: 'crowd bench (ours)' });
      const configured = configureCanvas(oursCanvas, device);
      context = configured.context;
      model = await loadGltf(bytes, { name });
      renderer = new Renderer(device, { format: configured.viewFormat, label: 'crowd bench' });
      renderer.settings.clearColor.set([...CLEAR, 1]);
      await renderer.setModel(model);
      await renderer.prepareGpuCulling();
      bounds = computeInstanceBounds(createModelInstance(model));
    } catch (e) {
      oursError = message(e);
    }
    try {
      three = new THREE.WebGPURenderer({ canvas: threeCanvas, antialias: true, trackTimestamp: true });
      three.setPixelRatio(1);
      three.setSize(threeCanvas.width, threeCanvas.height, false);
      await three.init();
      threeBackend = (three.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend ? 'WebGPU' : 'WebGL2 (fallback)';
      configureThree(three);
      threeScene = threeLitScene();
      gltf = await new GLTFLoader().parseAsync(bytes.slice().buffer, '');
    } catch (e) {
      threeError = message(e);
    }
    const probe = model ? createModelInstance(model) : undefined;
    return {
      adapter: device ? `${device.adapterInfo?.vendor ?? ''} ${device.adapterInfo?.architecture ?? ''} ${device.adapterInfo?.description ?? ''}`.trim() : 'none',
      timestampQuery: device?.features.has('timestamp-query') ?? false,
      threeBackend,
      joints: probe?.paletteMatrixCount ?? 0,
      vertices: model ? model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + p.vertexCount, 0), 0) : 0,
      oursError,
      threeError,
    };
  },

  layout(n, withThree, view, streetFar) {
    count = n;
    const columns = Math.ceil(Math.sqrt(n)), rows = Math.ceil(n / columns);
    const size = [0, 1, 2].map((c) => bounds.max[c] - bounds.min[c]);
    const spacing = 1.15 * Math.max(size[0], size[2]);
    offsets = new Float64Array(2 * n);
    for (let k = 0; k < n; k++) {
      offsets[2 * k] = ((k % columns) - (columns - 1) / 2) * spacing;
      offsets[2 * k + 1] = (Math.floor(k / columns) - (rows - 1) / 2) * spacing;
    }
    const half = [((columns - 1) / 2) * spacing, ((rows - 1) / 2) * spacing];
    const min = Float32Array.of(bounds.min[0] - half[0], bounds.min[1], bounds.min[2] - half[1]);
    const max = Float32Array.of(bounds.max[0] + half[0], bounds.max[1], bounds.max[2] + half[1]);
    const center = min.map((lo, c) => (lo + max[c]) / 2);
    camera.yaw = 0.6;
    camera.pitch = 0.45;
    camera.fovY = FOV_Y;
    camera.frame({ min, max, center, radius: Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2 }, oursCanvas.width / oursCanvas.height);
    if (view === 'street') {
      camera.pitch = 0.15;
      camera.distance = 4 * spacing;
      camera.near = 0.05 * spacing;
      camera.far = streetFar * spacing;
    }
    camera.update(oursCanvas.width / oursCanvas.height);
    crowd?.destroy();
    crowd = undefined;
    for (const r of threeRoots) threeScene.remove(r);
    threeRoots = [];
    mixers = [];
    if (withThree && gltf) {
      const clip = gltf.animations[clipIndex];
      for (let k = 0; k < n; k++) {
        const root = cloneSkinned(gltf.scene);
        root.position.set(offsets[2 * k], 0, offsets[2 * k + 1]);
        threeScene.add(root);
        threeRoots.push(root);
        const mixer = new THREE.AnimationMixer(root);
        mixer.clipAction(clip).play();
        mixer.setTime(phase(k, clip.duration));
        mixers.push(mixer);
      }
      threeCamera = threeCameraOf(camera, threeCanvas.width / threeCanvas.height);
    }
  },

  async prepareOurs(evaluator) {
    if (!renderer) throw new Error('our renderer failed to start');
    crowd?.destroy();
    staticPalettes?.palettes.destroy();
    staticPalettes = undefined;
    const c = createCrowd(model, count, { evaluator: evaluator === 'gpu' ? 'gpu' : 'cpu', device });
    if (evaluator === 'gpu' && !c.gpu) throw new Error('no GPU evaluator: Crowd has no `gpu` palette source for { evaluator: \'gpu\' }');
    for (let k = 0; k < count; k++) {
      c.setPlacement(k, offsets[2 * k], 0, offsets[2 * k + 1], 0);
      c.play(k, clipIndex, phase(k, model.animations[clipIndex].duration));
    }
    c.rootMotion = false;
    if (evaluator === 'gpu-draw') {
      c.update(0);
      const palettes = device.createBuffer({ label: 'crowd bench static palettes', size: c.palettes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
      device.queue.writeBuffer(palettes, 0, c.palettes);
      staticPalettes = { palettes };
    }
    crowd = c;
  },

  async runOurs(warmup, frames, warmMs) {
    const c = crowd;
    if (!c) throw new Error('prepareOurs first');
    const draw = staticPalettes
      ? () => renderer.renderCrowd(context.getCurrentTexture(), camera, c, staticPalettes)
      : () => {
        c.update(FRAME_SECONDS);
        renderer.renderCrowd(context.getCurrentTexture(), camera, c, c.gpu);
      };
    const times = await measureFrames(warmup, frames, warmMs, device.queue, draw, (t) => {
      if (renderer.stats.gpuMs !== undefined) t.gpu.push(renderer.stats.gpuMs);
    });
    return { ...times, drawCalls: renderer.stats.drawCalls, culled: renderer.stats.culled };
  },

  async runThree(warmup, frames, warmMs) {
    if (!three) throw new Error('three.js failed to start');
    const queue = (three.backend as unknown as { device: GPUDevice }).device.queue;
    three.info.autoReset = false;
    let drawCalls = 0;
    const times = await measureFrames(warmup, frames, warmMs, queue, () => {
      three.info.reset();
      for (let k = 0; k < mixers.length; k++) mixers[k].update(FRAME_SECONDS);
      three.render(threeScene, threeCamera);
    }, async (t) => {
      drawCalls = three.info.render.drawCalls;
      if (three.hasFeature('timestamp-query')) {
        const ms = await three.resolveTimestampsAsync(THREE.TimestampQuery.RENDER);
        if (typeof ms === 'number' && ms > 0) t.gpu.push(ms);
      }
    });
    return { ...times, drawCalls };
  },
};
