/**
 * createCanvasRenderer: the device (requested through the GPU entry point given, or the one passed), the canvas configured
 * for it, and a Renderer whose format is the canvas's view format, so a frame drawn into `context.getCurrentTexture()`
 * validates and shows the model. The canvas is a stand-in (Node has none) whose context hands out a Dawn texture as
 * a browser's hands out the canvas's.
 */
import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { WebGpuUnsupportedError } from '../../src/gpu/device/device.ts';
import { readTexturePixels } from '../../src/gpu/device/readback.ts';
import { createCanvasRenderer } from '../../src/gpu/canvas-renderer.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { buildChain } from '../support/fixtures.ts';
import { coverage, expectNoGpuErrors, loadModel, testDevice } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 32;

/** A canvas whose 'webgpu' context records its configuration and hands out a texture of the configured format, as a browser's does. */
function fakeCanvas(gpu: GPUDevice) {
  const configurations: GPUCanvasConfiguration[] = [];
  let texture: GPUTexture | undefined;
  const context = {
    configure: (c: GPUCanvasConfiguration) => configurations.push(c),
    getCurrentTexture: () => {
      const c = configurations[configurations.length - 1];
      texture ??= gpu.createTexture({
        label: 'stand-in canvas texture', size: [SIZE, SIZE], format: c.format, viewFormats: c.viewFormats,
        usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
      });
      return texture;
    },
  };
  const canvas = { width: SIZE, height: SIZE, getContext: (kind: string) => (kind === 'webgpu' ? context : null) } as unknown as HTMLCanvasElement;
  return { canvas, configurations };
}

/** A GPU entry point whose adapter hands out `gpu` (recording what was asked), preferring rgba8unorm for canvases. */
function fakeGpu(gpu: GPUDevice, asked: GPUDeviceDescriptor[]): GPU {
  const adapter = {
    features: new Set(['timestamp-query']),
    limits: gpu.limits,
    requestDevice: async (d: GPUDeviceDescriptor) => { asked.push(d); return gpu; },
  };
  return { requestAdapter: async () => adapter, getPreferredCanvasFormat: () => 'rgba8unorm' } as unknown as GPU;
}

describe.skipIf(!device)('createCanvasRenderer (Dawn on SwiftShader, a stand-in canvas)', () => {
  const gpu = device!;

  /** Draws the chain fixture at rest into the canvas's current texture and reads it back. */
  async function drawChain(canvas: HTMLCanvasElement, made: Awaited<ReturnType<typeof createCanvasRenderer>>) {
    const model = await loadModel(buildChain(), 'chain');
    await made.renderer.setModel(model);
    const instance = createModelInstance(model);
    const camera = new OrbitCamera().frame(computeInstanceBounds(instance), canvas.width / canvas.height);
    made.renderer.settings.clearColor.set([0, 0, 0, 0]);
    const target = made.context.getCurrentTexture();
    made.renderer.render(target, camera, instance);
    const rgba = await readTexturePixels(gpu, target);
    return { width: SIZE, height: SIZE, rgba };
  }

  it('requests the device through the GPU entry point, configures the canvas for it and renders in its format', async () => {
    const asked: GPUDeviceDescriptor[] = [];
    const { canvas, configurations } = fakeCanvas(gpu);
    const made = await expectNoGpuErrors(gpu, () => createCanvasRenderer(canvas, { gpu: fakeGpu(gpu, asked), label: 'page' }));
    expect(made.device).toBe(gpu);
    expect(asked.map((d) => d.label)).toEqual(['page device']);
    expect(asked[0].requiredFeatures).toContain('timestamp-query');
    expect(configurations).toEqual([{ device: gpu, format: 'rgba8unorm', alphaMode: 'premultiplied', viewFormats: [] }]);
    expect([made.canvasFormat, made.viewFormat, made.renderer.format]).toEqual(['rgba8unorm', 'rgba8unorm', 'rgba8unorm']);
    const frame = await expectNoGpuErrors(gpu, () => drawChain(canvas, made));
    expect(coverage(frame)).toBeGreaterThan(0.05);
    made.renderer.destroy();
  });

  it('uses the device given (requesting none), an sRGB view when asked, and passes the Renderer its options', async () => {
    const asked: GPUDeviceDescriptor[] = [];
    const { canvas, configurations } = fakeCanvas(gpu);
    const made = await expectNoGpuErrors(gpu, () => createCanvasRenderer(canvas, { device: gpu, gpu: fakeGpu(gpu, asked), srgbView: true, gpuTiming: false }));
    expect(asked).toEqual([]);
    expect(made.device).toBe(gpu);
    expect(configurations[0].viewFormats).toEqual(['rgba8unorm-srgb']);
    expect(made.renderer.format).toBe('rgba8unorm-srgb');
    expect(made.renderer.gpuTiming).toBe(false);
    const frame = await expectNoGpuErrors(gpu, () => drawChain(canvas, made));
    expect(coverage(frame)).toBeGreaterThan(0.05);
    made.renderer.destroy();
  });

  it('asks for no timestamp queries when the renderer will not time its frames', async () => {
    const asked: GPUDeviceDescriptor[] = [];
    const made = await createCanvasRenderer(fakeCanvas(gpu).canvas, { gpu: fakeGpu(gpu, asked), gpuTiming: false });
    expect(asked[0].requiredFeatures).not.toContain('timestamp-query');
    made.renderer.destroy();
  });

  it('says why when the canvas has no WebGPU context, or the browser no WebGPU', async () => {
    const taken = { getContext: () => null } as unknown as HTMLCanvasElement;
    await expect(createCanvasRenderer(taken, { device: gpu })).rejects.toThrow(WebGpuUnsupportedError);
    await expect(createCanvasRenderer(taken, { device: gpu })).rejects.toThrow(/cannot provide a "webgpu" context/);
    // Node has no navigator.gpu: the default device request says so.
    await expect(createCanvasRenderer(fakeCanvas(gpu).canvas)).rejects.toThrow(/navigator\.gpu is undefined/);
  });
});
