/**
 * Getting a WebGPU device and a canvas to draw into, in the browser. Node code gets its
 * device from node-device.ts instead; everything else in src/gpu works with either.
 */

/** WebGPU cannot be used here; the message says why and what the user can do. */
export class WebGpuUnsupportedError extends Error {
  override readonly name = 'WebGpuUnsupportedError';
}

/** Options of `requestWebGpuDevice`. */
export interface RequestDeviceOptions {
  readonly label?: string;
  readonly powerPreference?: GPUPowerPreference;
  /** The GPU entry point; default `navigator.gpu`. */
  readonly gpu?: GPU;
  /**
   * Ask for 'timestamp-query' when the adapter has it (GPU frame times in
   * `Renderer.stats.gpuMs`); default true. Never required: without it the device is the same.
   */
  readonly timestampQuery?: boolean;
}

/** Compressed texture formats KHR_texture_basisu transcodes to, in WebGPU's names. */
export const TEXTURE_COMPRESSION_FEATURES: readonly GPUFeatureName[] = ['texture-compression-bc', 'texture-compression-etc2', 'texture-compression-astc'];

/** Optional features worth having when the adapter offers them. */
export function optionalFeatures(adapter: GPUAdapter, options: { readonly timestampQuery?: boolean }): GPUFeatureName[] {
  const features: GPUFeatureName[] = [];
  if (options.timestampQuery !== false && adapter.features?.has('timestamp-query')) features.push('timestamp-query');
  // KTX2 textures transcode to these when present (ktx2-transcode.ts), else to RGBA8.
  for (const f of TEXTURE_COMPRESSION_FEATURES) if (adapter.features?.has(f)) features.push(f);
  // GPU culling's compacted indirect draws (draw/culling-pass.ts); without it crowds are culled on the CPU.
  if (adapter.features?.has('indirect-first-instance')) features.push('indirect-first-instance');
  return features;
}

/**
 * Sampled textures per shader stage worth asking for: a material with every PBR extension texture
 * (model/pbr-extensions-material.ts) samples 14 beside its own 5 and the frame's 4. WebGPU guarantees 16;
 * most adapters offer more, and a device gets what it asks for up to what the adapter has.
 */
export const WANTED_SAMPLED_TEXTURES = 32;

/** Limits worth raising when the adapter allows (never above what it has). */
export function optionalLimits(adapter: GPUAdapter): Record<string, number> {
  const have = adapter.limits?.maxSampledTexturesPerShaderStage ?? 16;
  return { maxSampledTexturesPerShaderStage: Math.min(have, WANTED_SAMPLED_TEXTURES) };
}

function navigatorGpu(): GPU | undefined {
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  return nav?.gpu;
}

/**
 * Requests an adapter and a device. Throws WebGpuUnsupportedError with a specific reason
 * when `navigator.gpu` is missing (old browser, or an insecure context) or when the
 * browser returns no adapter (GPU blocklisted, hardware acceleration off).
 */
export async function requestWebGpuDevice(options: RequestDeviceOptions = {}): Promise<GPUDevice> {
  const gpu = options.gpu ?? navigatorGpu();
  if (!gpu) {
    const secure = (globalThis as { isSecureContext?: boolean }).isSecureContext;
    if (secure === false) {
      throw new WebGpuUnsupportedError('WebGPU is only available on secure pages: open this page over https:// or from localhost');
    }
    throw new WebGpuUnsupportedError('This browser does not support WebGPU (navigator.gpu is undefined): use a current Chrome, Edge or Safari, or Firefox with WebGPU enabled');
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference });
  } catch (e) {
    throw new WebGpuUnsupportedError(`WebGPU: requesting a GPU adapter failed: ${(e as Error).message}`);
  }
  if (!adapter) {
    throw new WebGpuUnsupportedError('WebGPU is supported but no GPU adapter is available: the GPU may be blocklisted or hardware acceleration turned off in the browser settings');
  }
  try {
    return await adapter.requestDevice({ label: options.label ?? 'skinned-mesh renderer', requiredFeatures: optionalFeatures(adapter, options), requiredLimits: optionalLimits(adapter) });
  } catch (e) {
    throw new WebGpuUnsupportedError(`WebGPU: the GPU adapter refused to create a device: ${(e as Error).message}`);
  }
}

/** What `configureCanvas` returns: the context and the formats to render with. */
export interface ConfiguredCanvas {
  readonly context: GPUCanvasContext;
  /** What `getCurrentTexture()` returns (the browser's preferred format). */
  readonly canvasFormat: GPUTextureFormat;
  /** The format to render with (the Renderer's `format`): `canvasFormat`, or its sRGB view when asked for. */
  readonly viewFormat: GPUTextureFormat;
}

/** Options of `configureCanvas`. */
export interface ConfigureCanvasOptions {
  /**
   * Render through the canvas texture's `-srgb` view (hardware sRGB encoding, MSAA resolve
   * and blending in linear light). Off by default: Chromium on Vulkan/SwiftShader composites
   * such canvases as if decoded twice (mid-tones far too dark; test/gpu/browser-render.test.ts
   * shows it), so by default the shader encodes sRGB into the plain format, as three.js does.
   */
  readonly srgbView?: boolean;
  /** The GPU entry point; default `navigator.gpu`. */
  readonly gpu?: GPU;
}

/** The `-srgb` sibling of an 8-bit RGBA/BGRA format (itself if it already is one). */
export function srgbViewFormat(format: GPUTextureFormat): GPUTextureFormat {
  if (format === 'bgra8unorm') return 'bgra8unorm-srgb';
  if (format === 'rgba8unorm') return 'rgba8unorm-srgb';
  return format;
}

/**
 * Configures a canvas for `device` in the browser's preferred format with premultiplied
 * alpha (the page shows through where nothing is drawn).
 */
export function configureCanvas(
  canvas: HTMLCanvasElement | OffscreenCanvas, device: GPUDevice, options: ConfigureCanvasOptions = {},
): ConfiguredCanvas {
  const context = canvas.getContext('webgpu') as GPUCanvasContext | null;
  if (!context) throw new WebGpuUnsupportedError('This canvas cannot provide a "webgpu" context (it may already have a 2d or webgl context)');
  const gpu = options.gpu ?? navigatorGpu();
  const canvasFormat = gpu ? gpu.getPreferredCanvasFormat() : 'bgra8unorm';
  const viewFormat = options.srgbView ? srgbViewFormat(canvasFormat) : canvasFormat;
  context.configure({
    device,
    format: canvasFormat,
    alphaMode: 'premultiplied',
    viewFormats: viewFormat === canvasFormat ? [] : [viewFormat],
  });
  return { context, canvasFormat, viewFormat };
}

/** Width and height in device pixels. */
export interface PixelSize {
  width: number;
  height: number;
}

/**
 * The canvas's size in device pixels from a ResizeObserver entry: the exact
 * `devicePixelContentBoxSize` where the browser reports it, else the CSS content box ×
 * devicePixelRatio (rounded), each clamped to 1…maxDimension. Writes into `out`.
 */
export function canvasPixelSize(
  entry: Pick<ResizeObserverEntry, 'contentBoxSize' | 'devicePixelContentBoxSize' | 'contentRect'>,
  devicePixelRatio: number, maxDimension: number, out: PixelSize = { width: 1, height: 1 },
): PixelSize {
  let width: number, height: number;
  const device = entry.devicePixelContentBoxSize?.[0];
  if (device) {
    width = device.inlineSize;
    height = device.blockSize;
  } else {
    const box = entry.contentBoxSize?.[0];
    const cssWidth = box ? box.inlineSize : entry.contentRect.width;
    const cssHeight = box ? box.blockSize : entry.contentRect.height;
    width = Math.round(cssWidth * devicePixelRatio);
    height = Math.round(cssHeight * devicePixelRatio);
  }
  out.width = Math.max(1, Math.min(maxDimension, width));
  out.height = Math.max(1, Math.min(maxDimension, height));
  return out;
}

/**
 * Keeps `canvas.width/height` equal to its displayed size in device pixels. Observes
 * 'device-pixel-content-box' where supported (exact, follows zoom), else 'content-box'.
 * `onResize` runs after the canvas was resized. Returns a function that stops observing.
 */
export function observeCanvasSize(
  canvas: HTMLCanvasElement, device: GPUDevice, onResize: (width: number, height: number) => void = () => {},
): () => void {
  const size: PixelSize = { width: 1, height: 1 };
  const maxDimension = device.limits.maxTextureDimension2D;
  const observer = new ResizeObserver((entries) => {
    const entry = entries[entries.length - 1];
    canvasPixelSize(entry, globalThis.devicePixelRatio || 1, maxDimension, size);
    if (canvas.width !== size.width || canvas.height !== size.height) {
      canvas.width = size.width;
      canvas.height = size.height;
      onResize(size.width, size.height);
    }
  });
  try {
    observer.observe(canvas, { box: 'device-pixel-content-box' });
  } catch {
    observer.observe(canvas, { box: 'content-box' });
  }
  return () => observer.disconnect();
}
