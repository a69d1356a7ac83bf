/**
 * Test page for test/gpu/compressed-assets-render.test.ts: one device and one Renderer draw
 * model after model offscreen (each shared asset, then its compressed variants), so a
 * hundred-odd loads cost one adapter and one pipeline cache. Each variant is drawn with its
 * original's camera, so the frames can be compared pixel for pixel.
 */
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { requestWebGpuDevice } from '../../../src/gpu/device/device.ts';
import { createOffscreenTarget, readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { Renderer } from '../../../src/gpu/renderer.ts';
import { fromBase64 } from './base64.ts';

export interface CompressedRenderResult {
  /** RGBA8 of the frame, base64. */
  readonly pixels: string;
  /** WebGPU errors: caught by error scopes around the upload and draw, or uncaptured. */
  readonly errors: string[];
  /** The model's load warnings, `path: message`. */
  readonly warnings: string[];
}

declare global {
  interface Window {
    /**
     * Loads `glbBase64` and draws its first clip at `phase` (0…1) of its duration (the rest
     * pose when it has none) at `size`×`size`.
     * `frameAs` names the camera: the first model drawn under a name frames it (yaw 0.6,
     * pitch 0.15, its own posed bounds); later ones reuse it.
     */
    renderCompressed(glbBase64: string, frameAs: string, phase: number, size: number): Promise<CompressedRenderResult>;
  }
}

const SCOPES: GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];
let state: { device: GPUDevice; renderer: Renderer; uncaptured: string[]; targets: Map<number, GPUTexture> } | undefined;
const cameras = new Map<string, OrbitCamera>();

window.renderCompressed = async (glbBase64, frameAs, phase, size) => {
  if (!state) {
    const device = await requestWebGpuDevice({ label: 'compressed variants device' });
    const uncaptured: string[] = [];
    device.addEventListener('uncapturederror', (e) => uncaptured.push((e as GPUUncapturedErrorEvent).error.message));
    const renderer = new Renderer(device, { format: 'rgba8unorm-srgb', label: 'compressed variants renderer' });
    renderer.settings.clearColor.set([0, 0, 0, 0]);
    state = { device, renderer, uncaptured, targets: new Map() };
  }
  const { device, renderer, uncaptured } = state;
  let target = state.targets.get(size);
  if (!target) {
    target = createOffscreenTarget(device, size, size, 'rgba8unorm-srgb', `compressed variants ${size}² target`);
    state.targets.set(size, target);
  }
  const model = await loadGltf(fromBase64(glbBase64), { name: frameAs });
  for (const s of SCOPES) device.pushErrorScope(s);
  await renderer.setModel(model);
  const instance = createModelInstance(model);
  const clip = model.animations.length > 0 ? 0 : -1;
  updateModelInstance(instance, clip, clip < 0 ? 0 : phase * model.animations[0].duration);
  let camera = cameras.get(frameAs);
  if (!camera) {
    camera = new OrbitCamera();
    camera.yaw = 0.6;
    camera.pitch = 0.15;
    camera.frame(computeInstanceBounds(instance), 1);
    cameras.set(frameAs, camera);
  }
  renderer.render(target, camera, instance);
  const pixels = await readTexturePixels(device, target);
  const errors: string[] = [];
  for (let i = SCOPES.length - 1; i >= 0; i--) {
    const error = await device.popErrorScope();
    if (error) errors.push(`${SCOPES[i]}: ${error.message}`);
  }
  errors.push(...uncaptured.splice(0));
  return { pixels: toBase64(pixels), errors, warnings: model.warnings.map((w) => `${w.path}: ${w.message}`) };
};
