import type { AnimationPlayer } from '../anim/player.ts';
import { createOffscreenTarget, readTexturePixels } from '../gpu/device/readback.ts';
import type { GpuState } from './gpu-session.ts';
import type { ViewerStage } from './stage.ts';

/**
 * Frames as image files: `capture()`, model-viewer's `toBlob()` (rendered again into an
 * offscreen texture and read back, so it works whatever the canvas compositing does) and
 * `toDataURL()` (synchronous, as model-viewer's: a frame drawn into the canvas's current
 * texture and encoded by the canvas in the same task).
 *
 * Encoding a read-back frame as an image file. The renderer writes
 * premultiplied alpha (what a premultiplied canvas composites); image files and ImageData
 * hold straight alpha, so partly transparent pixels are un-premultiplied first. Opaque
 * pixels pass through unchanged, so a capture of an opaque frame is byte-identical to a
 * readback of it.
 */

/** Premultiplied → straight alpha, in place. */
export function unpremultiply(rgba: Uint8Array | Uint8ClampedArray): void {
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3];
    if (a === 255 || a === 0) continue;
    const scale = 255 / a;
    rgba[i] = Math.min(255, Math.round(rgba[i] * scale));
    rgba[i + 1] = Math.min(255, Math.round(rgba[i + 1] * scale));
    rgba[i + 2] = Math.min(255, Math.round(rgba[i + 2] * scale));
  }
}

/** RGBA8 straight alpha, top row first → an image file of `type` through the browser's encoders. */
export async function encodeImage(rgba: Uint8ClampedArray<ArrayBuffer>, width: number, height: number, type: string, quality?: number): Promise<Blob> {
  const image = new ImageData(rgba, width, height);
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('capture: no 2D context to encode the image with');
    context.putImageData(image, 0, 0);
    return canvas.convertToBlob(quality === undefined ? { type } : { type, quality });
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('capture: no 2D context to encode the image with');
  context.putImageData(image, 0, 0);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error(`capture: the browser could not encode ${type}`))), type, quality);
  });
}

/** model-viewer's `toBlob` options. */
export interface ToBlobOptions {
  /** `image/png` (default), `image/jpeg` or `image/webp`. */
  mimeType?: string;
  /** JPEG/WebP quality 0…1. */
  qualityArgument?: number;
  /** Crop to the width the framed model needs at the canvas's height, instead of the canvas's aspect. */
  idealAspect?: boolean;
}

/** What drawing a frame takes (the element's GPU, player, stage and its draw call). */
export interface FrameSource {
  readonly gpu: GpuState;
  readonly player: AnimationPlayer;
  readonly stage: ViewerStage | undefined;
  draw(gpu: GpuState, target: GPUTexture, player: AnimationPlayer, stage: ViewerStage | undefined): void;
}

/** Renders a frame of `width`×`height` offscreen and encodes it. */
export async function renderImage(source: FrameSource, width: number, height: number, label: string, type: string, quality?: number): Promise<Blob> {
  const { gpu, player, stage } = source;
  const target = createOffscreenTarget(gpu.device, width, height, gpu.renderer.format, label);
  let pixels: Uint8Array;
  try {
    source.draw(gpu, target, player, stage);
    pixels = await readTexturePixels(gpu.device, target);
  } finally {
    target.destroy();
  }
  const rgba = new Uint8ClampedArray(pixels.buffer as ArrayBuffer, pixels.byteOffset, pixels.byteLength);
  unpremultiply(rgba);
  return encodeImage(rgba, width, height, type, quality);
}

/** Draws a frame into the canvas's current texture and has the canvas encode it, in this task. */
export function canvasDataUrl(source: FrameSource, canvas: HTMLCanvasElement, type: string, quality?: number): string {
  source.draw(source.gpu, source.gpu.context.getCurrentTexture(), source.player, source.stage);
  return canvas.toDataURL(type, quality);
}

/** toBlob(): the canvas's size, or its height at `aspect` (idealAspect), within the device's limits. */
export function frameBlob(source: FrameSource, canvas: HTMLCanvasElement, aspect: number | undefined, options: ToBlobOptions, label: string): Promise<Blob> {
  const height = canvas.height;
  const max = source.gpu.device.limits.maxTextureDimension2D;
  const width = aspect === undefined ? canvas.width : Math.max(1, Math.min(max, Math.round(height * aspect)));
  return renderImage(source, width, height, label, options.mimeType ?? 'image/png', options.qualityArgument);
}

/** What ViewerImages needs from its element. */
export interface ImageHost {
  readonly canvas: HTMLCanvasElement;
  /** The element's label in GPU object labels. */
  readonly label: string;
  /** What is shown now, or undefined when nothing is (no model on the GPU yet). */
  frameSource(): FrameSource | undefined;
  /** toBlob({idealAspect}): the width over height the framed model needs, or undefined without a model. */
  idealAspect(): number | undefined;
}

/** The element's `capture()`, `toBlob()` and `toDataURL()` over what it shows now. */
export class ViewerImages {
  constructor(private readonly host: ImageHost) {}

  capture(type: string, quality?: number): Promise<Blob> {
    const { width, height } = this.host.canvas;
    return renderImage(this.source('capture'), width, height, `${this.host.label} capture`, type, quality);
  }

  toBlob(options: ToBlobOptions): Promise<Blob> {
    const aspect = options.idealAspect ? this.host.idealAspect() : undefined;
    return frameBlob(this.source('toBlob'), this.host.canvas, aspect, options, `${this.host.label} toBlob`);
  }

  toDataURL(type: string, quality?: number): string {
    return canvasDataUrl(this.source('toDataURL'), this.host.canvas, type, quality);
  }

  private source(method: string): FrameSource {
    const source = this.host.frameSource();
    if (!source) throw new Error(`<skinned-mesh-viewer>.${method}: nothing is shown yet (wait for "load" while the element is in the page)`);
    return source;
  }
}
