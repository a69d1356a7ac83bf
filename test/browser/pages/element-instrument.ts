/**
 * Test-page instrumentation for <skinned-mesh-viewer>, loaded before the library: counts
 * live GPU buffers and textures, page-wide listeners, observed elements and pending
 * animation frames (the leak test), frames drawn per canvas (render-only-when-needed
 * tests), and reads back the canvas texture of a frame right after it is drawn (the
 * capture test). Wraps prototypes, so it sees everything the library does without the
 * library knowing.
 */

export interface LiveCounts {
  buffers: number;
  textures: number;
  /** Listeners on window, document and MediaQueryLists. */
  pageListeners: number;
  /** Elements observed by any ResizeObserver or IntersectionObserver. */
  observed: number;
  pendingAnimationFrames: number;
  devices: number;
}

export interface GrabbedFrame {
  width: number;
  height: number;
  format: string;
  /** RGBA8 (BGRA swizzled), top row first, as the canvas texture held it. */
  rgba: Uint8Array;
}

export interface Instrument {
  live(): LiveCounts;
  liveLabels(): string[];
  frames(canvas: HTMLCanvasElement): number;
  /** Resolves with the next frame drawn into `canvas`, read back from its texture. */
  grabNextFrame(canvas: HTMLCanvasElement): Promise<GrabbedFrame>;
  devices: GPUDevice[];
}

declare global {
  interface Window {
    instrument: Instrument;
  }
}

const buffers = new Set<GPUBuffer>();
const textures = new Set<GPUTexture>();
const devices: GPUDevice[] = [];

function wrap<T extends object, K extends keyof T>(proto: T, key: K, make: (original: T[K]) => T[K]): void {
  const original = proto[key];
  proto[key] = make(original);
}

if (typeof GPUDevice !== 'undefined') {
  wrap(GPUDevice.prototype, 'createBuffer', (original) => function (this: GPUDevice, descriptor: GPUBufferDescriptor) {
    const buffer = original.call(this, descriptor);
    buffers.add(buffer);
    return buffer;
  });
  wrap(GPUDevice.prototype, 'createTexture', (original) => function (this: GPUDevice, descriptor: GPUTextureDescriptor) {
    const texture = original.call(this, descriptor);
    textures.add(texture);
    return texture;
  });
  wrap(GPUBuffer.prototype, 'destroy', (original) => function (this: GPUBuffer) {
    buffers.delete(this);
    return original.call(this);
  });
  wrap(GPUTexture.prototype, 'destroy', (original) => function (this: GPUTexture) {
    textures.delete(this);
    return original.call(this);
  });
  wrap(GPUAdapter.prototype, 'requestDevice', (original) => async function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor) {
    const device = await original.call(this, descriptor);
    devices.push(device);
    return device;
  });
}

// Page-wide listeners: the ones a detached element could leave behind.
const pageListeners = new Set<string>();
const listenerIds = new WeakMap<object, number>();
let nextListenerId = 1;
function isPageTarget(target: EventTarget): boolean {
  return target === window || target === document || (typeof MediaQueryList !== 'undefined' && target instanceof MediaQueryList);
}
function listenerKey(target: EventTarget, type: string, listener: unknown, options: boolean | EventListenerOptions | undefined): string | undefined {
  if (!listener || !isPageTarget(target)) return undefined;
  let id = listenerIds.get(listener as object);
  if (id === undefined) listenerIds.set(listener as object, id = nextListenerId++);
  let targetId = listenerIds.get(target);
  if (targetId === undefined) listenerIds.set(target, targetId = nextListenerId++);
  const capture = typeof options === 'boolean' ? options : !!options?.capture;
  return `${targetId}|${type}|${id}|${capture}`;
}
wrap(EventTarget.prototype, 'addEventListener', (original) => function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
  const key = listenerKey(this, type, listener, options);
  if (key) pageListeners.add(key);
  return original.call(this, type, listener, options);
});
wrap(EventTarget.prototype, 'removeEventListener', (original) => function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
  const key = listenerKey(this, type, listener, options);
  if (key) pageListeners.delete(key);
  return original.call(this, type, listener, options);
});

// Observed elements per observer.
const observedBy = new Map<object, Set<Element>>();
for (const ctor of [ResizeObserver, IntersectionObserver] as const) {
  const proto = ctor.prototype as unknown as {
    observe(target: Element, options?: unknown): void; unobserve(target: Element): void; disconnect(): void;
  };
  wrap(proto, 'observe', (original) => function (this: object, target: Element, options?: unknown) {
    let set = observedBy.get(this);
    if (!set) observedBy.set(this, set = new Set());
    set.add(target);
    return original.call(this, target, options);
  });
  wrap(proto, 'unobserve', (original) => function (this: object, target: Element) {
    observedBy.get(this)?.delete(target);
    return original.call(this, target);
  });
  wrap(proto, 'disconnect', (original) => function (this: object) {
    observedBy.delete(this);
    return original.call(this);
  });
}

// Pending animation frames.
const pendingFrames = new Set<number>();
const originalRaf = window.requestAnimationFrame.bind(window);
const originalCancel = window.cancelAnimationFrame.bind(window);
window.requestAnimationFrame = (callback: FrameRequestCallback): number => {
  const id: number = originalRaf((time) => {
    pendingFrames.delete(id);
    callback(time);
  });
  pendingFrames.add(id);
  return id;
};
window.cancelAnimationFrame = (id: number): void => {
  pendingFrames.delete(id);
  originalCancel(id);
};

// Frames per canvas, and readback of the canvas texture right after a frame is drawn.
const framesByCanvas = new WeakMap<object, number>();
interface PendingGrab {
  readonly canvas: HTMLCanvasElement;
  texture: GPUTexture | undefined;
  readonly resolve: (frame: GrabbedFrame) => void;
  readonly reject: (error: unknown) => void;
}
let grab: PendingGrab | undefined;
const configuredDevice = new WeakMap<object, GPUDevice>();

if (typeof GPUCanvasContext !== 'undefined') {
  wrap(GPUCanvasContext.prototype, 'configure', (original) => function (this: GPUCanvasContext, configuration: GPUCanvasConfiguration) {
    configuredDevice.set(this, configuration.device);
    // COPY_SRC lets the test read the canvas texture back; the library does not ask for it.
    return original.call(this, { ...configuration, usage: (configuration.usage ?? GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.COPY_SRC });
  });
  wrap(GPUCanvasContext.prototype, 'getCurrentTexture', (original) => function (this: GPUCanvasContext) {
    const texture = original.call(this);
    framesByCanvas.set(this.canvas, (framesByCanvas.get(this.canvas) ?? 0) + 1);
    if (grab && grab.canvas === this.canvas) grab.texture = texture;
    return texture;
  });
  wrap(GPUQueue.prototype, 'submit', (original) => function (this: GPUQueue, commandBuffers: Iterable<GPUCommandBuffer>) {
    const result = original.call(this, commandBuffers);
    const pending = grab;
    if (pending?.texture) {
      grab = undefined;
      const device = configuredDevice.get(pending.canvas.getContext('webgpu')!)!;
      readBack(device, pending.texture).then(pending.resolve, pending.reject);
    }
    return result;
  });
}

async function readBack(device: GPUDevice, texture: GPUTexture): Promise<GrabbedFrame> {
  const { width, height, format } = texture;
  const row = Math.ceil((width * 4) / 256) * 256;
  const buffer = device.createBuffer({ label: 'test canvas readback', size: row * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder({ label: 'test canvas readback' });
  encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: row }, [width, height]);
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const mapped = new Uint8Array(buffer.getMappedRange());
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) rgba.set(mapped.subarray(y * row, y * row + width * 4), y * width * 4);
  buffer.unmap();
  buffer.destroy();
  if (format.startsWith('bgra')) {
    for (let i = 0; i < rgba.length; i += 4) {
      const b = rgba[i];
      rgba[i] = rgba[i + 2];
      rgba[i + 2] = b;
    }
  }
  return { width, height, format, rgba };
}

window.instrument = {
  devices,
  live: () => {
    let observed = 0;
    for (const set of observedBy.values()) observed += set.size;
    return {
      buffers: buffers.size, textures: textures.size, pageListeners: pageListeners.size, observed,
      pendingAnimationFrames: pendingFrames.size, devices: devices.length,
    };
  },
  liveLabels: () => [...buffers].map((b) => `buffer ${b.label}`).concat([...textures].map((t) => `texture ${t.label}`)),
  frames: (canvas) => framesByCanvas.get(canvas) ?? 0,
  grabNextFrame: (canvas) => new Promise<GrabbedFrame>((resolve, reject) => {
    grab = { canvas, texture: undefined, resolve, reject };
  }),
};
