/**
 * The GPU test harness fails a test on any WebGPU error it causes (issue #7). This file
 * proves the nets of test/support/gpu-errors.ts catch a deliberate validation error, in
 * an error scope and uncaptured, and that the hooks the harness installs fail the test.
 */
import { describe, expect, it } from 'vitest';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { GpuErrorWatch } from '../support/gpu-errors.ts';
import { useTestDevice } from '../support/webgpu.ts';

/** MAP_READ may only be combined with COPY_DST: a validation error, and a harmless one. */
function invalidBuffer(device: GPUDevice): GPUBuffer {
  return device.createBuffer({ label: 'deliberately invalid', size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
}

describe('GpuErrorWatch', () => {
  const gpu = useTestDevice('error capture tests');

  it('a clean test reports nothing', async (ctx) => {
    const device = gpu.device(ctx);
    const watch = new GpuErrorWatch();
    watch.begin(device);
    device.createBuffer({ label: 'valid', size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }).destroy();
    expect(await watch.end()).toEqual([]);
  });

  it('catches a validation error inside its scopes, naming the object', async (ctx) => {
    const device = gpu.device(ctx);
    const watch = new GpuErrorWatch();
    watch.begin(device);
    invalidBuffer(device);
    const problems = await watch.end();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^WebGPU validation error: .*deliberately invalid/s);
    await expect((async () => { watch.begin(device); invalidBuffer(device); await watch.check(); })()).rejects.toThrow(/validation/);
  });

  it('catches an uncaptured validation error (no scope open) and device loss', async (ctx) => {
    gpu.device(ctx);
    const watch = new GpuErrorWatch();
    const device = await createNodeDevice({ label: 'error capture: uncaptured', onUncapturedError: watch.onUncapturedError, onLost: watch.onLost });
    try {
      invalidBuffer(device);
      // Uncaptured errors arrive as events, a moment later.
      for (let i = 0; i < 3; i++) {
        await device.queue.onSubmittedWorkDone();
        await new Promise((r) => setTimeout(r, 5));
      }
      const problems = await watch.end();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^uncaptured WebGPU validation error: .*deliberately invalid/s);
    } finally {
      device.destroy();
      // destroy() is not a loss the watch reports.
      await device.lost;
      expect(await watch.end()).toEqual([]);
    }
  });
});

describe('the harness hooks', () => {
  const gpu = useTestDevice('error capture: hooks');

  // `fails`: this test passes only if it fails, and the one thing wrong with it is the
  // validation error, which only the harness's afterEach can turn into a failure.
  it.fails('fail a test that causes a validation error and catches nothing itself', (ctx) => {
    invalidBuffer(gpu.device(ctx));
  });

  it('leave the next test clean', (ctx) => {
    gpu.device(ctx);
  });
});
