/**
 * A real WebGPU device (Dawn on SwiftShader, src/gpu/device/node-device.ts) for the tests of
 * one file. In CI (CI=true) a missing WebGPU fails every test of the file loudly;
 * elsewhere each test that asks for the device is skipped, the reason in its note.
 *
 *   const gpu = useTestDevice('gpu-bake tests');
 *   it('…', async (ctx) => { const device = gpu.device(ctx); … });
 *
 * Any WebGPU error a test causes fails it: error scopes around every test, plus
 * uncaptured errors and device loss (test/support/gpu-errors.ts).
 *
 * In a test project that shares one (`provide: { shareGpuDevice: true }` in vite.config.ts,
 * with files run without isolation), all files of a worker use one device, made by the
 * first: the pipelines and per-device caches the renderer builds (WGSL compiled on
 * SwiftShader, about a second of CPU per set) are built once per worker, not once per
 * file. Elsewhere each file has its own, destroyed after its tests, whose `lost` promise
 * must settle (reason "destroyed") so no Dawn work keeps the worker alive. Either way, Dawn's
 * busy polling for finished work is paced (test/support/dawn-polling.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, inject, type TestContext } from 'vitest';
import { createNodeDevice, WebGpuUnavailableError } from '../../src/gpu/device/node-device.ts';
import { paceDawnPolling } from './dawn-polling.ts';
import { GpuErrorWatch } from './gpu-errors.ts';

export const IN_CI = process.env.CI === 'true';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Files of the project share their worker's device (see above). */
    shareGpuDevice?: boolean;
  }
}

/** The worker's device, where the project shares one. */
let workerDevice: Promise<GPUDevice> | undefined;
/** The error watch of the file now using the worker's device: its uncaptured errors and loss go there. */
let workerWatch: GpuErrorWatch | undefined;

/** A device for one test file, its uncaptured errors and loss reported to `watch`: the worker's, or its own. */
export async function acquireTestDevice(label: string, watch: GpuErrorWatch): Promise<GPUDevice> {
  paceDawnPolling();
  if (!inject('shareGpuDevice')) return createNodeDevice({ label, onUncapturedError: watch.onUncapturedError, onLost: watch.onLost });
  workerWatch = watch;
  workerDevice ??= createNodeDevice({
    label: 'shared test device',
    onUncapturedError: (error) => workerWatch?.onUncapturedError(error),
    onLost: (info) => workerWatch?.onLost(info),
  });
  try {
    return await workerDevice;
  } catch (e) {
    workerDevice = undefined;
    throw e;
  }
}

/** After a file's tests: destroys the file's own device and waits for it to be lost as destroyed; leaves the worker's. */
export async function releaseTestDevice(device: GPUDevice): Promise<void> {
  if (inject('shareGpuDevice')) return;
  device.destroy();
  const info = await device.lost;
  if (info.reason !== 'destroyed') throw new Error(`device lost for another reason than destroy(): ${info.message}`);
}

export interface TestDevice {
  /** The device, or skips the calling test (outside CI) when WebGPU is unavailable. */
  device(ctx: TestContext): GPUDevice;
  /** Why WebGPU is unavailable; undefined once a device exists. */
  readonly unavailable: string | undefined;
}

/** Registers beforeAll/afterEach/afterAll hooks in the calling file or describe block. */
export function useTestDevice(label: string): TestDevice {
  let device: GPUDevice | undefined;
  let unavailable: string | undefined;
  const watch = new GpuErrorWatch();

  beforeAll(async () => {
    try {
      device = await acquireTestDevice(label, watch);
    } catch (e) {
      const message = (e as Error).message;
      if (IN_CI) throw new Error(`CI=true and WebGPU is unavailable, so the GPU tests cannot run: ${message}`);
      if (!(e instanceof WebGpuUnavailableError)) throw e;
      unavailable = message;
    }
  });

  beforeEach(() => {
    if (device) watch.begin(device);
  });

  afterEach(() => watch.check());

  afterAll(async () => {
    if (device) await releaseTestDevice(device);
  });

  return {
    device(ctx: TestContext): GPUDevice {
      if (!device) ctx.skip(unavailable ?? 'WebGPU unavailable');
      return device!;
    },
    get unavailable() {
      return unavailable;
    },
  };
}

/**
 * Runs `fn` on a device of its own, for a test of what happens per device (a cache made on
 * first use and freed after its last user): on a device shared with other files, their
 * objects may be users too. Any WebGPU error `fn` causes fails it; the device is destroyed after.
 */
export async function onOwnDevice<T>(label: string, fn: (device: GPUDevice) => Promise<T>): Promise<T> {
  const watch = new GpuErrorWatch();
  paceDawnPolling();
  const device = await createNodeDevice({ label, onUncapturedError: watch.onUncapturedError, onLost: watch.onLost });
  try {
    watch.begin(device);
    const result = await fn(device);
    await watch.check();
    return result;
  } finally {
    device.destroy();
  }
}
