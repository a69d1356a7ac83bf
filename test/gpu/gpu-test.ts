/**
 * Shared set-up for the GPU tests: a Dawn device on SwiftShader, error scopes that turn
 * any WebGPU validation error into a test failure, and offscreen rendering with readback.
 *
 * Outside CI a machine without a WebGPU adapter skips the GPU tests (with a note on
 * stderr); in CI (CI=true) the missing adapter fails the run loudly.
 */
import { afterAll, afterEach, beforeEach } from 'vitest';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { backgroundBuildsStarted } from '../../src/gpu/device/background-build.ts';
import { WebGpuUnavailableError } from '../../src/gpu/device/node-device.ts';
import { createOffscreenTarget, readTexturePixels } from '../../src/gpu/device/readback.ts';
import type { RendererOptions } from '../../src/gpu/frame/render-settings.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { GpuErrorWatch } from '../support/gpu-errors.ts';
import { acquireTestDevice, IN_CI, releaseTestDevice } from '../support/webgpu.ts';
import { nodeImageDecoder } from '../support/png.ts';

export { IN_CI };

/**
 * The file's device; call once, at the top level of a test file. Registers hooks that
 * fail the running test on any WebGPU error it caused (error scopes around every test,
 * plus uncaptured errors and device loss: test/support/gpu-errors.ts) and destroy the
 * device after the file (unless the project shares one per worker: test/support/webgpu.ts).
 * Resolves to undefined (tests skip) when WebGPU is unavailable outside CI.
 */
export async function testDevice(label = 'gpu test device'): Promise<GPUDevice | undefined> {
  const watch = new GpuErrorWatch();
  let device: GPUDevice;
  try {
    device = await acquireTestDevice(label, watch);
  } catch (e) {
    if (IN_CI) throw new Error(`CI=true and WebGPU is unavailable, so the GPU tests cannot run: ${(e as Error).message}`);
    if (!(e instanceof WebGpuUnavailableError)) throw e;
    process.stderr.write(`skipping GPU tests: ${e.message}\n`);
    return undefined;
  }
  beforeEach(() => watch.begin(device));
  afterEach(() => watch.check());
  afterAll(() => releaseTestDevice(device));
  return device;
}

const SCOPES: GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];

/**
 * Runs `fn` inside validation, out-of-memory and internal error scopes and throws if any
 * caught an error, so every WebGPU mistake in a test fails that test.
 */
export async function expectNoGpuErrors<T>(device: GPUDevice, fn: () => Promise<T> | T): Promise<T> {
  for (const s of SCOPES) device.pushErrorScope(s);
  let result: T;
  try {
    result = await fn();
  } finally {
    const errors: string[] = [];
    for (let i = SCOPES.length - 1; i >= 0; i--) {
      const error = await device.popErrorScope();
      if (error) errors.push(`${SCOPES[i]}: ${error.message}`);
    }
    if (errors.length > 0) throw new Error(`WebGPU errors:\n${errors.join('\n')}`);
  }
  return result!;
}

export async function loadModel(bytes: Uint8Array, name: string): Promise<Model> {
  return loadGltf(bytes, { name });
}

/** An image read back from the GPU: RGBA8, straight alpha for opaque pixels, top row first. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8Array;
}

export function pixel(frame: Frame, x: number, y: number): [number, number, number, number] {
  const i = (Math.round(y) * frame.width + Math.round(x)) * 4;
  return [frame.rgba[i], frame.rgba[i + 1], frame.rgba[i + 2], frame.rgba[i + 3]];
}

/** Rec. 709 luma of the stored (display) values. */
export function luma(frame: Frame, x: number, y: number): number {
  const [r, g, b] = pixel(frame, x, y);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Fraction of pixels with alpha above 0 (the clear colour in these tests is transparent). */
export function coverage(frame: Frame): number {
  let n = 0;
  for (let i = 3; i < frame.rgba.length; i += 4) if (frame.rgba[i] > 0) n++;
  return n / (frame.width * frame.height);
}

/** Projects a world point with the camera's current matrices to pixel coordinates (x right, y down). */
export function projectToPixel(camera: OrbitCamera, width: number, height: number, p: readonly number[]): [number, number] {
  const v = camera.view, pr = camera.projection;
  const clip = [0, 0, 0, 0];
  const view = [0, 0, 0, 0];
  for (let r = 0; r < 4; r++) view[r] = v[r] * p[0] + v[4 + r] * p[1] + v[8 + r] * p[2] + v[12 + r];
  for (let r = 0; r < 4; r++) clip[r] = pr[r] * view[0] + pr[4 + r] * view[1] + pr[8 + r] * view[2] + pr[12 + r] * view[3];
  return [((clip[0] / clip[3]) * 0.5 + 0.5) * width, (0.5 - (clip[1] / clip[3]) * 0.5) * height];
}

/**
 * Runs `draw` (one frame of `renderer`'s), and when that frame started a background build (a
 * pipeline it drew without), waits for the builds and runs it again: the frame drawn with
 * everything it asks for, paying for a second one only when the first could be missing something.
 */
export async function drawSettled(renderer: Renderer, draw: () => void): Promise<void> {
  const started = backgroundBuildsStarted();
  draw();
  if (backgroundBuildsStarted() === started) return;
  await renderer.buildsSettled();
  draw();
}

/** A renderer, an offscreen target and a camera framing the model at rest: the usual test scene. */
export class OffscreenScene {
  readonly renderer: Renderer;
  readonly target: GPUTexture;
  readonly camera = new OrbitCamera();
  instance!: ModelInstance;

  constructor(
    readonly device: GPUDevice, readonly width: number, readonly height: number, format: GPUTextureFormat = 'rgba8unorm-srgb',
    options: Partial<RendererOptions> = {},
  ) {
    this.renderer = new Renderer(device, { format, imageDecoder: nodeImageDecoder, label: 'test renderer', ...options });
    this.renderer.settings.clearColor.set([0, 0, 0, 0]);
    this.target = createOffscreenTarget(device, width, height, format, 'test target');
  }

  async setModel(model: Model, frame = true): Promise<void> {
    await this.renderer.setModel(model);
    this.instance = createModelInstance(model);
    if (frame) this.camera.frame(computeInstanceBounds(this.instance), this.width / this.height);
  }

  /** Shows `model` from straight ahead (yaw and pitch 0), `distance` from `target`: the fixed view the flat-quad tests read pixels in. */
  async setModelHeadOn(model: Model, distance: number, target: readonly number[] = [0, 0, 0]): Promise<void> {
    await this.setModel(model, false);
    this.camera.target.set(target);
    this.camera.yaw = 0;
    this.camera.pitch = 0;
    this.camera.distance = distance;
  }

  pose(clip: number, time: number): this {
    updateModelInstance(this.instance, clip, time);
    return this;
  }

  async render(): Promise<Frame> {
    this.renderer.render(this.target, this.camera, this.instance);
    return this.read();
  }

  /** The frame drawn with everything it asks for (drawSettled), e.g. with the transmission pass's pipeline. */
  async renderSettled(): Promise<Frame> {
    await drawSettled(this.renderer, () => this.renderer.render(this.target, this.camera, this.instance));
    return this.read();
  }

  /** What the target holds now (after a render of the caller's own, e.g. `renderInstances`). */
  async read(): Promise<Frame> {
    return { width: this.width, height: this.height, rgba: await readTexturePixels(this.device, this.target) };
  }

  destroy(): void {
    this.renderer.destroy();
    this.target.destroy();
  }
}

/** Device methods that create GPU objects, and queue methods that move data or work. */
const COUNTED_DEVICE_CALLS = [
  'createBuffer', 'createTexture', 'createBindGroup', 'createRenderPipeline', 'createRenderPipelineAsync',
  'createSampler', 'createShaderModule', 'createQuerySet', 'createCommandEncoder',
] as const;
const COUNTED_QUEUE_CALLS = ['writeBuffer', 'submit', 'writeTexture'] as const;

/**
 * Runs `frames` (synchronously) with every object-creating device call and every queue
 * write/submit counted, and returns the counts of the calls that happened. The frame-path
 * tests use it to show a frame makes exactly its writeBuffers, one encoder and one submit.
 */
export function countGpuCalls(device: GPUDevice, frames: () => void): Record<string, number> {
  const counts: Record<string, number> = {};
  const restore: (() => void)[] = [];
  const spy = (target: object, name: string) => {
    const obj = target as Record<string, unknown>;
    const original = obj[name] as (...a: unknown[]) => unknown;
    obj[name] = (...args: unknown[]) => {
      counts[name] = (counts[name] ?? 0) + 1;
      return original.apply(obj, args);
    };
    restore.push(() => { obj[name] = original; });
  };
  for (const name of COUNTED_DEVICE_CALLS) spy(device, name);
  for (const name of COUNTED_QUEUE_CALLS) spy(device.queue, name);
  try {
    frames();
  } finally {
    for (const undo of restore) undo();
  }
  return counts;
}
