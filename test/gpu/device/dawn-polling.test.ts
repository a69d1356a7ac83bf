/**
 * Real dawn.node's polls for finished work are what test/support/dawn-polling.ts paces: while
 * a mapAsync and onSubmittedWorkDone are pending, Dawn passes setImmediate callbacks that
 * isDawnPoll recognises (a `webgpu` package that named them, or polled another way, fails here
 * instead of silently spinning the test worker again).
 */
import { expect, it } from 'vitest';
import { isDawnPoll } from '../../support/dawn-polling.ts';
import { testDevice } from '../gpu-test.ts';

const device = await testDevice();

it.skipIf(!device)("Dawn's polls while work is pending are recognised as Dawn's", async () => {
  const gpu = device!;
  const paced = globalThis.setImmediate;
  const seen: boolean[] = [];
  globalThis.setImmediate = Object.assign((callback: (...args: unknown[]) => void, ...args: unknown[]) => {
    seen.push(isDawnPoll(callback));
    return paced(callback, ...args);
  }, paced) as unknown as typeof setImmediate;
  try {
    const buffer = gpu.createBuffer({ label: 'dawn polling test', size: 16, usage: GPUBufferUsage.MAP_READ });
    const encoder = gpu.createCommandEncoder({ label: 'dawn polling test' });
    gpu.queue.submit([encoder.finish()]);
    await Promise.all([gpu.queue.onSubmittedWorkDone(), buffer.mapAsync(GPUMapMode.READ)]);
    expect(new Uint8Array(buffer.getMappedRange())).toEqual(new Uint8Array(16));
    buffer.destroy();
  } finally {
    globalThis.setImmediate = paced;
  }
  expect(seen.filter(Boolean).length, `setImmediate callbacks recognised: ${seen}`).toBeGreaterThan(0);
});
