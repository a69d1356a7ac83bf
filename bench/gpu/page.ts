/**
 * The GPU bench page (bench/gpu/run.ts drives it): the same crowd of skinned Foxes drawn
 * by our Renderer and by three.js's WebGPURenderer, side by side on two 640×480 canvases
 * with the same camera, clip, phases and placements. Each side runs frames back to back:
 * advance the animations, encode and submit a frame, wait for the GPU
 * (`queue.onSubmittedWorkDone()`), and reports per-frame times.
 */
import { createModelInstance } from '../../src/anim/instance.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model, TextureInfo } from '../../src/gltf/model.ts';
import { computeInstanceBounds, type Bounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { configureCanvas, requestWebGpuDevice } from '../../src/gpu/device/device.ts';
import { DEPTH_FORMAT, MSAA_SAMPLE_COUNT } from '../../src/gpu/layouts/bindings.ts';
import { MipmapGenerator } from '../../src/gpu/textures/mipmaps.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { browserImageDecoder, createImageTexture, samplerDescriptor } from '../../src/gpu/textures/textures.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';
import * as THREE from 'three/webgpu';
import { mat4 } from 'wgpu-matrix';
import { GLTFLoader, type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { CLEAR, configureThree, FOV_Y, message, phase, threeCameraOf, threeLitScene } from './three-scene.ts';

export const FRAME_SECONDS = 1 / 60;

export interface SideTimes {
  /** Per measured frame, milliseconds. */
  readonly anim: number[];
  /** Encode and submit (ours: Renderer.renderInstances; three: renderer.render). */
  readonly encode: number[];
  /** Whole frame: anim + encode + waiting for the GPU to finish the frame. */
  readonly frame: number[];
  /** GPU time of the frame's passes by timestamp queries, when the device has them. */
  readonly gpu: number[];
  readonly drawCalls: number;
  /** Ours: instances frustum culling dropped in the last frame. */
  readonly culled?: number;
}

export interface LoadResult {
  readonly ms: number;
  /** Vertex buffer bytes per vertex as uploaded (ours: GpuModel.bytesPerVertex; three: threeBytesPerVertex). */
  readonly bytesPerVertex: number;
}

export interface SetupResult {
  readonly adapter: string;
  readonly oursFeatures: string[];
  readonly threeBackend: string;
  readonly oursError?: string;
  readonly threeError?: string;
  readonly joints: number;
  readonly vertices: number;
  /** performance.now() resolves 5 µs when true, 100 µs otherwise (Chromium). */
  readonly crossOriginIsolated: boolean;
}

declare global {
  interface Window {
    gpuBench: {
      setup(assetUrl: string, clip: number): Promise<SetupResult>;
      /** `closeUp`: the camera at 45% of the framing distance, so much of the crowd is off screen. */
      layout(count: number, closeUp?: boolean): void;
      runOurs(warmup: number, frames: number): Promise<SideTimes>;
      runThree(warmup: number, frames: number): Promise<SideTimes>;
      /** The crowd's triangles as they are now, unskinned and unshaded (`textured`: base colour only): the rasteriser's floor (`floorFor`). */
      runFloor(warmup: number, frames: number, textured?: boolean): Promise<SideTimes>;
      /**
       * Fetches an asset (untimed) and frames the load camera on the rest pose of `frameUrl`
       * (default: the asset itself; a compressed variant is framed by its original); resolves to its name.
       */
      prepareLoad(assetUrl: string, frameUrl?: string): Promise<string>;
      /**
       * Milliseconds from the prepared bytes to the first frame done on the GPU, with a new
       * renderer, and the GPU vertex buffer bytes per vertex that frame drew from.
       */
      loadOurs(): Promise<LoadResult>;
      loadThree(): Promise<LoadResult>;
      /** Our renderer's `settings.culling` for the crowd (default true). */
      setCulling(on: boolean): void;
    };
  }
}

const oursCanvas = document.getElementById('ours') as HTMLCanvasElement;
const threeCanvas = document.getElementById('three') as HTMLCanvasElement;

let model: Model;
let clipIndex = 0;
let foxBounds: Bounds;
const camera = new OrbitCamera();
let count = 0;
let placements = new Float64Array(0);

// Ours.
let device: GPUDevice;
let context: GPUCanvasContext;
let viewFormat: GPUTextureFormat;
let renderer: Renderer;
let players: AnimationPlayer[] = [];
let instances: AnimationPlayer['instance'][] = [];

// three.js.
let gltf: GLTF;
let three: THREE.WebGPURenderer;
let threeScene: THREE.Scene;
let threeCamera: THREE.PerspectiveCamera;
let threeRoots: THREE.Object3D[] = [];
let mixers: THREE.AnimationMixer[] = [];

interface Floor {
  readonly count: number;
  readonly vertexCount: number;
  /** Unshaded, and sampling the base colour texture as ours does (`textured`). */
  readonly pipelines: { readonly plain: GPURenderPipeline; readonly textured: GPURenderPipeline };
  readonly bindGroups: { readonly plain: GPUBindGroup; readonly textured: GPUBindGroup };
  readonly vertices: GPUBuffer;
  readonly viewProjection: GPUBuffer;
  readonly baseColor: GPUTexture;
  readonly msaa: GPUTexture;
  readonly depth: GPUTexture;
  /** Pass timestamps (begin, end), resolved and read back after each frame; absent without timestamp-query. */
  readonly timing?: { readonly querySet: GPUQuerySet; readonly resolve: GPUBuffer; readonly readback: GPUBuffer };
}
let floor: Floor | undefined;

const FLOOR_WGSL = /* wgsl */ `
@group(0) @binding(0) var<uniform> viewProjection: mat4x4f;
@group(0) @binding(1) var baseColor: texture_2d<f32>;
@group(0) @binding(2) var baseColorSampler: sampler;

struct Textured {
  @builtin(position) position: vec4f,
  @location(0) uv: vec2f,
}

@vertex fn vs(@location(0) position: vec3f) -> @builtin(position) vec4f { return viewProjection * vec4f(position, 1.0); }
@fragment fn fs() -> @location(0) vec4f { return vec4f(0.8, 0.5, 0.3, 1.0); }

@vertex fn vsTextured(@location(0) position: vec3f, @location(1) uv: vec2f) -> Textured {
  return Textured(viewProjection * vec4f(position, 1.0), uv);
}
@fragment fn fsTextured(in: Textured) -> @location(0) vec4f { return textureSample(baseColor, baseColorSampler, in.uv); }
`;

/**
 * What is left of a crowd frame on this rasteriser when skinning and shading cost nothing:
 * the crowd's triangles as they are now (skinned once on the CPU, in world space, one
 * non-indexed draw), projected and filled with one colour, into the same 4× MSAA colour and
 * depth attachments as ours, back faces culled. No renderer drawing these triangles can be
 * faster than this, so `floor / three` bounds the frame ratio any renderer could reach here.
 * The textured variant also samples the base colour texture as the glTF asks (its sampler,
 * mipmapped), which three.js does too: a tighter bound for renderers that show the texture.
 */
async function floorFor(n: number): Promise<Floor> {
  if (floor && floor.count === n) return floor;
  if (floor) {
    for (const b of [floor.vertices, floor.viewProjection, floor.timing?.resolve, floor.timing?.readback]) b?.destroy();
    for (const t of [floor.baseColor, floor.msaa, floor.depth]) t.destroy();
    floor.timing?.querySet.destroy();
  }
  // Per corner: world position (3), TEXCOORD_0 (2).
  const corners: number[] = [];
  const { slotOf } = model.hierarchy;
  let baseColorInfo: TextureInfo | undefined;
  for (let k = 0; k < n; k++) {
    const instance = instances[k];
    model.meshNodes.forEach((meshNode, i) => {
      if (meshNode.skin < 0) return;
      // Palettes are relative to the mesh node: its world matrix, then the Fox's placement (a translation).
      const m = instance.nodeMatrices.subarray(16 * slotOf[meshNode.node], 16 * slotOf[meshNode.node] + 16);
      for (const prim of model.meshes[meshNode.mesh].primitives) {
        baseColorInfo ??= model.materials[prim.material]?.baseColorTexture;
        const p = skinPrimitive(prim, instance.palette, createSkinnedVertices(prim), instance.paletteOffsets[i]).positions;
        const uv = prim.texcoords0;
        const corner = (v: number): void => {
          const x = p[3 * v], y = p[3 * v + 1], z = p[3 * v + 2];
          for (let r = 0; r < 3; r++) corners.push(m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r] + placements[16 * k + 12 + r]);
          corners.push(uv ? uv[2 * v] : 0, uv ? uv[2 * v + 1] : 0);
        };
        if (prim.indices) for (const v of prim.indices) corner(v);
        else for (let v = 0; v < prim.vertexCount; v++) corner(v);
      }
    });
  }
  if (!baseColorInfo) throw new Error('the floor needs a model with a base colour texture');
  const texture = model.textures[baseColorInfo.index];
  const baseColor = createImageTexture(device, new MipmapGenerator(device), await browserImageDecoder(model.images[texture.source]), true, 'floor base colour');
  const sampler = device.createSampler(samplerDescriptor(model.samplers[texture.sampler], 'floor base colour sampler'));

  const data = Float32Array.from(corners);
  const vertices = device.createBuffer({ label: 'floor vertices', size: data.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(vertices, 0, data);
  const viewProjection = device.createBuffer({ label: 'floor view-projection', size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const module = device.createShaderModule({ label: 'floor shader', code: FLOOR_WGSL });
  const pipeline = (textured: boolean): GPURenderPipeline => device.createRenderPipeline({
    label: textured ? 'floor pipeline (textured)' : 'floor pipeline',
    layout: 'auto',
    vertex: {
      module,
      entryPoint: textured ? 'vsTextured' : 'vs',
      buffers: [{
        arrayStride: 20,
        attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }, ...(textured ? [{ shaderLocation: 1, offset: 12, format: 'float32x2' } as const] : [])],
      }],
    },
    fragment: { module, entryPoint: textured ? 'fsTextured' : 'fs', targets: [{ format: viewFormat }] },
    primitive: { topology: 'triangle-list', cullMode: 'back' },
    depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: true, depthCompare: 'less' },
    multisample: { count: MSAA_SAMPLE_COUNT },
  });
  const pipelines = { plain: pipeline(false), textured: pipeline(true) };
  const bindGroups = {
    plain: device.createBindGroup({ label: 'floor bind group', layout: pipelines.plain.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: viewProjection } }] }),
    textured: device.createBindGroup({
      label: 'floor bind group (textured)',
      layout: pipelines.textured.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: viewProjection } }, { binding: 1, resource: baseColor.createView() }, { binding: 2, resource: sampler }],
    }),
  };
  const size = [oursCanvas.width, oursCanvas.height];
  const attachment = (label: string, format: GPUTextureFormat): GPUTexture =>
    device.createTexture({ label, size, format, sampleCount: MSAA_SAMPLE_COUNT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const timing = device.features.has('timestamp-query')
    ? {
      querySet: device.createQuerySet({ label: 'floor timestamps', type: 'timestamp', count: 2 }),
      resolve: device.createBuffer({ label: 'floor timestamps resolve', size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }),
      readback: device.createBuffer({ label: 'floor timestamps readback', size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
    }
    : undefined;
  floor = {
    count: n, vertexCount: data.length / 5, pipelines, bindGroups, vertices, viewProjection, baseColor,
    msaa: attachment('floor colour (4× MSAA)', viewFormat), depth: attachment('floor depth', DEPTH_FORMAT), timing,
  };
  return floor;
}

async function setupOurs(bytes: Uint8Array): Promise<void> {
  device = await requestWebGpuDevice({ label: 'bench (ours)' });
  const configured = configureCanvas(oursCanvas, device);
  context = configured.context;
  viewFormat = configured.viewFormat;
  model = await loadGltf(bytes, { name: 'Fox' });
  renderer = new Renderer(device, { format: configured.viewFormat, label: 'bench' });
  renderer.settings.clearColor.set([...CLEAR, 1]);
  await renderer.setModel(model);
}

// The load benchmark: one asset's bytes and the camera framing its rest pose.
let loadBytes = new Uint8Array(0);
/**
 * three.js's loader as an app sets it up once: Draco (decoder files served from three's
 * examples/jsm/libs/draco by the bench, no network), meshopt, and KTX2 (the Basis transcoder
 * from examples/jsm/libs/basis, served the same way; formats from the bench's renderer,
 * which shares the device every load's renderer uses).
 */
let threeLoader: GLTFLoader | undefined;
function gltfLoader(): GLTFLoader {
  threeLoader ??= new GLTFLoader()
    .setDRACOLoader(new DRACOLoader().setDecoderPath('/bench-draco/'))
    .setKTX2Loader(new KTX2Loader().setTranscoderPath('/bench-basis/').detectSupport(three))
    .setMeshoptDecoder(MeshoptDecoder);
  return threeLoader;
}

/**
 * Vertex buffer bytes per vertex of a loaded glTF scene as three.js r187's WebGPU backend
 * uploads them (WebGPUAttributeUtils.createAttribute): each mesh geometry's attributes (no
 * index, no morph targets — ours keeps morph deltas in a storage buffer), non-normalized
 * 8/16-bit integers widened to 32 bits, each element padded to a multiple of 4 bytes; an
 * interleaved buffer counted once as it is. Divided by the geometries' vertex counts.
 */
function threeBytesPerVertex(root: THREE.Object3D): number {
  const geometries = new Set<THREE.BufferGeometry>();
  root.traverse((o) => { if ((o as THREE.Mesh).isMesh) geometries.add((o as THREE.Mesh).geometry); });
  const counted = new Set<object>();
  let bytes = 0, vertices = 0;
  for (const g of geometries) {
    vertices += g.getAttribute('position')?.count ?? 0;
    for (const attribute of Object.values(g.attributes)) {
      if ((attribute as THREE.InterleavedBufferAttribute).isInterleavedBufferAttribute) {
        const data = (attribute as THREE.InterleavedBufferAttribute).data;
        if (!counted.has(data)) bytes += data.array.byteLength;
        counted.add(data);
        continue;
      }
      const a = attribute as THREE.BufferAttribute;
      if (counted.has(a)) continue;
      counted.add(a);
      const widened = !a.normalized && (a.array instanceof Int8Array || a.array instanceof Uint8Array || a.array instanceof Int16Array || a.array instanceof Uint16Array);
      const element = a.itemSize * (widened ? 4 : a.array.BYTES_PER_ELEMENT);
      bytes += a.count * Math.ceil(element / 4) * 4;
    }
  }
  return vertices > 0 ? bytes / vertices : 0;
}
const loadCamera = new OrbitCamera();

async function setupThree(bytes: Uint8Array): Promise<string> {
  three = new THREE.WebGPURenderer({ canvas: threeCanvas, antialias: true, trackTimestamp: true });
  three.setPixelRatio(1);
  three.setSize(threeCanvas.width, threeCanvas.height, false);
  await three.init();
  const backend = (three.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend ? 'WebGPU' : 'WebGL2 (fallback)';
  configureThree(three);
  threeScene = threeLitScene();
  gltf = await new GLTFLoader().parseAsync(bytes.slice().buffer, '');
  return backend;
}

window.gpuBench = {
  async setup(assetUrl, clip) {
    clipIndex = clip;
    const bytes = new Uint8Array(await (await fetch(assetUrl)).arrayBuffer());
    let oursError: string | undefined, threeError: string | undefined, threeBackend = 'none';
    try {
      await setupOurs(bytes);
    } catch (e) {
      oursError = message(e);
    }
    try {
      threeBackend = await setupThree(bytes);
    } catch (e) {
      threeError = message(e);
    }
    const adapter = device ? `${device.adapterInfo?.vendor ?? ''} ${device.adapterInfo?.architecture ?? ''} ${device.adapterInfo?.description ?? ''}`.trim() : 'none';
    const probe = model ? new AnimationPlayer(model) : undefined;
    if (probe) foxBounds = computeInstanceBounds(probe.instance);
    return {
      adapter,
      oursFeatures: device ? [...device.features] : [],
      threeBackend,
      oursError,
      threeError,
      joints: probe ? probe.instance.paletteMatrixCount : 0,
      vertices: model ? model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + p.vertexCount, 0), 0) : 0,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
    };
  },

  /** A square grid of `n` Foxes on the ground, framed by one camera both renderers use. */
  layout(n, closeUp = false) {
    count = n;
    const columns = Math.ceil(Math.sqrt(n));
    const rows = Math.ceil(n / columns);
    const size = foxBounds.max.map((hi, c) => hi - foxBounds.min[c]);
    const spacing = 1.15 * Math.max(size[0], size[2]);
    placements = new Float64Array(16 * n);
    const offsets: [number, number][] = [];
    for (let k = 0; k < n; k++) {
      const x = ((k % columns) - (columns - 1) / 2) * spacing;
      const z = (Math.floor(k / columns) - (rows - 1) / 2) * spacing;
      offsets.push([x, z]);
      placements.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, z, 1], k * 16);
    }
    const half = [((columns - 1) / 2) * spacing, ((rows - 1) / 2) * spacing];
    const min = Float32Array.of(foxBounds.min[0] - half[0], foxBounds.min[1], foxBounds.min[2] - half[1]);
    const max = Float32Array.of(foxBounds.max[0] + half[0], foxBounds.max[1], foxBounds.max[2] + half[1]);
    const center = min.map((lo, c) => (lo + max[c]) / 2);
    camera.yaw = 0.6;
    camera.pitch = 0.45;
    camera.fovY = FOV_Y;
    camera.frame({ min, max, center, radius: Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2 }, oursCanvas.width / oursCanvas.height);
    if (closeUp) {
      camera.distance *= 0.45;
      camera.near = camera.distance / 100;
    }
    camera.update(oursCanvas.width / oursCanvas.height);

    if (renderer) {
      players = [];
      for (let k = 0; k < n; k++) {
        const p = new AnimationPlayer(model);
        p.setClip(clipIndex);
        p.seek(phase(k, p.duration));
        p.play();
        players.push(p);
      }
      instances = players.map((p) => p.instance);
    }
    if (gltf) {
      for (const r of threeRoots) threeScene.remove(r);
      threeRoots = [];
      mixers = [];
      const clip = gltf.animations[clipIndex];
      for (let k = 0; k < n; k++) {
        const root = cloneSkinned(gltf.scene);
        root.position.set(offsets[k][0], 0, offsets[k][1]);
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

  async runOurs(warmup, frames) {
    if (!renderer) throw new Error('our renderer failed to start');
    const times: SideTimes = { anim: [], encode: [], frame: [], gpu: [], drawCalls: 0 };
    const queue = device.queue;
    for (let f = -warmup; f < frames; f++) {
      const t0 = performance.now();
      for (let k = 0; k < count; k++) players[k].update(FRAME_SECONDS);
      const t1 = performance.now();
      renderer.renderInstances(context.getCurrentTexture(), camera, instances, count, placements);
      const t2 = performance.now();
      await queue.onSubmittedWorkDone();
      const t3 = performance.now();
      if (f < 0) continue;
      times.anim.push(t1 - t0);
      times.encode.push(t2 - t1);
      times.frame.push(t3 - t0);
      // A recent frame's pass (read back asynchronously; the same scene every frame).
      if (renderer.stats.gpuMs !== undefined) times.gpu.push(renderer.stats.gpuMs);
    }
    return { ...times, drawCalls: renderer.stats.drawCalls, culled: renderer.stats.culled };
  },

  async runThree(warmup, frames) {
    if (!three) throw new Error('three.js failed to start');
    const times: SideTimes = { anim: [], encode: [], frame: [], gpu: [], drawCalls: 0 };
    const queue = (three.backend as unknown as { device: GPUDevice }).device.queue;
    // three resets its counters from its own requestAnimationFrame loop; count per frame here.
    three.info.autoReset = false;
    let drawCalls = 0;
    for (let f = -warmup; f < frames; f++) {
      three.info.reset();
      const t0 = performance.now();
      for (let k = 0; k < count; k++) mixers[k].update(FRAME_SECONDS);
      const t1 = performance.now();
      three.render(threeScene, threeCamera);
      const t2 = performance.now();
      drawCalls = three.info.render.drawCalls;
      await queue.onSubmittedWorkDone();
      const t3 = performance.now();
      if (f < 0) continue;
      times.anim.push(t1 - t0);
      times.encode.push(t2 - t1);
      times.frame.push(t3 - t0);
      // three sums the passes since the last resolve: one frame's worth here. Outside t0…t3.
      if (three.hasFeature('timestamp-query')) {
        const ms = await three.resolveTimestampsAsync(THREE.TimestampQuery.RENDER);
        if (typeof ms === 'number' && ms > 0) times.gpu.push(ms);
      }
    }
    return { ...times, drawCalls };
  },

  async runFloor(warmup, frames, textured = false) {
    if (!renderer) throw new Error('our renderer failed to start');
    const f0 = await floorFor(count);
    const kind = textured ? 'textured' : 'plain';
    const times: SideTimes = { anim: [], encode: [], frame: [], gpu: [], drawCalls: 1 };
    const queue = device.queue;
    queue.writeBuffer(f0.viewProjection, 0, mat4.multiply(camera.projection, camera.view, new Float32Array(16)));
    for (let f = -warmup; f < frames; f++) {
      const t0 = performance.now();
      const encoder = device.createCommandEncoder({ label: 'floor frame' });
      const pass = encoder.beginRenderPass({
        label: 'floor pass',
        colorAttachments: [{
          view: f0.msaa.createView(), resolveTarget: context.getCurrentTexture().createView(),
          loadOp: 'clear', storeOp: 'discard', clearValue: [CLEAR[0], CLEAR[1], CLEAR[2], 1],
        }],
        depthStencilAttachment: { view: f0.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 },
        timestampWrites: f0.timing ? { querySet: f0.timing.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } : undefined,
      });
      pass.setPipeline(f0.pipelines[kind]);
      pass.setBindGroup(0, f0.bindGroups[kind]);
      pass.setVertexBuffer(0, f0.vertices);
      pass.draw(f0.vertexCount);
      pass.end();
      if (f0.timing) {
        encoder.resolveQuerySet(f0.timing.querySet, 0, 2, f0.timing.resolve, 0);
        encoder.copyBufferToBuffer(f0.timing.resolve, 0, f0.timing.readback, 0, 16);
      }
      queue.submit([encoder.finish()]);
      const t1 = performance.now();
      await queue.onSubmittedWorkDone();
      const t2 = performance.now();
      // The pass's own timestamps, read back outside t0…t2.
      let gpuMs: number | undefined;
      if (f0.timing) {
        await f0.timing.readback.mapAsync(GPUMapMode.READ);
        const [begin, end] = new BigUint64Array(f0.timing.readback.getMappedRange());
        gpuMs = Number(end - begin) / 1e6;
        f0.timing.readback.unmap();
      }
      if (f < 0) continue;
      times.anim.push(0);
      times.encode.push(t1 - t0);
      times.frame.push(t2 - t0);
      if (gpuMs !== undefined) times.gpu.push(gpuMs);
    }
    return times;
  },

  setCulling(on) {
    if (renderer) renderer.settings.culling = on;
  },

  async prepareLoad(assetUrl, frameUrl) {
    loadBytes = new Uint8Array(await (await fetch(assetUrl)).arrayBuffer());
    const name = assetUrl.split('/').pop() ?? assetUrl;
    const frameBytes = frameUrl ? new Uint8Array(await (await fetch(frameUrl)).arrayBuffer()) : loadBytes;
    const probe = await loadGltf(frameBytes, { name });
    loadCamera.yaw = 0.6;
    loadCamera.pitch = 0.3;
    loadCamera.fovY = FOV_Y;
    loadCamera.frame(computeInstanceBounds(createModelInstance(probe)), oursCanvas.width / oursCanvas.height);
    loadCamera.update(oursCanvas.width / oursCanvas.height);
    return name;
  },

  async loadOurs() {
    if (!device) throw new Error('our renderer failed to start');
    const bytes = loadBytes.slice();
    await device.queue.onSubmittedWorkDone();
    const t0 = performance.now();
    // Parse + validate, a new renderer, upload (buffers, textures, mipmaps, pipelines), one frame of the rest pose.
    const m = await loadGltf(bytes, { name: 'load bench' });
    const r = new Renderer(device, { format: viewFormat, label: 'load bench' });
    r.settings.clearColor.set([...CLEAR, 1]);
    await r.setModel(m);
    r.render(context.getCurrentTexture(), loadCamera, createModelInstance(m));
    await device.queue.onSubmittedWorkDone();
    const ms = performance.now() - t0;
    const bytesPerVertex = r.bytesPerVertex;
    r.destroy();
    return { ms, bytesPerVertex };
  },

  async loadThree() {
    if (!three) throw new Error('three.js failed to start');
    const bytes = loadBytes.slice();
    const threeDevice = (three.backend as unknown as { device: GPUDevice }).device;
    await threeDevice.queue.onSubmittedWorkDone();
    const t0 = performance.now();
    // A new WebGPURenderer on the same device, GLTFLoader.parseAsync (images decoded), one frame (pipelines compiled, data uploaded).
    const r = new THREE.WebGPURenderer({ canvas: threeCanvas, antialias: true, device: threeDevice } as ConstructorParameters<typeof THREE.WebGPURenderer>[0]);
    r.setPixelRatio(1);
    r.setSize(threeCanvas.width, threeCanvas.height, false);
    await r.init();
    configureThree(r);
    const g = await gltfLoader().parseAsync(bytes.buffer, '');
    const scene = threeLitScene();
    scene.add(g.scene);
    r.render(scene, threeCameraOf(loadCamera, threeCanvas.width / threeCanvas.height));
    await threeDevice.queue.onSubmittedWorkDone();
    const ms = performance.now() - t0;
    r.dispose();
    return { ms, bytesPerVertex: threeBytesPerVertex(g.scene) };
  },
};
