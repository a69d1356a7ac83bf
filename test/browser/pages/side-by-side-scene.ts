/**
 * Our half of the browser side-by-side pages (mtoon-page.ts against three-vrm, pbr-three-page.ts
 * against three.js's WebGPURenderer): a glTF/VRM file drawn by our Renderer (WebGPU, offscreen,
 * read back) from a camera at `eye` looking at `target`, under a directional key light and a
 * hemisphere, with no tone mapping into an sRGB target. The image comes back as RGBA8, straight
 * alpha, top row first, base64, with the load's warnings and the draw's warnings and WebGPU errors.
 */
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { requestWebGpuDevice } from '../../../src/gpu/device/device.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { createOffscreenTarget, readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { Renderer } from '../../../src/gpu/renderer.ts';
import { fromBase64 } from '../../gpu/browser/base64.ts';

export interface SideBySideScene {
  /** The file, base64. */
  readonly glb: string;
  readonly width: number;
  readonly height: number;
  readonly eye: readonly [number, number, number];
  readonly target: readonly [number, number, number];
  /** Vertical field of view, radians. */
  readonly fovY: number;
  readonly near: number;
  readonly far: number;
  /** Towards the key light, world space. */
  readonly lightDirection: readonly [number, number, number];
  /** Linear RGB × intensity. */
  readonly lightColor: readonly [number, number, number];
  readonly skyColor: readonly [number, number, number];
  readonly groundColor: readonly [number, number, number];
  readonly outlineWidth?: number;
  /** Seconds of wall time the player runs before the frame (UV animation). */
  readonly time?: number;
  /** Frames drawn before the one read back (the transmission pass's pipelines build on the first). */
  readonly warmFrames?: number;
}

export interface SideBySideImage {
  readonly rgba: string;
  /** The Renderer's warnings and the device's WebGPU errors. */
  readonly errors: string[];
  /** The loader's warnings (`path: message`). */
  readonly warnings: string[];
}

let device: GPUDevice | undefined;
const errors: string[] = [];

/** Draws `s` with our Renderer. */
export async function drawOurs(s: SideBySideScene): Promise<SideBySideImage> {
  if (!device) {
    device = await requestWebGpuDevice({ label: 'side-by-side test device' });
    device.addEventListener('uncapturederror', (e) => errors.push((e as GPUUncapturedErrorEvent).error.message));
  }
  const model = await loadGltf(fromBase64(s.glb), { name: 'side-by-side test model' });
  const renderer = new Renderer(device, { format: 'rgba8unorm-srgb', label: 'side-by-side test renderer', onWarning: (w) => errors.push(`warning ${w.path}: ${w.message}`) });
  const settings = renderer.settings;
  settings.clearColor.set([0, 0, 0, 0]);
  settings.toneMapping = ToneMapping.NONE;
  settings.exposure = 1;
  settings.lightSpace = 'world';
  settings.lightDirection.set(s.lightDirection);
  settings.lightColor.set(s.lightColor);
  settings.lightIntensity = 1;
  settings.skyColor.set(s.skyColor);
  settings.groundColor.set(s.groundColor);
  settings.outlineWidth = s.outlineWidth ?? 1;
  await renderer.setModel(model);
  const player = new AnimationPlayer(model);
  if (s.time) player.update(s.time);
  const camera = new OrbitCamera();
  const rel = [0, 1, 2].map((c) => s.eye[c] - s.target[c]);
  camera.distance = Math.hypot(rel[0], rel[1], rel[2]);
  camera.pitch = Math.asin(rel[1] / camera.distance);
  camera.yaw = Math.atan2(rel[0], rel[2]);
  camera.target.set(s.target);
  camera.fovY = s.fovY;
  camera.near = s.near;
  camera.far = s.far;
  const target = createOffscreenTarget(device, s.width, s.height, 'rgba8unorm-srgb', 'side-by-side test target');
  for (let k = 0; k < (s.warmFrames ?? 0); k++) {
    renderer.render(target, camera, player.instance);
    await device.queue.onSubmittedWorkDone();
  }
  renderer.render(target, camera, player.instance);
  const rgba = await readTexturePixels(device, target);
  target.destroy();
  renderer.destroy();
  // Premultiplied → straight alpha, as three.js's readback gives.
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3];
    if (a > 0 && a < 255) for (let c = 0; c < 3; c++) rgba[i + c] = Math.min(255, Math.round((rgba[i + c] * 255) / a));
  }
  return { rgba: toBase64(rgba), errors: errors.splice(0), warnings: model.warnings.map((w) => `${w.path}: ${w.message}`) };
}

/** A canvas's pixels as RGBA8, straight alpha, top row first (read in the task that drew it). */
export function canvasRgba(canvas: HTMLCanvasElement): Uint8Array {
  const copy = document.createElement('canvas');
  copy.width = canvas.width;
  copy.height = canvas.height;
  const context = copy.getContext('2d')!;
  context.drawImage(canvas, 0, 0);
  return new Uint8Array(context.getImageData(0, 0, canvas.width, canvas.height).data.buffer);
}
