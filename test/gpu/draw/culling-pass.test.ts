/**
 * GPU bounds, culling and indirect draws (src/gpu/draw/culling-pass.ts, shaders/cull.wgsl) on Dawn
 * (SwiftShader): the WGSL layouts against the TS ones; the instances the GPU keeps are
 * exactly the CPU culler's (InstanceCuller); a 50-instance crowd drawn from GPU palettes with
 * GPU culling gives the same pixels as the CPU path; stats.bytesUploaded counts every
 * writeBuffer of a frame; a GPU-culled frame creates no GPU object but its encoder.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cullWgsl from '../../../shaders/cull.wgsl?raw';
import { Crowd } from '../../../src/anim/crowd.ts';
import { createModelInstance } from '../../../src/anim/instance.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { InstanceCuller } from '../../../src/gpu/draw/cpu-culling.ts';
import { DRAW_RECORD_SIZE, DrawRecordWord, DRAW_RECORD_WORDS } from '../../../src/gpu/layouts/draw-record.ts';
import {
  CULL_DRAW_BYTES, CULL_MESH_NODE_BYTES, CULL_PAIR_BYTES, CULL_PARAMS_BYTES, CullBinding, CullDrawWord, CullMeshNodeWord, CullPairWord, CullParamsWord,
} from '../../../src/gpu/layouts/cull.ts';
import { cullGrid, packCullData } from '../../../src/gpu/draw/culling-pass.ts';
import type { GpuPaletteSource } from '../../../src/gpu/draw/palette-source.ts';
import type { ModelDraws } from '../../../src/gpu/draw/model-draws.ts';
import { mat4 } from 'wgpu-matrix';
import { assetPath } from '../../support/assets.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';
import { bindings, structLayout } from '../wgsl-layout.ts';

describe('cull.wgsl ↔ layouts/cull.ts', () => {
  // The layout parser knows no arrays: the six planes as six vec4f fields.
  const source = cullWgsl.replace('planes: array<vec4f, 6>,', 'planes: vec4f, _p1: vec4f, _p2: vec4f, _p3: vec4f, _p4: vec4f, _p5: vec4f,');
  const words = (name: string) => Object.fromEntries(structLayout(source, name).fields.filter((f) => !f.name.startsWith('_')).map((f) => [f.name, f.offset / 4]));
  const snake = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  it('bindings, struct offsets and sizes agree', () => {
    expect(Object.fromEntries([...bindings(cullWgsl)].map(([name, b]) => [snake(name), b.binding]))).toEqual(CullBinding);
    expect(words('CullParams')).toEqual({ planes: CullParamsWord.PLANES, count: CullParamsWord.COUNT, paletteMatrices: CullParamsWord.PALETTE_MATRICES, drawCount: CullParamsWord.DRAW_COUNT, meshNodeCount: CullParamsWord.MESH_NODE_COUNT, cull: CullParamsWord.CULL });
    expect(Math.ceil(structLayout(source, 'CullParams').size / 16) * 16).toBe(CULL_PARAMS_BYTES);
    expect(Object.fromEntries(Object.entries(words('CullMeshNode')).map(([k, v]) => [snake(k), v]))).toEqual(CullMeshNodeWord);
    expect(structLayout(cullWgsl, 'CullMeshNode').size).toBe(CULL_MESH_NODE_BYTES);
    expect(Object.fromEntries(Object.entries(words('CullPair')).map(([k, v]) => [snake(k), v]))).toEqual(CullPairWord);
    expect(structLayout(cullWgsl, 'CullPair').size).toBe(CULL_PAIR_BYTES);
    expect(Object.fromEntries(Object.entries(words('CullDraw')).map(([k, v]) => [snake(k), v]))).toEqual(CullDrawWord);
    expect(structLayout(cullWgsl, 'CullDraw').size).toBe(CULL_DRAW_BYTES);
  });

  it('cullGrid covers any count with at most the per-dimension limit along x', () => {
    const out = new Uint32Array(2);
    expect([...cullGrid(0, 8, out)]).toEqual([0, 0]);
    expect([...cullGrid(1, 8, out)]).toEqual([1, 1]);
    expect([...cullGrid(64 * 8, 8, out)]).toEqual([8, 1]);
    expect([...cullGrid(64 * 8 + 1, 8, out)]).toEqual([8, 2]);
  });
});

const device = await testDevice();
const W = 192, H = 128;
const COUNT = 50;

/** Bytes a writeBuffer call writes (TypedArray offsets and sizes count elements). */
function writeSize(data: ArrayBufferLike | ArrayBufferView, dataOffset = 0, size?: number): number {
  if (ArrayBuffer.isView(data)) {
    const element = (data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
    return size !== undefined ? size * element : data.byteLength - dataOffset * element;
  }
  return size !== undefined ? size : data.byteLength - dataOffset;
}

function differing(a: Frame, b: Frame): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) if (a.rgba[i] !== b.rgba[i] || a.rgba[i + 1] !== b.rgba[i + 1] || a.rgba[i + 2] !== b.rgba[i + 2] || a.rgba[i + 3] !== b.rgba[i + 3]) n++;
  return n;
}

describe.skipIf(!device)('GPU culling and indirect draws (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let model: Model;
  let crowd: Crowd;
  let palettes: GPUBuffer;
  let source: GpuPaletteSource;
  let size = 1;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, W, H);
    model = await loadModel(readFileSync(assetPath('Fox')), 'Fox');
    await scene.setModel(model, false);
    const rest = computeInstanceBounds(createModelInstance(model));
    size = Math.max(rest.max[0] - rest.min[0], rest.max[2] - rest.min[2]);
    crowd = new Crowd(model, COUNT);
    crowd.placeOnGrid(size * 1.2);
    for (let k = 0; k < COUNT; k++) crowd.play(k, k % model.animations.length, k * 0.13);
    crowd.rootMotion = false;
    crowd.update(0.5);
    palettes = gpu.createBuffer({ label: 'test crowd palettes', size: crowd.palettes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    gpu.queue.writeBuffer(palettes, 0, crowd.palettes);
    source = { palettes };
    expect(await scene.renderer.prepareGpuCulling()).toBe(true);
  });
  afterAll(() => {
    scene?.destroy();
    palettes?.destroy();
  });

  const draws = (): ModelDraws => (scene.renderer as unknown as { current: ModelDraws }).current;

  /** Aims the camera at a part of the grid so that some instances are in view and some not. */
  function aim(yaw: number, pitch: number, distance: number): void {
    const c = scene.camera;
    c.target.set([size * 1.5, size * 0.3, 0]);
    c.yaw = yaw;
    c.pitch = pitch;
    c.distance = distance * size;
    c.near = size * 0.05;
    c.far = size * 5;
  }

  /** The instances the last GPU-culled frame kept, from its compacted records (their palette offsets). */
  async function gpuKept(): Promise<number[]> {
    const d = draws();
    const culler = d.gpuCuller!;
    await gpu.queue.onSubmittedWorkDone();
    const before = culler.readCount;
    for (let i = 0; i < 200 && culler.readCount === before; i++) await new Promise((r) => setTimeout(r, 5));
    // One more settled frame so the readback belongs to the frame whose records we read.
    const n = culler.visibleCount();
    const bytes = COUNT * DRAW_RECORD_SIZE;
    const copy = gpu.createBuffer({ label: 'test culled records readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = gpu.createCommandEncoder();
    encoder.copyBufferToBuffer(d.culledDrawBuffer!, 0, copy, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    await copy.mapAsync(GPUMapMode.READ);
    const u32 = new Uint32Array(copy.getMappedRange().slice(0));
    copy.destroy();
    const kept: number[] = [];
    for (let j = 0; j < n; j++) kept.push(u32[j * DRAW_RECORD_WORDS + DrawRecordWord.PALETTE_OFFSET] / crowd.paletteMatrices);
    return kept.sort((a, b) => a - b);
  }

  function cpuKept(): number[] {
    const culler = new InstanceCuller(model);
    const c = scene.camera;
    c.update(W / H);
    const viewProjection = mat4.multiply(c.projection, c.view, new Float32Array(16)) as Float32Array;
    culler.run(viewProjection, c.view as Float32Array, crowd.instances, COUNT, crowd.placements, 'linear');
    return [...culler.kept.subarray(0, culler.visibleCount)].sort((a, b) => a - b);
  }

  it('packs every mesh node\'s groups: group ends point past each group, within the node\'s pairs', () => {
    const d = draws();
    const data = packCullData(model, d.draws);
    const nu = new Uint32Array(data.meshNodes), pu = new Uint32Array(data.pairs);
    const first = nu[CullMeshNodeWord.FIRST_PAIR], end = nu[CullMeshNodeWord.PAIR_END];
    expect(end).toBeGreaterThan(first);
    for (let g = first; g < end; g = pu[g * CULL_PAIR_BYTES / 4 + CullPairWord.GROUP_END]) {
      const groupEnd = pu[g * CULL_PAIR_BYTES / 4 + CullPairWord.GROUP_END];
      expect(groupEnd).toBeGreaterThan(g);
      expect(groupEnd).toBeLessThanOrEqual(end);
    }
    expect(nu[CullMeshNodeWord.RECORD_DRAW]).toBe(0);
  });

  it('keeps exactly the instances the CPU culler keeps, for views that cut through the crowd', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      r.settings.culling = true;
      let partial = 0;
      for (const [yaw, pitch, distance] of [[0, -0.3, 2.5], [0.8, -0.2, 3], [-1.2, -0.5, 2], [2.5, -0.1, 4], [0.3, -1.2, 3.5]]) {
        aim(yaw, pitch, distance);
        r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, source);
        const gpuSet = await gpuKept();
        const cpuSet = cpuKept();
        expect(gpuSet).toEqual(cpuSet);
        if (cpuSet.length > 0 && cpuSet.length < COUNT) partial++;
      }
      // The views really cut through the crowd (not all in or all out).
      expect(partial).toBeGreaterThanOrEqual(4);
      // The stats show the GPU's count (read back late: after a settled frame, this one's).
      aim(0, -0.3, 2.5);
      for (let i = 0; i < 2; i++) {
        r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, source);
        await gpuKept();
      }
      r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, source);
      expect(r.stats.instances).toBe(cpuKept().length);
      expect(r.stats.culled).toBe(COUNT - cpuKept().length);
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  for (const config of ['vertex path', 'shadows, compute path'] as const) {
    it(`draws the same pixels from GPU palettes with GPU culling as the CPU path (${config})`, async () => {
      await expectNoGpuErrors(gpu, async () => {
        const r = scene.renderer;
        r.settings.culling = true;
        r.settings.shadows = config !== 'vertex path';
        r.settings.skinningPath = config === 'vertex path' ? 'vertex' : 'compute';
        if (r.settings.shadows) {
          await r.prepareShadows();
          await r.prepareComputeSkinning();
        }
        try {
          aim(0.5, -0.35, 2.2);
          r.renderCrowd(scene.target, scene.camera, crowd);
          expect(r.skinningPath).toBe(config === 'vertex path' ? 'vertex' : 'compute');
          const cpuStats = { ...r.stats };
          const cpu = await scene.read();
          r.renderCrowd(scene.target, scene.camera, crowd, source);
          expect(r.stats.joints).toBe(0);
          expect(r.stats.drawCalls).toBe(cpuStats.drawCalls);
          const gpuFrame = await scene.read();
          writeArtifactPng(`gpu-culling-${config.replace(/[^a-z]+/g, '-')}-cpu`, W, H, cpu.rgba);
          writeArtifactPng(`gpu-culling-${config.replace(/[^a-z]+/g, '-')}-gpu`, W, H, gpuFrame.rgba);
          let covered = 0;
          for (let i = 3; i < cpu.rgba.length; i += 4) if (cpu.rgba[i] > 0) covered++;
          expect(covered).toBeGreaterThan(W * H / 20);
          expect(cpuStats.culled).toBeGreaterThan(0);
          expect(differing(cpu, gpuFrame)).toBe(0);
        } finally {
          r.settings.shadows = false;
          r.settings.skinningPath = 'auto';
        }
      });
    });
  }

  it('stats.bytesUploaded is every byte the frame wrote, on the CPU path and the GPU path (with a source\'s own upload)', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      const state = gpu.createBuffer({ label: 'test per-instance state', size: COUNT * 32, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.STORAGE });
      const bytes = new Uint8Array(COUNT * 32);
      const uploading: GpuPaletteSource = {
        palettes,
        writeInstances: (queue) => { queue.writeBuffer(state, 0, bytes); return bytes.byteLength; },
      };
      const measure = (frame: () => void): number => {
        let written = 0;
        const queue = gpu.queue as unknown as Record<string, unknown>;
        const original = queue.writeBuffer as (...a: unknown[]) => unknown;
        queue.writeBuffer = (...args: unknown[]) => {
          written += writeSize(args[2] as ArrayBuffer, args[3] as number | undefined, args[4] as number | undefined);
          return original.apply(gpu.queue, args);
        };
        try {
          frame();
        } finally {
          queue.writeBuffer = original;
        }
        return written;
      };
      r.settings.culling = true;
      aim(0.5, -0.35, 2.2);
      for (const shadows of [false, true]) {
        r.settings.shadows = shadows;
        if (shadows) await r.prepareShadows();
        const cpu = measure(() => r.renderCrowd(scene.target, scene.camera, crowd));
        expect(r.stats.bytesUploaded).toBe(cpu);
        // The in-place palette upload of every instance is most of it.
        expect(cpu).toBeGreaterThan(COUNT * crowd.paletteMatrices * 64);
        const gpuPath = measure(() => r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, uploading));
        expect(r.stats.bytesUploaded).toBe(gpuPath);
        expect(gpuPath).toBeLessThan(COUNT * crowd.paletteMatrices * 64);
        expect(gpuPath).toBeGreaterThan(bytes.byteLength);
      }
      r.settings.shadows = false;
      await gpu.queue.onSubmittedWorkDone();
      state.destroy();
    });
  });

  it('palettes beyond one storage binding go in chunks: each chunk copies its range of the GPU palettes and is culled on the GPU; same pixels and culled count as the CPU path', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const perInstance = crowd.paletteMatrices * 64;
      const chunk = 16;
      const chunked = new OffscreenScene(gpu, W, H, 'rgba8unorm-srgb', { limits: { maxStorageBufferBindingSize: chunk * perInstance + perInstance / 2 } });
      try {
        await chunked.setModel(model, false);
        chunked.camera.target.set(scene.camera.target);
        Object.assign(chunked.camera, { yaw: 0.5, pitch: -0.35, distance: 2.2 * size, near: size * 0.05, far: size * 5 });
        const r = chunked.renderer;
        r.settings.culling = true;
        expect(await r.prepareGpuCulling()).toBe(true);
        r.renderCrowd(chunked.target, chunked.camera, crowd);
        const cpu = await chunked.read();
        const cpuCulled = r.stats.culled;
        expect(cpuCulled).toBeGreaterThan(0);
        const copies = countGpuCalls(gpu, () => r.renderInstances(chunked.target, chunked.camera, crowd.instances, COUNT, crowd.placements, source));
        // Four chunks of at most 16: four submits, each culled on the GPU (indirect draws).
        expect(copies.submit).toBe(Math.ceil(COUNT / chunk));
        expect(r.stats.joints).toBe(0);
        const gpuFrame = await chunked.read();
        // Each chunk's count comes back a frame or two late; then the frame's total is the CPU culler's.
        for (let f = 0; f < 50 && r.stats.culled !== cpuCulled; f++) {
          await gpu.queue.onSubmittedWorkDone();
          await new Promise((resolve) => setTimeout(resolve, 5));
          r.renderInstances(chunked.target, chunked.camera, crowd.instances, COUNT, crowd.placements, source);
        }
        expect(r.stats.culled).toBe(cpuCulled);
        expect(r.stats.instances).toBe(COUNT - cpuCulled);
        let covered = 0;
        for (let i = 3; i < cpu.rgba.length; i += 4) if (cpu.rgba[i] > 0) covered++;
        expect(covered).toBeGreaterThan(W * H / 20);
        expect(differing(cpu, gpuFrame)).toBe(0);
        await gpu.queue.onSubmittedWorkDone();
      } finally {
        chunked.destroy();
      }
    });
  });

  it('refuses GPU palettes too small for the instances drawn, naming the buffer', () => {
    const small = gpu.createBuffer({ label: 'too small palettes', size: 64 * crowd.paletteMatrices, usage: GPUBufferUsage.STORAGE });
    try {
      expect(() => scene.renderer.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, { palettes: small }))
        .toThrow(new RangeError(`Renderer.renderInstances: ${COUNT} instances need ${COUNT * crowd.paletteMatrices * 64} bytes of GPU palettes (at least one matrix), "too small palettes" holds ${64 * crowd.paletteMatrices}`));
    } finally {
      small.destroy();
    }
  });

  it('a GPU-culled frame creates no GPU object: one encoder, one submit, its writeBuffers', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      r.settings.culling = true;
      aim(0.5, -0.35, 2.2);
      r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, source);
      const counts = countGpuCalls(gpu, () => {
        for (let i = 0; i < 5; i++) r.renderInstances(scene.target, scene.camera, crowd.instances, COUNT, crowd.placements, source);
      });
      // Per frame: frame uniforms, placements and record parameters (records written on the GPU), culling parameters.
      expect(counts).toEqual({ createCommandEncoder: 5, submit: 5, writeBuffer: 20 });
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
