/**
 * Models and crowds beyond the device limits (issue #7, src/gpu/device/limits.ts): handled or
 * refused with a clear message, never a WebGPU validation error. Dawn will not give a
 * device limits below the WebGPU defaults, so the tests lower them through
 * `RendererOptions.limits` and render on the real device; the harness fails any test
 * that causes a WebGPU error. Each fallback must draw what the normal path draws.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../../src/anim/instance.ts';
import type { GltfWarning } from '../../../src/gltf/errors.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { DRAW_RECORD_SIZE } from '../../../src/gpu/layouts/draw-record.ts';
import { PALETTE_MATRIX_BYTES } from '../../../src/gpu/layouts/bindings.ts';
import {
  allocationLimits, fitDimensions, GpuLimitError, instancesPerBinding, type AllocationLimits,
} from '../../../src/gpu/device/limits.ts';
import { MipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { readTexturePixels } from '../../../src/gpu/device/readback.ts';
import type { RendererOptions } from '../../../src/gpu/frame/render-settings.ts';
import { downscalePixels } from '../../../src/gpu/textures/downscale.ts';
import { createImageTexture, fitImage } from '../../../src/gpu/textures/textures.ts';
import { assetPath } from '../../support/assets.ts';
import { buildChain } from '../../support/fixtures.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice('limits tests');
const W = 160, H = 96;

const DEFAULTS: AllocationLimits = { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28, maxTextureDimension2D: 8192, maxVertexBuffers: 8 };

describe('limits arithmetic', () => {
  it('lowers the device limits to the overrides, never raises them', () => {
    const fake = { limits: DEFAULTS } as unknown as GPUDevice;
    expect(allocationLimits(fake)).toEqual(DEFAULTS);
    expect(allocationLimits(fake, { maxVertexBuffers: 3, maxTextureDimension2D: 1 << 20 })).toEqual({ ...DEFAULTS, maxVertexBuffers: 3 });
  });

  it('fits images inside the largest texture side, keeping the aspect', () => {
    expect(fitDimensions(300, 200, 512)).toEqual({ width: 300, height: 200 });
    expect(fitDimensions(4096, 1024, 1024)).toEqual({ width: 1024, height: 256 });
    expect(fitDimensions(10, 9000, 64)).toEqual({ width: 1, height: 64 });
  });

  it('counts instances per binding from the largest per-instance array, and refuses when one does not fit', () => {
    const limits = { ...DEFAULTS, maxStorageBufferBindingSize: 1000 };
    expect(instancesPerBinding(limits, [64 * 4, 176], 'm')).toBe(3);
    expect(instancesPerBinding({ ...limits, maxBufferSize: 500 }, [64 * 4, 176], 'm')).toBe(1);
    expect(instancesPerBinding(limits, [0, 0], 'm')).toBeGreaterThan(1e9);
    expect(() => instancesPerBinding(limits, [64 * 20, 176], 'crowd model')).toThrow(GpuLimitError);
    expect(() => instancesPerBinding(limits, [64 * 20, 176], 'crowd model')).toThrow(/crowd model: one instance needs 1280 bytes .* \(maxStorageBufferBindingSize\/maxBufferSize 1000\)/);
  });

  it('box-filters pixels like a mip level: in linear light for sRGB, alpha-weighted', () => {
    // 4×2: a black and a white texel per output texel, then two fully transparent red texels beside an opaque green one.
    const data = Uint8Array.from([
      0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 255, 0, 255,
      255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 0, 0, 255, 0, 255,
    ]);
    const image = { width: 4, height: 2, data };
    const srgb = downscalePixels(image, 2, 1, true);
    const linear = downscalePixels(image, 2, 1, false);
    expect(Array.from(srgb.data.subarray(0, 4))).toEqual([188, 188, 188, 255]);
    expect(Array.from(linear.data.subarray(0, 4))).toEqual([128, 128, 128, 255]);
    // The transparent red does not tint the green; coverage halves.
    expect(Array.from(linear.data.subarray(4, 8))).toEqual([0, 255, 0, 128]);
  });
});

function translation(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

function maxDifference(a: Frame, b: Frame): number {
  let max = 0;
  for (let i = 0; i < a.rgba.length; i++) max = Math.max(max, Math.abs(a.rgba[i] - b.rgba[i]));
  return max;
}

function meanDifference(a: Frame, b: Frame): number {
  let sum = 0;
  for (let i = 0; i < a.rgba.length; i++) sum += Math.abs(a.rgba[i] - b.rgba[i]);
  return sum / a.rgba.length;
}

describe.skipIf(!device)('beyond the device limits (Dawn on SwiftShader)', () => {
  const gpu = device!;
  const scenes: OffscreenScene[] = [];
  afterEach(() => {
    for (const s of scenes.splice(0)) s.destroy();
  });
  function scene(options: Partial<RendererOptions> = {}): OffscreenScene {
    const s = new OffscreenScene(gpu, W, H, 'rgba8unorm-srgb', options);
    scenes.push(s);
    return s;
  }

  it('palettes beyond maxStorageBufferBindingSize: the crowd is drawn in chunks, pixel for pixel as in one pass', async () => {
    const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const joints = model.skins[0].joints.length;
    let draws = 0;
    for (const mn of model.meshNodes) draws += model.meshes[mn.mesh].primitives.length;
    const perInstance = Math.max(joints * PALETTE_MATRIX_BYTES, draws * DRAW_RECORD_SIZE);
    const COUNT = 7, CHUNK = 3;
    const whole = scene();
    const chunked = scene({ limits: { maxStorageBufferBindingSize: CHUNK * perInstance + perInstance / 2 } });
    const instances: ModelInstance[] = [];
    const placements: number[] = [];
    for (let k = 0; k < COUNT; k++) {
      const instance = createModelInstance(model);
      updateModelInstance(instance, 0, k * 0.23);
      instances.push(instance);
      // Overlapping, at alternating depths: later chunks must depth-test against earlier ones.
      placements.push(...translation((k - 3) * 0.35, 0, (k % 2) * -0.4));
    }
    const place = Float64Array.from(placements);
    const frames: Frame[] = [];
    await expectNoGpuErrors(gpu, async () => {
      for (const s of [whole, chunked]) {
        await s.setModel(model);
        s.camera.frame(computeInstanceBounds(instances[0]), W / H);
        s.camera.distance *= 2.2;
        s.renderer.renderInstances(s.target, s.camera, instances, COUNT, place);
        frames.push({ width: W, height: H, rgba: await readTexturePixels(gpu, s.target) });
      }
    });
    writeArtifactPng('limits-crowd-chunked', W, H, frames[1].rgba);
    expect(whole.renderer.stats.drawCalls).toBe(draws);
    expect(chunked.renderer.stats).toMatchObject({ drawCalls: draws * Math.ceil(COUNT / CHUNK), instances: COUNT, joints: joints * COUNT, frames: 1 });
    expect(coverage(frames[0])).toBeGreaterThan(0.05);
    expect(maxDifference(frames[0], frames[1])).toBe(0);
  });

  it('a single instance beyond the binding limit is refused with the sizes, before any GPU object is misused', async () => {
    const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const s = scene({ limits: { maxStorageBufferBindingSize: 256 } });
    await expect(s.renderer.setModel(model)).rejects.toThrow(GpuLimitError);
    await expect(s.renderer.setModel(model)).rejects.toThrow(/CesiumMan: one instance needs \d+ bytes of storage .*maxStorageBufferBindingSize\/maxBufferSize 256/);
    expect(s.renderer.model).toBeUndefined();
  });

  it('more vertex buffers than maxVertexBuffers: the skinning attributes share one packed buffer, same pixels', async () => {
    // 8 influences in mixed formats: geometry, defaults, JOINTS_0/WEIGHTS_0/JOINTS_1/WEIGHTS_1 = 6 slots.
    const model = await loadGltf(buildChain({ eightInfluences: true, joints: 'u16', weights: 'u8' }), { name: 'chain (8 influences)' });
    const normal = scene();
    const packed = scene({ limits: { maxVertexBuffers: 3 } });
    const frames: Frame[] = [];
    const labels: string[] = [];
    const createBuffer = gpu.createBuffer;
    await expectNoGpuErrors(gpu, async () => {
      for (const s of [normal, packed]) {
        gpu.createBuffer = function (this: GPUDevice, d: GPUBufferDescriptor) {
          if (s === packed && d.usage & GPUBufferUsage.VERTEX) labels.push(d.label ?? '');
          return createBuffer.call(this, d);
        };
        try {
          await s.setModel(model);
        } finally {
          gpu.createBuffer = createBuffer;
        }
        frames.push(await s.pose(0, 1.3).render());
      }
    });
    expect(labels.filter((l) => /JOINTS|WEIGHTS|skinning/.test(l))).toEqual(['chain (8 influences) meshes[0].primitives[0] skinning attributes (packed)']);
    expect(coverage(frames[0])).toBeGreaterThan(0.02);
    expect(maxDifference(frames[0], frames[1])).toBe(0);
    // Two slots (geometry, defaults) can hold no skinning attributes at all: refused, naming the primitive.
    const tooFew = scene({ limits: { maxVertexBuffers: 2 } });
    await expect(tooFew.renderer.setModel(model)).rejects.toThrow(/meshes\[0\]\.primitives\[0\]: needs 3 vertex buffers, the device allows 2 \(maxVertexBuffers\)/);
  });

  it('a vertex or index buffer beyond maxBufferSize is refused with a clear message, and nothing is left allocated', async () => {
    const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const s = scene({ limits: { maxBufferSize: 4096 } });
    const created = new Set<GPUBuffer>();
    const createBuffer = gpu.createBuffer;
    gpu.createBuffer = function (this: GPUDevice, d: GPUBufferDescriptor) {
      const buffer = createBuffer.call(this, d);
      created.add(buffer);
      const destroy = buffer.destroy;
      buffer.destroy = () => {
        created.delete(buffer);
        destroy.call(buffer);
      };
      return buffer;
    };
    try {
      await expect(s.renderer.setModel(model)).rejects.toThrow(/CesiumMan meshes\[0\]\.primitives\[0\] geometry: \d+ bytes exceed the device's maxBufferSize \(4096\)/);
    } finally {
      gpu.createBuffer = createBuffer;
    }
    // The material buffers made before the refusal were destroyed again.
    expect([...created].map((b) => b.label)).toEqual([]);
  });

  it('textures beyond maxTextureDimension2D are downscaled on upload with a warning; the render barely changes', async () => {
    const model: Model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const warnings: GltfWarning[] = [];
    const full = scene();
    const small = scene({ limits: { maxTextureDimension2D: 128 }, onWarning: (w) => warnings.push(w) });
    const frames: Frame[] = [];
    await expectNoGpuErrors(gpu, async () => {
      for (const s of [full, small]) {
        await s.setModel(model);
        frames.push(await s.pose(0, 0.5).render());
      }
    });
    writeArtifactPng('limits-texture-downscaled', W, H, frames[1].rgba);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].path).toBe('images[0]');
    expect(warnings[0].message).toMatch(/^\d+×\d+ exceeds the device's maxTextureDimension2D \(128\); downscaled to 128×128$/);
    // A 128² texture seen at this size is what the mips would have sampled anyway.
    expect(meanDifference(frames[0], frames[1])).toBeLessThan(1.5);
  });

  it('a downscaled texture holds what the full one holds at the matching mip level', async () => {
    const size = 16;
    const data = new Uint8Array(size * size * 4);
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) data.set((x + y) % 2 ? [255, 255, 255, 255] : [0, 0, 0, 255], (y * size + x) * 4);
    const image = { width: size, height: size, data };
    await expectNoGpuErrors(gpu, async () => {
      const mipmaps = new MipmapGenerator(gpu);
      const fitted = await fitImage(image, 4, true);
      expect([fitted.width, fitted.height]).toEqual([4, 4]);
      const full = createImageTexture(gpu, mipmaps, image, true, 'checker 16');
      const reduced = createImageTexture(gpu, mipmaps, fitted, true, 'checker 16 fitted to 4');
      const level2 = await readTexturePixels(gpu, full, 2);
      const level0 = await readTexturePixels(gpu, reduced, 0);
      for (let i = 0; i < level0.length; i++) expect(Math.abs(level0[i] - level2[i])).toBeLessThanOrEqual(2);
      expect(await fitImage(image, 16, true)).toBe(image);
      full.destroy();
      reduced.destroy();
    });
  });
});
