/**
 * GPU frame timing by timestamp queries, on both kinds of device: with the
 * 'timestamp-query' feature (Dawn on SwiftShader has it) results arrive asynchronously
 * and fit in the wall time around them; without it everything reports undefined. The
 * conversion of the two u64 timestamps to milliseconds is checked exactly on a stand-in
 * device that returns timestamps the test chose. Also the Renderer's CPU stats and the
 * device request asking for the feature. (No speed is asserted: that is `npm run bench`.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelInstance } from '../../../src/anim/instance.ts';
import { requestWebGpuDevice } from '../../../src/gpu/device/device.ts';
import { GpuTimer } from '../../../src/gpu/device/timer.ts';
import { createNodeDevice } from '../../../src/gpu/device/node-device.ts';
import { assetPath } from '../../support/assets.ts';
import { GpuErrorWatch } from '../../support/gpu-errors.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from '../gpu-test.ts';

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

/** Two u64 timestamps as the (low, high) u32 words a resolved query set holds. */
function timestampWords(begin: bigint, end: bigint): Uint32Array<ArrayBuffer> {
  const words = new BigUint64Array([begin, end]);
  return new Uint32Array(words.buffer);
}

describe.skipIf(typeof GPUBufferUsage === 'undefined')('GpuTimer reading timestamps back', () => {
  it('turns two u64 nanosecond timestamps into milliseconds exactly, across the low word\'s wrap; a negative span is no measurement', async () => {
    // A device with 'timestamp-query' whose readback buffers map to the timestamps the test chose.
    let mapped = timestampWords(0n, 0n);
    const mapping: (() => void)[] = [];
    const device = {
      features: new Set(['timestamp-query']),
      createQuerySet: () => ({ destroy() {} }),
      createBuffer: () => ({
        mapAsync: () => new Promise<void>((resolve) => mapping.push(resolve)),
        getMappedRange: () => mapped.slice().buffer,
        unmap() {},
        destroy() {},
      }),
    } as unknown as GPUDevice;
    const encoder = { resolveQuerySet() {}, copyBufferToBuffer() {} } as unknown as GPUCommandEncoder;
    const timer = new GpuTimer(device, { label: 'stand-in timer', slots: 1 });
    const measure = async (begin: bigint, end: bigint) => {
      mapped = timestampWords(begin, end);
      expect(timer.beginPass()).toBeDefined();
      timer.endPass(encoder);
      timer.afterSubmit();
      expect(mapping).toHaveLength(1);
      mapping.shift()!();
      await new Promise(setImmediate);
    };
    const beforeWrap = 2n ** 32n - 250_000n;
    await measure(beforeWrap, beforeWrap + 1_500_000n);
    expect([timer.lastMs, timer.resolvedCount]).toEqual([1.5, 1]);
    const later = 5n * 2n ** 32n + 7n;
    await measure(later, later + 16_666_667n);
    expect([timer.lastMs, timer.resolvedCount]).toEqual([16.666667, 2]);
    await measure(later, later - 1n);
    expect([timer.lastMs, timer.resolvedCount]).toEqual([16.666667, 2]);
    timer.destroy();
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
  it('measures render passes asynchronously: milliseconds that fit the wall time around them, a bounded ring, no GPU objects per frame', async () => {
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
        const framesStarted = performance.now();
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
        // The measured pass ran between the first of those frames and now: a unit slip
        // (microseconds or nanoseconds read as milliseconds) would not fit.
        expect(stats.gpuMs!).toBeLessThanOrEqual(performance.now() - framesStarted);
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
        const renderStarted = performance.now();
        await scene.pose(0, 0.3).render();
        const renderMs = performance.now() - renderStarted;
        const stats = scene.renderer.stats;
        expect({ drawCalls: stats.drawCalls, instances: stats.instances, vertices: stats.vertices, triangles: stats.triangles, joints: stats.joints })
          .toEqual({ drawCalls: prims.length, instances: 1, vertices, triangles, joints });
        // The encode was timed, in milliseconds: it fits inside the render call around it.
        expect(stats.encodeMs).toBeGreaterThan(0);
        expect(stats.encodeMs).toBeLessThanOrEqual(renderMs);
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
