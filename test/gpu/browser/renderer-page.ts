/**
 * Test page for test/gpu/browser-render.test.ts: the renderer's browser path — device
 * from navigator.gpu, a configured canvas sized by the ResizeObserver helper, images
 * decoded by createImageBitmap — driven by the test through `window.rendererCheck`.
 */
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { configureCanvas, observeCanvasSize, requestWebGpuDevice } from '../../../src/gpu/device/device.ts';
import { createOffscreenTarget, readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { MipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { Renderer } from '../../../src/gpu/renderer.ts';
import { fromBase64 } from './base64.ts';
import { createImageTexture, fitImage } from '../../../src/gpu/textures/textures.ts';

export interface RendererCheckResult {
  readonly canvasSize: [number, number];
  readonly viewFormat: string;
  /** RGBA8 of an offscreen render with the same camera, base64. */
  readonly pixels: string;
  readonly errors: string[];
}

export interface FitImageCheckResult {
  /** Fitted width and height, then the texture's. */
  readonly size: number[];
  readonly left: number[];
  readonly right: number[];
  /** Whether fitImage returned the bitmap it was given. */
  readonly same: boolean;
}

declare global {
  interface Window {
    /** A 300×100 bitmap, left half red, right half blue, fitted to `maxDimension` and uploaded; texels read back. */
    fitImageCheck(maxDimension: number): Promise<FitImageCheckResult>;
    rendererCheck(glbBase64: string, clip: number, time: number, yaw: number, pitch: number, size: number, srgbView?: boolean): Promise<RendererCheckResult>;
  }
}

/** Every uncaptured error of the page's device, in order; a check returns those its own work raised. */
const deviceErrors: string[] = [];
let pageDevice: Promise<GPUDevice> | undefined;
/** Resolves once the ResizeObserver helper has sized the page's canvas. */
let canvasSized: Promise<void> | undefined;

/**
 * The page's one device, as a page keeps one: its checks share it, so the renderer's
 * pipelines are compiled once per page (each new device compiles them again on SwiftShader).
 */
function sharedDevice(): Promise<GPUDevice> {
  pageDevice ??= requestWebGpuDevice({ label: 'browser test device' }).then((device) => {
    device.addEventListener('uncapturederror', (e) => deviceErrors.push((e as GPUUncapturedErrorEvent).error.message));
    return device;
  });
  return pageDevice;
}

window.rendererCheck = async (glbBase64, clip, time, yaw, pitch, size, srgbView = false) => {
  const device = await sharedDevice();
  const firstError = deviceErrors.length;
  const canvas = document.getElementById('view') as HTMLCanvasElement;
  // Observed once: the helper calls back when the size changes, and after the first check it does not.
  canvasSized ??= new Promise<void>((resolve) => observeCanvasSize(canvas, device, () => resolve()));
  const resized = canvasSized;
  const { context, viewFormat } = configureCanvas(canvas, device, { srgbView });
  await resized;

  const model = await loadGltf(fromBase64(glbBase64), { name: 'browser model' });
  const renderer = new Renderer(device, { format: viewFormat, label: 'browser renderer' });
  renderer.settings.clearColor.set([0, 0, 0, 0]);
  await renderer.setModel(model);
  const instance = createModelInstance(model);
  const camera = new OrbitCamera();
  camera.yaw = yaw;
  camera.pitch = pitch;
  camera.frame(computeInstanceBounds(instance), 1);
  updateModelInstance(instance, clip, time);

  // What the user sees: a few frames on the canvas.
  for (let f = 0; f < 3; f++) {
    await new Promise(requestAnimationFrame);
    renderer.render(context.getCurrentTexture(), camera, instance);
  }
  // The same frame offscreen, read back for comparison with the Node render.
  const target = createOffscreenTarget(device, size, size, viewFormat, 'browser offscreen');
  renderer.render(target, camera, instance);
  const pixels = await readTexturePixels(device, target);
  await device.queue.onSubmittedWorkDone();
  target.destroy();
  renderer.destroy();
  return { canvasSize: [canvas.width, canvas.height], viewFormat, pixels: toBase64(pixels), errors: deviceErrors.slice(firstError) };
};

window.fitImageCheck = async (maxDimension) => {
  const device = await sharedDevice();
  const canvas = new OffscreenCanvas(300, 100);
  const g = canvas.getContext('2d')!;
  g.fillStyle = '#ff0000';
  g.fillRect(0, 0, 150, 100);
  g.fillStyle = '#0000ff';
  g.fillRect(150, 0, 150, 100);
  const bitmap = await createImageBitmap(canvas);
  const fitted = await fitImage({ width: 300, height: 100, source: bitmap }, maxDimension, true);
  const texture = createImageTexture(device, new MipmapGenerator(device), fitted, true, 'fitted image');
  const pixels = await readTexturePixels(device, texture);
  const at = (x: number, y: number) => Array.from(pixels.subarray((y * texture.width + x) * 4, (y * texture.width + x) * 4 + 4));
  const result = {
    size: [fitted.width, fitted.height, texture.width, texture.height],
    left: at(2, Math.floor(texture.height / 2)), right: at(texture.width - 3, Math.floor(texture.height / 2)), same: 'source' in fitted && fitted.source === bitmap,
  };
  texture.destroy();
  return result;
};
