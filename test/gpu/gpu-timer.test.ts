/**
 * GPU frame timing by timestamp queries, on both kinds of device: with the
 * 'timestamp-query' feature (Dawn on SwiftShader has it) results arrive asynchronously
 * and are plausible; without it everything reports undefined. Also the Renderer's CPU
 * stats and the device request asking for the feature.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { requestWebGpuDevice } from '../../src/gpu/device.ts';
import { GpuTimer } from '../../src/gpu/gpu-timer.ts';
import { createNodeDevice } from '../../src/gpu/node-device.ts';
import { assetPath } from '../support/assets.ts';
import { GpuErrorWatch } from '../support/gpu-errors.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from './gpu-test.ts';

/** The usual test device: requested without optional features. */
const plain = await testDevice('gpu timer test device (no timestamp-query)');
/** A second device that asks for 'timestamp-query' when the adapter has it. */
const timedWatch = new GpuErrorWatch();
const timed = plain ? await createNodeDevice({
  label: 'gpu timer test device (timestamp-query)', timestampQuery: true,
  onUncapturedError: timedWatch.onUncapturedError, onLost: timedWatch.onLost,
}) : undefined;
beforeEach(() => { if (timed) timedWatch.begin(timed); });
afterEach(() => timedWatch.check());
afterAll(() => timed?.destroy());
const adapterHasTimestamps = timed?.features.has('timestamp-query') ?? false;
if (timed && !adapterHasTimestamps) process.stderr.write('gpu-timer: this adapter has no timestamp-query; only the unsupported path is tested\n');

/** Lets mapAsync callbacks run. */
async function settle(device: GPUDevice, until: () => boolean, tries = 50): Promise<void> {
  for (let i = 0; i < tries && !until(); i++) {
    await device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('requestWebGpuDevice and timestamp-query', () => {
  const fakeGpu = (features: string[], seen: GPUDeviceDescriptor[]) => ({
    requestAdapter: async () => ({
      features: new Set(features),
      requestDevice: async (d: GPUDeviceDescriptor) => { seen.push(d); return { label: d.label }; },
    }),
    getPreferredCanvasFormat: () => 'bgra8unorm',
  }) as unknown as GPU;

  it('asks for the feature when the adapter has it (unless told not to), never when it lacks it', async () => {
    const seen: GPUDeviceDescriptor[] = [];
    await requestWebGpuDevice({ gpu: fakeGpu(['timestamp-query', 'float32-filterable'], seen) });
    await requestWebGpuDevice({ gpu: fakeGpu(['timestamp-query'], seen), timestampQuery: false });
    await requestWebGpuDevice({ gpu: fakeGpu(['float32-filterable'], seen) });
    expect(seen.map((d) => [...(d.requiredFeatures ?? [])])).toEqual([['timestamp-query'], [], []]);
  });
});

describe.skipIf(!plain)('GpuTimer without timestamp-query', () => {
  it('is unsupported, hands out no timestampWrites and reports undefined; the renderer\'s gpuMs stays undefined', async () => {
    const gpu = plain!;
    expect(gpu.features.has('timestamp-query')).toBe(false);
    const timer = new GpuTimer(gpu);
    expect(timer.supported).toBe(false);
    expect(timer.beginPass()).toBeUndefined();
    timer.afterSubmit();
    expect(timer.lastMs).toBeUndefined();
    timer.destroy();

    const scene = new OffscreenScene(gpu, 64, 64);
    try {
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin'));
        expect(scene.renderer.gpuTiming).toBe(false);
        for (let f = 0; f < 3; f++) await scene.pose(0, f * 0.2).render();
        await gpu.queue.onSubmittedWorkDone();
        expect(scene.renderer.stats.gpuMs).toBeUndefined();
        expect(scene.renderer.stats.frames).toBe(3);
      });
    } finally {
      scene.destroy();
    }
  });
});

describe.skipIf(!timed || !adapterHasTimestamps)('GpuTimer with timestamp-query', () => {
  it('measures render passes asynchronously: plausible milliseconds, a bounded ring, no GPU objects per frame', async () => {
    const gpu = timed!;
    const scene = new OffscreenScene(gpu, 128, 128);
    const created: string[] = [];
    const dev = gpu as unknown as Record<string, unknown>;
    const originals = new Map<string, unknown>();
    try {
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive'));
        expect(scene.renderer.gpuTiming).toBe(true);
        scene.renderer.render(scene.target, scene.camera, scene.instance);
        for (const name of ['createBuffer', 'createQuerySet', 'createTexture', 'createBindGroup']) {
          const original = dev[name] as (...a: unknown[]) => unknown;
          originals.set(name, original);
          dev[name] = (...args: unknown[]) => { created.push(name); return original.apply(gpu, args); };
        }
        // Back to back without waiting: at most `slots` (4) frames are measured until results come back.
        for (let f = 0; f < 8; f++) {
          scene.pose(0, f * 0.1);
          scene.renderer.render(scene.target, scene.camera, scene.instance);
        }
        for (const [name, original] of originals) dev[name] = original;
        expect(created).toEqual([]);
        const stats = scene.renderer.stats;
        await settle(gpu, () => stats.gpuMs !== undefined && scene.renderer.stats.frames > 0);
        // The next frame copies the timer's latest result into the stats.
        scene.renderer.render(scene.target, scene.camera, scene.instance);
        expect(stats.gpuMs).toBeTypeOf('number');
        expect(Number.isFinite(stats.gpuMs)).toBe(true);
        expect(stats.gpuMs!).toBeGreaterThanOrEqual(0);
        // A 128×128 frame of a 6k-triangle model: far below a second even on a CPU rasteriser.
        expect(stats.gpuMs!).toBeLessThan(1000);
        process.stdout.write(`gpu-timer: RobotExpressive 128×128 frame pass ${stats.gpuMs!.toFixed(3)} ms on the GPU, ${stats.encodeMs.toFixed(3)} ms CPU\n`);
      });
    } finally {
      for (const [name, original] of originals) dev[name] = original;
      scene.destroy();
    }
  });

  it('a one-slot ring skips frames while its result is in flight, and recovers', async () => {
    const gpu = timed!;
    const timer = new GpuTimer(gpu, { label: 'one-slot timer', slots: 1 });
    const target = gpu.createTexture({ label: 'timer target', size: [16, 16], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const view = target.createView();
    const frame = (): boolean => {
      const writes = timer.beginPass();
      const encoder = gpu.createCommandEncoder({ label: 'timer frame' });
      const pass = encoder.beginRenderPass({
        label: 'timer pass',
        colorAttachments: [{ view, loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }],
        timestampWrites: writes,
      });
      pass.end();
      timer.endPass(encoder);
      gpu.queue.submit([encoder.finish()]);
      timer.afterSubmit();
      return writes !== undefined;
    };
    try {
      await expectNoGpuErrors(gpu, async () => {
        expect(timer.supported).toBe(true);
        expect(frame()).toBe(true);
        // Mapping is in flight: the next frames are not measured.
        expect(frame()).toBe(false);
        expect(frame()).toBe(false);
        await settle(gpu, () => timer.resolvedCount === 1);
        expect(timer.resolvedCount).toBe(1);
        expect(timer.lastMs).toBeGreaterThanOrEqual(0);
        expect(frame()).toBe(true);
        await settle(gpu, () => timer.resolvedCount === 2);
        expect(timer.resolvedCount).toBe(2);
      });
    } finally {
      timer.destroy();
      target.destroy();
    }
  });
});

describe.skipIf(!plain)('Renderer stats', () => {
  it('count draw calls, vertices, triangles, joints and instances per frame, and time the encode', async () => {
    const gpu = plain!;
    const scene = new OffscreenScene(gpu, 64, 64);
    try {
      await expectNoGpuErrors(gpu, async () => {
        const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
        await scene.setModel(model);
        const prims = model.meshNodes.flatMap((mn) => model.meshes[mn.mesh].primitives);
        const vertices = prims.reduce((n, p) => n + p.vertexCount, 0);
        const triangles = prims.reduce((n, p) => n + (p.indices ? p.indices.length : p.vertexCount) / 3, 0);
        const joints = model.skins[0].joints.length;
        await scene.pose(0, 0.3).render();
        const stats = scene.renderer.stats;
        expect({ drawCalls: stats.drawCalls, instances: stats.instances, vertices: stats.vertices, triangles: stats.triangles, joints: stats.joints })
          .toEqual({ drawCalls: prims.length, instances: 1, vertices, triangles, joints });
        expect(stats.encodeMs).toBeGreaterThan(0);
        expect(stats.encodeMs).toBeLessThan(1000);
        // Three instances: still one draw call per primitive (instanced), three times the work.
        const crowd = [scene.instance, createModelInstance(model), createModelInstance(model)];
        scene.renderer.renderInstances(scene.target, scene.camera, crowd);
        expect({ drawCalls: stats.drawCalls, instances: stats.instances, vertices: stats.vertices, joints: stats.joints })
          .toEqual({ drawCalls: prims.length, instances: 3, vertices: 3 * vertices, joints: 3 * joints });
        await gpu.queue.onSubmittedWorkDone();
      });
    } finally {
      scene.destroy();
    }
  });
});
