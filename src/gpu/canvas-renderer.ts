/**
 * A Renderer for one canvas in one call, as three.js's `new WebGPURenderer({ canvas })` and
 * Babylon's `new WebGPUEngine(canvas)` give one: the device (requested, or one the page shares),
 * the canvas configured for it, and a Renderer in the canvas's format. The three steps stay
 * public (requestWebGpuDevice, configureCanvas, new Renderer) for a page that needs one alone.
 */
import { configureCanvas, requestWebGpuDevice, type ConfigureCanvasOptions, type ConfiguredCanvas } from './device/device.ts';
import type { RendererOptions } from './frame/render-settings.ts';
import { Renderer } from './renderer.ts';

/** Options of `createCanvasRenderer`: the Renderer's (its `format` is the canvas's), the canvas's, and the device. */
export interface CanvasRendererOptions extends Omit<RendererOptions, 'format'>, ConfigureCanvasOptions {
  /**
   * The device to draw with: one several canvases share, or one requested with options of your own.
   * Default: a new one from `requestWebGpuDevice` (which throws WebGpuUnsupportedError, saying why, without WebGPU).
   */
  readonly device?: GPUDevice;
}

/** What `createCanvasRenderer` returns: the configured canvas (`context.getCurrentTexture()` is the frame's target), its device and Renderer. */
export interface CanvasRenderer extends ConfiguredCanvas {
  readonly device: GPUDevice;
  readonly renderer: Renderer;
}

/**
 * Requests a device (unless `options.device` is given), configures `canvas` for it
 * (configureCanvas) and makes a Renderer in the format it renders with (`viewFormat`).
 * Each frame: `renderer.render(context.getCurrentTexture(), camera, instance)`.
 */
export async function createCanvasRenderer(
  canvas: HTMLCanvasElement | OffscreenCanvas, options: CanvasRendererOptions = {},
): Promise<CanvasRenderer> {
  const { device: given, srgbView, gpu, ...rendererOptions } = options;
  const label = options.label === undefined ? undefined : `${options.label} device`;
  // A renderer that will not time its frames does not need the timestamp queries on its device either.
  const device = given ?? await requestWebGpuDevice({ gpu, label, timestampQuery: options.gpuTiming });
  const configured = configureCanvas(canvas, device, { srgbView, gpu });
  const renderer = new Renderer(device, { ...rendererOptions, format: configured.viewFormat });
  return { ...configured, device, renderer };
}
