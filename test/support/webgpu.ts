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
 * The device is destroyed after the file's tests, and its `lost` promise must settle
 * (reason "destroyed"), so no Dawn work keeps the worker alive.
 */
import { afterAll, afterEach, beforeAll, beforeEach, type TestContext } from 'vitest';
import { createNodeDevice, WebGpuUnavailableError } from '../../src/gpu/device/node-device.ts';
import { GpuErrorWatch } from './gpu-errors.ts';

export const IN_CI = process.env.CI === 'true';

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
      device = await createNodeDevice({ label, onUncapturedError: watch.onUncapturedError, onLost: watch.onLost });
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
    if (!device) return;
    device.destroy();
    const info = await device.lost;
    if (info.reason !== 'destroyed') throw new Error(`device lost for another reason than destroy(): ${info.message}`);
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
