/**
 * A real WebGPU device (Dawn on SwiftShader, src/gpu/node-device.ts) for the tests of
 * one file. In CI (CI=true) a missing WebGPU fails every test of the file loudly;
 * elsewhere each test that asks for the device is skipped, the reason in its note.
 *
 *   const gpu = useTestDevice('gpu-bake tests');
 *   it('…', async (ctx) => { const device = gpu.device(ctx); … });
 *
 * Uncaptured WebGPU errors and device loss fail the test during which they arrive.
 * The device is destroyed after the file's tests, and its `lost` promise must settle
 * (reason "destroyed"), so no Dawn work keeps the worker alive.
 */
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest';
import { createNodeDevice, WebGpuUnavailableError } from '../../src/gpu/node-device.ts';

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
  const problems: string[] = [];

  beforeAll(async () => {
    try {
      device = await createNodeDevice({
        label,
        onUncapturedError: (error) => problems.push(`uncaptured WebGPU error: ${error.message}`),
        onLost: (info) => problems.push(`device lost (${info.reason}): ${info.message}`),
      });
    } catch (e) {
      const message = (e as Error).message;
      if (IN_CI) throw new Error(`CI=true and WebGPU is unavailable, so the GPU tests cannot run: ${message}`);
      if (!(e instanceof WebGpuUnavailableError)) throw e;
      unavailable = message;
    }
  });

  afterEach(() => {
    if (problems.length > 0) throw new Error(problems.splice(0).join('\n'));
  });

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
