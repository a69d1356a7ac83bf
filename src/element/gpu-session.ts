import { DEFAULT_SKINNING, type SkinningMethod } from '../anim/skinning-method.ts';
import type { Model } from '../gltf/model.ts';
import type { ModelShape } from '../gltf/model-shape.ts';
import { parseDebugViews } from '../gpu/debug/views.ts';
import { configureCanvas, WebGpuUnsupportedError } from '../gpu/device/device.ts';
import { Renderer } from '../gpu/renderer.ts';
import { backgroundColor, parseNumber, parseSkinning, type Rgba } from './attributes.ts';
import { DEFAULT_EXPOSURE } from './reflected-attributes.ts';
import { acquireSharedDevice, onSharedDeviceLost } from './shared-device.ts';

/** What one connection to the page holds on the GPU; all freed on removal. */
export interface GpuState {
  readonly device: GPUDevice;
  readonly context: GPUCanvasContext;
  readonly renderer: Renderer;
  /** The model the renderer holds, once its upload finished. */
  uploaded: Model | undefined;
  /** Set when the state is released; queued uploads for it are skipped. */
  released: boolean;
}

/** The element's render settings, parsed from its attributes. */
export interface ViewerSettings {
  readonly exposure: number;
  readonly clearColor: Rgba;
  /** DebugView bits. */
  readonly debugMask: number;
  readonly skinning: SkinningMethod;
  readonly shadows: boolean;
  /** Multiplies MToon outline widths (RenderSettings.outlineWidth). */
  readonly outlineWidth: number;
}

/**
 * The render settings as the element's attributes say now (`exposure`, `background`, `debug`,
 * `skinning`, `shadows`, `outline-width`; a soft shadow from `shadowIntensity` needs the shadow pipelines too);
 * a malformed value warns and falls back.
 */
export function readViewerSettings(element: Pick<Element, 'getAttribute' | 'hasAttribute'>, shadowIntensity: number, warn: (message: string) => void): ViewerSettings {
  const debug = element.getAttribute('debug'), skinning = element.getAttribute('skinning');
  const { mask, unknown } = parseDebugViews(debug);
  if (unknown.length > 0) warn(`debug="${debug}": unknown view(s) ${unknown.join(', ')} (skeleton normals tangents weights wireframe bounds)`);
  const method = parseSkinning(skinning);
  if (method === undefined) warn(`skinning="${skinning}" is not supported; using ${DEFAULT_SKINNING}`);
  const outline = element.getAttribute('outline-width');
  let outlineWidth = parseNumber(outline) ?? 1;
  if (outline !== null && !(outlineWidth >= 0 && parseNumber(outline) !== undefined)) {
    warn(`outline-width="${outline}" is not a number ≥ 0; outlines are drawn as authored`);
    outlineWidth = 1;
  }
  return {
    exposure: parseNumber(element.getAttribute('exposure')) ?? DEFAULT_EXPOSURE,
    clearColor: backgroundColor(element.getAttribute('background'), warn),
    debugMask: mask,
    skinning: method ?? DEFAULT_SKINNING,
    shadows: element.hasAttribute('shadows') || shadowIntensity > 0,
    outlineWidth,
  };
}

/** What the session needs from its element. */
export interface GpuSessionHost {
  /** The model to keep on the GPU, if one is shown. */
  model(): Model | undefined;
  /** The settings as the attributes say now. */
  settings(): ViewerSettings;
  /** The variant `variant-name` selects in `model` (-1: the file's materials; undefined: keep the shown ones). */
  variant(model: Model): number | undefined;
  /** A change of `variant-name` shows now. */
  variantApplied(): void;
  /** Something visible changed: draw a frame. */
  invalidate(): void;
  /** After the settings went to the renderer: the element's own further configuration (lighting). */
  configure?(gpu: GpuState): void;
  /** The device request of the current connection failed: nothing can be shown. */
  deviceFailed(error: unknown, unsupported: boolean): void;
  /** Putting the shown model on a new renderer (re-insertion, device loss) failed. */
  uploadFailed(error: unknown): void;
  /** The pipelines a setting needs could not be built; frames keep the previous ones. */
  settingFailed(attribute: 'skinning' | 'debug' | 'variant-name', error: unknown): void;
}

/**
 * The element's hold on the GPU while it is in the page: the shared device, its canvas
 * configured on it, a Renderer, and the work queued on that renderer (uploads, pipelines
 * built on first use). `open` on insertion, `close` on removal, which frees everything;
 * a lost device is replaced and the shown model uploaded again.
 */
export class GpuSession {
  private current: GpuState | undefined;
  private request: Promise<GpuState> | undefined;
  private isOpen = false;
  /** Bumped on every open and close; a device that arrives for an older one is dropped. */
  private epoch = 0;
  private unsupported: string | undefined;
  private unsubscribeDeviceLost: (() => void) | undefined;
  /** The shape a load told before the device arrived (`forecast`). */
  private pendingShape: ModelShape | undefined;
  /**
   * Renderer work, one step at a time: Renderer.setModel is async, so two uploads (or an
   * upload and destroy) must not interleave, or an older model could land last, or a
   * destroyed renderer receive a new scene.
   */
  private rendererQueue: Promise<void> = Promise.resolve();

  constructor(private readonly canvas: HTMLCanvasElement, private readonly label: string, private readonly host: GpuSessionHost) {}

  /** The GPU of this connection, once its device arrived. */
  get gpu(): GpuState | undefined { return this.current; }

  /** Resolves with the GPU of this connection (rejects when there is none); undefined while closed. */
  get ready(): Promise<GpuState> | undefined { return this.request; }

  /** Why WebGPU cannot be used, once a device request of this connection failed for that reason. */
  get unsupportedMessage(): string | undefined { return this.unsupported; }

  /** Starts the session: asks for its device now, and takes it up once `after` resolves (default: now). */
  open(after?: Promise<void>): void {
    this.isOpen = true;
    this.epoch++;
    this.unsubscribeDeviceLost = onSharedDeviceLost(this.deviceLost);
    this.requestDevice(after);
  }

  close(): void {
    this.isOpen = false;
    this.epoch++;
    this.unsubscribeDeviceLost?.();
    this.unsubscribeDeviceLost = undefined;
    this.release();
    this.request = undefined;
    this.unsupported = undefined;
    this.pendingShape = undefined;
  }

  /** Puts `model` on the renderer, after any work queued before (resolves at once if it is there). */
  upload(gpu: GpuState, model: Model): Promise<void> {
    return this.enqueue(async () => {
      if (gpu.released || gpu.uploaded === model) return;
      await gpu.renderer.setModel(model);
      // Before the first frame, so the file's own materials never flash.
      await gpu.renderer.setVariant(this.host.variant(model) ?? -1);
      gpu.uploaded = model;
      // Frames draw unshadowed until these are built; the caller invalidates once they are.
      if (gpu.renderer.settings.shadows) await Promise.all([gpu.renderer.prepareShadows(), gpu.renderer.prepareGround()]);
    });
  }

  /**
   * A file being loaded said what its draws need (its JSON): once the renderer is there, starts
   * compiling their pipelines (Renderer.forecast), so that they build while the file loads.
   */
  forecast(shape: ModelShape): void {
    const gpu = this.current;
    if (gpu) void gpu.renderer.forecast(shape);
    // Asked for as the device arrives, before the lighting's work (host.configure) there.
    else if (this.isOpen) this.pendingShape = shape;
  }

  /** After a re-insertion or a device loss: puts the shown model on the current renderer. */
  ensureUploaded(): void {
    const gpu = this.current, model = this.host.model();
    if (!gpu || !model || gpu.uploaded === model) return;
    this.upload(gpu, model).then(
      () => this.host.invalidate(),
      (error: unknown) => { if (this.current === gpu && this.host.model() === model) this.host.uploadFailed(error); },
    );
  }

  /** Hands the host's settings to the renderer (if there is one yet), building what they newly need. */
  applySettings(): void {
    const gpu = this.current;
    if (!gpu) return;
    this.applyRenderSettings(gpu);
    this.host.configure?.(gpu);
  }

  /** The host's settings on the renderer (applySettings without the host's own configuration). */
  private applyRenderSettings(gpu: GpuState): void {
    const wanted = this.host.settings();
    const settings = gpu.renderer.settings;
    settings.exposure = wanted.exposure;
    settings.outlineWidth = wanted.outlineWidth;
    settings.clearColor.set(wanted.clearColor);
    settings.debug = wanted.debugMask;
    if (wanted.debugMask !== 0) this.prepareDebugViews(gpu, wanted.debugMask);
    if (settings.skinning !== wanted.skinning) {
      settings.skinning = wanted.skinning;
      this.prepareSkinning(gpu);
    }
    if (settings.shadows !== wanted.shadows) {
      settings.shadows = wanted.shadows;
      settings.ground = wanted.shadows;
      if (wanted.shadows) this.prepareSkinning(gpu);
    }
  }

  /** `variant-name` changed: draws the variant it selects (after the work queued before), then reports it. */
  applyVariant(): void {
    const gpu = this.current;
    if (!gpu) return;
    this.enqueue(async () => {
      const model = gpu.uploaded;
      if (gpu.released || !model) return false;
      const variant = this.host.variant(model);
      if (variant !== undefined) await gpu.renderer.setVariant(variant);
      return true;
    }).then(
      (shown) => {
        this.host.invalidate();
        if (shown) this.host.variantApplied();
      },
      (error: unknown) => this.host.settingFailed('variant-name', error),
    );
  }

  private requestDevice(after?: Promise<void>): void {
    const epoch = this.epoch;
    const request = Promise.all([acquireSharedDevice(), after]).then(([device]): GpuState => {
      if (epoch !== this.epoch) throw new DOMException('the element left the page', 'AbortError');
      const { context, viewFormat } = configureCanvas(this.canvas, device);
      const renderer = new Renderer(device, { format: viewFormat, label: this.label });
      const gpu: GpuState = { device, context, renderer, uploaded: undefined, released: false };
      this.current = gpu;
      // The model's pipelines (the longest wait before a first frame) are asked for first, with
      // the settings they depend on; then the lighting starts its environment.
      this.applyRenderSettings(gpu);
      const shape = this.pendingShape;
      this.pendingShape = undefined;
      if (shape) void renderer.forecast(shape);
      this.host.configure?.(gpu);
      this.host.invalidate();
      this.ensureUploaded();
      return gpu;
    });
    this.request = request;
    request.catch((error: unknown) => {
      if (epoch !== this.epoch || request !== this.request) return;
      const unsupported = error instanceof WebGpuUnsupportedError;
      if (unsupported) this.unsupported = error.message;
      this.host.deviceFailed(error, unsupported);
    });
  }

  private release(): void {
    const gpu = this.current;
    if (!gpu) return;
    this.current = undefined;
    gpu.released = true;
    gpu.context.unconfigure();
    this.enqueue(() => gpu.renderer.destroy());
  }

  private readonly deviceLost = (device: GPUDevice): void => {
    if (!this.current || this.current.device !== device) return;
    this.release();
    // The next acquire requests a new device; its continuation re-uploads the model.
    if (this.isOpen) this.requestDevice();
  };

  private enqueue<T>(work: () => T | Promise<T>): Promise<T> {
    const result = this.rendererQueue.then(work);
    this.rendererQueue = result.then(() => {}, () => {});
    return result;
  }

  /** A skinning method's pipelines are built on first use; until then frames keep the old method. */
  private prepareSkinning(gpu: GpuState): void {
    this.enqueue(async () => {
      if (gpu.released || !gpu.uploaded) return;
      await gpu.renderer.prepareSkinning();
      // Shadow pipelines follow the skinning method.
      if (gpu.renderer.settings.shadows) await Promise.all([gpu.renderer.prepareShadows(), gpu.renderer.prepareGround()]);
    }).then(
      () => this.host.invalidate(),
      (error: unknown) => this.host.settingFailed('skinning', error),
    );
  }

  /**
   * Debug views are built on first use, asynchronously; a viewer that is not animating
   * draws no further frame by itself, so it asks for one when they are ready.
   */
  private prepareDebugViews(gpu: GpuState, mask: number): void {
    this.enqueue(async () => {
      // Before the first upload setModel builds them itself.
      if (gpu.released || !gpu.uploaded || (gpu.renderer.debugViewsReady & mask) === mask) return;
      await gpu.renderer.prepareDebugViews(mask);
    }).then(
      () => this.host.invalidate(),
      (error: unknown) => this.host.settingFailed('debug', error),
    );
  }
}
