/**
 * Helpers the element tests call through `page.evaluate`: waiting for loads and frames,
 * recording events, and capturing/reading back frames as base64 for Node to decode.
 * Loaded before the library (types only from it), so elements written in the HTML can be
 * watched before they upgrade.
 */
import type { SkinnedMeshViewerElement } from '../../../src/element/viewer.ts';

export interface RecordedEvent {
  type: string;
  detail: Record<string, unknown>;
  /** For error events: the element's visible message text when the event fired. */
  message?: string;
}

export interface Helpers {
  viewer(id: string): SkinnedMeshViewerElement;
  watch(el: Element): void;
  events(el: Element): RecordedEvent[];
  canvasOf(el: Element): HTMLCanvasElement;
  messageOf(el: Element): { text: string; visible: boolean };
  progressVisible(el: Element): boolean;
  /**
   * Appends a `<skinned-mesh-viewer id=…>` with `attributes` to #stage and resolves once it
   * has loaded; `watch` records its events first (see `events`).
   */
  addViewer(id: string, attributes: Record<string, string>, options?: { timeoutMs?: number; watch?: boolean }): Promise<SkinnedMeshViewerElement>;
  whenLoaded(el: Element, timeoutMs?: number): Promise<void>;
  /** The element's next `load` (rejects on its next `error`), even if it has loaded before. */
  nextLoad(el: Element, timeoutMs?: number): Promise<void>;
  whenError(el: Element, timeoutMs?: number): Promise<RecordedEvent>;
  /** Waits for `count` more frames drawn into the element's canvas. */
  waitForFrames(el: Element, count?: number, timeoutMs?: number): Promise<number>;
  /** Waits until the element's canvas has had at least `total` frames in all. */
  waitForTotalFrames(el: Element, total: number, timeoutMs?: number): Promise<number>;
  /**
   * Draws `count` more frames, asking for each one: a paused viewer draws only on a change
   * (a paused avatar only until its springs rest), so waiting alone may wait for nothing.
   */
  drawFrames(el: Element, count?: number, timeoutMs?: number): Promise<number>;
  /**
   * Resolves once no CSS transition or animation runs on `elements`: their style is read first,
   * so a change just made has started its transition; one replaced meanwhile is waited for too.
   */
  transitionsEnded(elements: Element[], timeoutMs?: number): Promise<void>;
  captureBase64(el: Element, type?: string): Promise<{ base64: string; type: string }>;
  grabBase64(el: Element): Promise<{ width: number; height: number; base64: string }>;
  sleep(ms: number): Promise<void>;
  nextFrames(count: number): Promise<void>;
}

declare global {
  interface Window {
    helpers: Helpers;
  }
}

const recorded = new WeakMap<Element, RecordedEvent[]>();
const EVENT_TYPES = [
  'progress', 'load', 'error', 'animationend', 'variant-applied',
  'poster-dismissed', 'model-visibility', 'camera-change', 'play', 'pause', 'loop', 'finished',
];

function toBase64(bytes: Uint8Array): string {
  let s = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) s += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(s);
}

function safeDetail(detail: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (detail && typeof detail === 'object') {
    for (const [k, v] of Object.entries(detail)) {
      if (v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v)) out[k] = v;
      else if (v instanceof Error) out[k] = `${v.name}: ${v.message}`;
    }
  }
  return out;
}

function messageOf(el: Element): { text: string; visible: boolean } {
  const message = el.shadowRoot!.querySelector<HTMLElement>('[part="message"]')!;
  return { text: message.textContent ?? '', visible: !message.hidden && message.getBoundingClientRect().height > 0 };
}

function viewer(el: Element): SkinnedMeshViewerElement {
  return el as SkinnedMeshViewerElement;
}

function timeout<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms); });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Settles on the first of two events of `el` (`onResolve` → resolve(pick(event)), `onReject` →
 * reject) or the timeout, then removes both listeners and the timer: a soak that waits
 * thousands of times leaves nothing behind.
 */
function firstEvent<T>(el: Element, ms: number, what: string, onResolve: string, pick: (e: Event) => T, onReject: string, reason: (e: Event) => Error): Promise<T> {
  let resolveListener: (e: Event) => void = () => {}, rejectListener: (e: Event) => void = () => {};
  const settled = new Promise<T>((resolve, reject) => {
    resolveListener = (e) => resolve(pick(e));
    rejectListener = (e) => reject(reason(e));
    el.addEventListener(onResolve, resolveListener);
    el.addEventListener(onReject, rejectListener);
  });
  return timeout(ms, what, settled).finally(() => {
    el.removeEventListener(onResolve, resolveListener);
    el.removeEventListener(onReject, rejectListener);
  });
}

window.helpers = {
  viewer(id) {
    const el = document.getElementById(id);
    if (!(el instanceof HTMLElement) || el.localName !== 'skinned-mesh-viewer') throw new Error(`no <skinned-mesh-viewer id="${id}">`);
    return el as SkinnedMeshViewerElement;
  },
  watch(el) {
    if (recorded.has(el)) return;
    const list: RecordedEvent[] = [];
    recorded.set(el, list);
    for (const type of EVENT_TYPES) {
      el.addEventListener(type, (event) => {
        const entry: RecordedEvent = { type, detail: safeDetail((event as CustomEvent).detail) };
        if (type === 'error') entry.message = messageOf(el).text;
        list.push(entry);
      });
    }
  },
  events: (el) => recorded.get(el) ?? [],
  canvasOf: (el) => el.shadowRoot!.querySelector('canvas')!,
  messageOf,
  progressVisible(el) {
    const bar = el.shadowRoot!.querySelector<HTMLElement>('[part~="progress-bar"]')!;
    return !bar.hidden;
  },
  async addViewer(id, attributes, { timeoutMs = 20_000, watch = false } = {}) {
    const el = document.createElement('skinned-mesh-viewer');
    el.id = id;
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    if (watch) window.helpers.watch(el);
    document.getElementById('stage')!.append(el);
    await window.helpers.whenLoaded(el, timeoutMs);
    return viewer(el);
  },
  whenLoaded(el, timeoutMs = 20_000) {
    if (viewer(el).loaded) return Promise.resolve();
    return window.helpers.nextLoad(el, timeoutMs);
  },
  nextLoad(el, timeoutMs = 20_000) {
    return firstEvent(el, timeoutMs, `load of ${el.id || el.getAttribute('src')}`, 'load', () => undefined, 'error', (e) => new Error((e as CustomEvent).detail.message));
  },
  whenError(el, timeoutMs = 20_000) {
    return firstEvent(el, timeoutMs, `error of ${el.id}`,
      'error', (e): RecordedEvent => ({ type: 'error', detail: safeDetail((e as CustomEvent).detail), message: messageOf(el).text }),
      'load', () => new Error('loaded instead of failing'));
  },
  waitForFrames(el, count = 1, timeoutMs = 20_000) {
    return window.helpers.waitForTotalFrames(el, window.instrument.frames(window.helpers.canvasOf(el)) + count, timeoutMs);
  },
  async waitForTotalFrames(el, total, timeoutMs = 20_000) {
    const canvas = window.helpers.canvasOf(el);
    const deadline = performance.now() + timeoutMs;
    while (window.instrument.frames(canvas) < total) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for frame ${total} of ${el.id} (${window.instrument.frames(canvas)} drawn)`);
      await new Promise(requestAnimationFrame);
    }
    return window.instrument.frames(canvas);
  },
  async drawFrames(el, count = 1, timeoutMs = 20_000) {
    let drawn = 0;
    for (let i = 0; i < count; i++) {
      viewer(el).requestRender();
      drawn = await window.helpers.waitForFrames(el, 1, timeoutMs);
    }
    return drawn;
  },
  async transitionsEnded(elements, timeoutMs = 20_000) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      for (const e of elements) void getComputedStyle(e).opacity;
      const running = elements.flatMap((e) => e.getAnimations());
      if (running.length === 0) return;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${running.length} transitions to end`);
      // A cancelled or replaced transition rejects `finished`; the loop looks again.
      await timeout(Math.max(0, deadline - performance.now()), 'transitions to end', Promise.allSettled(running.map((a) => a.finished)));
    }
  },
  async captureBase64(el, type = 'image/png') {
    const blob = await viewer(el).capture(type);
    return { base64: toBase64(new Uint8Array(await blob.arrayBuffer())), type: blob.type };
  },
  async grabBase64(el) {
    const canvas = window.helpers.canvasOf(el);
    const grabbed = window.instrument.grabNextFrame(canvas);
    // A seek to where it is changes nothing but asks for a frame.
    viewer(el).currentTime = viewer(el).currentTime;
    const frame = await timeout(10_000, `a frame of ${el.id}`, grabbed);
    return { width: frame.width, height: frame.height, base64: toBase64(frame.rgba) };
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  async nextFrames(count) {
    for (let i = 0; i < count; i++) await new Promise(requestAnimationFrame);
  },
};
