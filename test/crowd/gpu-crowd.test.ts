/**
 * Crowd with `evaluator: 'gpu'` against the same Crowd on the CPU: the same play, crossfade,
 * speed, placement and root-motion calls give palettes within 8 f32 ulps of the largest
 * translation (paletteUlpError ≤ 1), the same placements (root motion stays on the CPU),
 * 32 bytes uploaded per instance, and a frame that allocates nothing.
 */
import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { AUTO_GPU_MIN_INSTANCES, chooseCrowdEvaluator } from '../../src/crowd/evaluator-choice.ts';
import { createCrowd, type AnyCrowd } from '../../src/crowd/gpu-crowd.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { loadCharacter, paletteUlpError } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';
import { assetPath } from '../support/assets.ts';
import { useTestDevice } from '../support/webgpu.ts';
import { countGpuCalls, expectNoGpuErrors } from '../gpu/gpu-test.ts';

/** Tests skip visibly without WebGPU (and fail when CI=true): see test/support/webgpu.ts. */
const gpuDevice = useTestDevice('gpu crowd tests');
/** A binary fraction, so f32 clip times equal the CPU's f64 ones for the first loop. */
const DT = 1 / 64;

async function readBuffer(d: GPUDevice, source: GPUBuffer, bytes: number): Promise<Float32Array> {
  const staging = d.createBuffer({ label: 'test readback', size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = d.createCommandEncoder({ label: 'test readback' });
  encoder.copyBufferToBuffer(source, 0, staging, 0, bytes);
  d.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  staging.destroy();
  return out;
}

function evaluate(d: GPUDevice, crowd: AnyCrowd): void {
  crowd.gpu!.writeInstances(d.queue);
  const encoder = d.createCommandEncoder({ label: 'test crowd frame' });
  crowd.gpu!.encode(encoder);
  d.queue.submit([encoder.finish()]);
}

/** The same script on both crowds: clips, offsets, speeds, placements, crossfades mid-way. */
function script(crowds: Crowd[], model: Model, frames: number): void {
  const clips = model.animations.length;
  for (const crowd of crowds) {
    for (let k = 0; k < crowd.capacity; k++) {
      crowd.play(k, k % clips, (k % 5) / 32);
      crowd.speed[k] = [1, 0.5, 2, -1][k % 4];
      crowd.setPlacement(k, (k % 4) * 2, 0, Math.floor(k / 4) * 2, k * 0.25);
    }
  }
  for (let f = 0; f < frames; f++) {
    if (f === 3) for (const crowd of crowds) for (let k = 0; k < crowd.capacity; k += 3) crowd.crossfade(k, (k + 1) % clips, 0.25, 1 / 16);
    for (const crowd of crowds) crowd.update(DT);
  }
}

async function compareWithCpu(d: GPUDevice, model: Model, n: number, frames: number): Promise<void> {
  const cpu = new Crowd(model, n);
  const gpu = createCrowd(model, n, { evaluator: 'gpu', device: d });
  expect(gpu.evaluator).toBe('gpu');
  script([cpu, gpu], model, frames);
  expect(Array.from(gpu.placements)).toEqual(Array.from(cpu.placements)); // root motion: same CPU code, same doubles
  expect(gpu.instances).toHaveLength(n);
  await expectNoGpuErrors(d, async () => {
    evaluate(d, gpu);
    expect(gpu.gpu!.bytesUploaded).toBe(32 * n + gpu.gpu!['paramsData'].byteLength); // the first upload also sets the chunk counts
    const palettes = await readBuffer(d, gpu.gpu!.palettes, n * gpu.paletteMatrices * 64);
    const placements = await readBuffer(d, gpu.gpu!.placements, n * 64);
    const floats = gpu.paletteMatrices * 16;
    let fading = 0;
    for (let k = 0; k < n; k++) {
      if (cpu.fading(k)) fading++;
      const error = paletteUlpError(palettes.subarray(k * floats, (k + 1) * floats), cpu.instances[k].palette, model, cpu.instances[k].nodeMatrices);
      expect(error, `instance ${k}`).toBeLessThanOrEqual(1);
      for (let i = 0; i < 16; i++) expect(placements[k * 16 + i], `placement ${k}[${i}]`).toBeCloseTo(cpu.placements[k * 16 + i], 5);
    }
    expect(fading).toBeGreaterThan(0); // the comparison covered crossfades
  });
}

describe('Crowd on the GPU evaluator', () => {
  it('chooses its evaluator: cpu by default, gpu when asked (with a device), auto by the measured crossover', () => {
    const d = {} as GPUDevice;
    expect(chooseCrowdEvaluator({}, 1e5)).toBe('cpu');
    expect(chooseCrowdEvaluator({ evaluator: 'gpu', device: d }, 1)).toBe('gpu');
    expect(() => chooseCrowdEvaluator({ evaluator: 'gpu' }, 1)).toThrow(/evaluator 'gpu' needs a GPUDevice/);
    expect(() => chooseCrowdEvaluator({ evaluator: 'fast' as 'gpu' }, 1)).toThrow(/evaluator fast is not/);
    expect(chooseCrowdEvaluator({ evaluator: 'auto' }, 1e5)).toBe('cpu');
    expect(chooseCrowdEvaluator({ evaluator: 'auto', device: d }, AUTO_GPU_MIN_INSTANCES - 1)).toBe('cpu');
    expect(chooseCrowdEvaluator({ evaluator: 'auto', device: d }, AUTO_GPU_MIN_INSTANCES)).toBe('gpu');
  });

  it('builtin character (root motion, locked roots, crossfades between root-motion clips): palettes and placements as on the CPU', async (ctx) => {
    const device = gpuDevice.device(ctx);
    const model = await loadCharacter();
    expect(new Crowd(model, 1).rootMotions.some((m) => m !== undefined)).toBe(true);
    await compareWithCpu(device, model, 24, 12);
  });

  for (const name of ['Fox', 'CesiumMan']) {
    it(`${name}: palettes and placements as on the CPU`, async (ctx) => {
      const device = gpuDevice.device(ctx);
      await compareWithCpu(device, await loadGltfFile(assetPath(name)), 40, 10);
    });
  }

  it('evaluates only the first `count` instances and uploads only their state', async (ctx) => {
    const device = gpuDevice.device(ctx);
    const crowd = createCrowd(await loadGltfFile(assetPath('Fox')), 100, { evaluator: 'gpu', device });
    crowd.count = 30;
    crowd.update(DT);
    expect(crowd.gpu!.count).toBe(30);
    expect(crowd.gpu!.writeInstances(device.queue)).toBe(30 * 32 + crowd.gpu!['paramsData'].byteLength); // the first upload also sets the chunk counts
    crowd.update(DT);
    expect(crowd.gpu!.writeInstances(device.queue)).toBe(30 * 32);
    expect(crowd.gpu!.bytesUploaded).toBe(30 * 32);
    // No instance crossfades: sampling runs the pipeline compiled without crossfades; one fading (among the first 30) switches back.
    expect(crowd.gpu!['crossfading']).toBe(false);
    crowd.crossfade(40, 1, 1);
    crowd.update(DT);
    crowd.gpu!.writeInstances(device.queue);
    expect(crowd.gpu!['crossfading']).toBe(false);
    crowd.crossfade(29, 1, 1);
    crowd.update(DT);
    crowd.gpu!.writeInstances(device.queue);
    expect(crowd.gpu!['crossfading']).toBe(true);
    crowd.destroy();
  });

  it('a frame creates no GPU object and makes one writeBuffer (the states), whatever the chunk count', async (ctx) => {
    const device = gpuDevice.device(ctx);
    const crowd = createCrowd(await loadGltfFile(assetPath('CesiumMan')), 300, { evaluator: 'gpu', device, limits: { maxStorageBufferBindingSize: 100_000 } });
    expect(crowd.gpu!.chunkSize).toBe(64); // five chunks
    crowd.update(DT);
    crowd.gpu!.writeInstances(device.queue); // the first upload also writes the chunk counts
    await expectNoGpuErrors(device, () => {
      const counts = countGpuCalls(device, () => {
        crowd.update(DT);
        crowd.gpu!.writeInstances(device.queue);
        const encoder = device.createCommandEncoder({ label: 'test crowd frame' });
        crowd.gpu!.encode(encoder);
        device.queue.submit([encoder.finish()]);
      });
      expect(counts).toEqual({ writeBuffer: 1, createCommandEncoder: 1, submit: 1 });
    });
    crowd.destroy();
  });

  it('updates a GPU crowd with crossfades and root motion without allocating', async (ctx) => {
    const device = gpuDevice.device(ctx);
    const crowd = createCrowd(await loadCharacter(), 16, { evaluator: 'gpu', device });
    for (let k = 0; k < 16; k++) {
      crowd.play(k, k % 3, k * 0.1);
      crowd.speed[k] = 0.8 + 0.03 * k;
    }
    for (let k = 0; k < 16; k += 2) crowd.crossfade(k, 0, 1e6);
    const area = Float64Array.of(-10, -10, 10, 10);
    const frame = (): void => {
      crowd.update(1 / 60);
      crowd.wrapPlacements(area);
      crowd.gpu!.writeInstances(device.queue);
    };
    const { rounds, clean } = await measureAllocation(frame, 2_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});
