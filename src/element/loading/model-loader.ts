import type { Model } from '../../gltf/model.ts';
import { WebGpuUnsupportedError } from '../../gpu/device/device.ts';

/**
 * The steps of a load and the effects of its outcome, supplied by the element (by fakes in
 * tests). Steps may reject; the loader decides whether a rejection is still news.
 */
export interface ModelLoadHost<Gpu> {
  /** Fetches and parses `source`; aborting `signal` rejects it. */
  fetch(source: string, signal: AbortSignal, onProgress: (loaded: number, total: number) => void): Promise<Model>;
  /** The GPU of this connection (rejects when there is none). */
  gpu(): Promise<Gpu>;
  /** Puts `model` on `gpu`. */
  upload(gpu: Gpu, model: Model): Promise<void>;
  /** Why nothing can be shown here (no WebGPU), once known; then no load starts. */
  unsupportedMessage(): string | undefined;
  /** A load started: progress of unknown size. */
  loadStarted(): void;
  /** Bytes of the current load arrived (`total` 0 while unknown). */
  loadProgress(loaded: number, total: number): void;
  /** No load is in flight any more (cancelled or replaced). */
  loadStopped(): void;
  /** The message over the canvas: shown, or hidden when undefined. */
  message(text: string | undefined): void;
  /** `model` (from `source`) is now the shown one; `loaded` is already true. */
  committed(source: string, model: Model): void;
  /** Nothing is shown any more. */
  cleared(): void;
  /** The current load failed, in its `phase`; what was shown is cleared already. */
  failed(phase: 'load' | 'gpu', error: unknown, source: string): void;
}

/**
 * Which model the element shows and which one it is loading: at most one load is current,
 * and only the current one may report progress, commit or fail. Every cancel, new source
 * or `show` makes older loads stale (a generation counter, plus an abort for their
 * fetches), so a slow load that finishes after a newer one started changes nothing.
 * Knows neither the DOM nor WebGPU (the host does), so its races are tested in Node.
 */
export class ModelLoader<Gpu> {
  private generation = 0;
  private abort: AbortController | undefined;
  private pending: string | undefined;
  private shownSource: string | undefined;
  private shownModel: Model | undefined;
  private isLoaded = false;

  constructor(private readonly host: ModelLoadHost<Gpu>) {}

  /** The shown model (kept while a newer one loads, and across removal from the page). */
  get model(): Model | undefined { return this.shownModel; }

  /** The source of the shown model. */
  get source(): string | undefined { return this.shownSource; }

  /** The source being loaded, if a load is in flight. */
  get loading(): string | undefined { return this.pending; }

  /** True once the model of the current source is shown; false while a new source loads. */
  get loaded(): boolean { return this.isLoaded; }

  /** On insertion: loads `source` unless its model is already shown (moved or re-inserted). */
  connected(source: string | undefined): void {
    if (source !== undefined && (source !== this.shownSource || !this.shownModel)) this.start(source);
  }

  /** The source attributes changed to `source` (undefined: none). */
  sourceChanged(source: string | undefined): void {
    if (source !== undefined && source === this.shownSource && this.shownModel) {
      // Back to what is shown: drop the newer load, keep the model.
      this.cancel();
      this.isLoaded = true;
      return;
    }
    // Already loading it. Also no source while nothing loads: what is shown stays.
    if (source === this.pending) return;
    this.start(source);
  }

  /** Makes any load in flight stale and aborts its fetches; what is shown stays. */
  cancel(): void {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    this.pending = undefined;
    this.host.loadStopped();
  }

  /** Loads `source` in place of anything in flight; undefined clears what is shown. */
  start(source: string | undefined): void {
    this.cancel();
    this.isLoaded = false;
    this.host.message(undefined);
    if (source === undefined) {
      this.clear();
      return;
    }
    const unsupported = this.host.unsupportedMessage();
    if (unsupported !== undefined) {
      this.host.message(unsupported);
      return;
    }
    const generation = this.generation;
    const abort = new AbortController();
    this.abort = abort;
    this.pending = source;
    this.host.loadStarted();
    void this.load(source, generation, abort.signal);
  }

  /** Shows a model loaded elsewhere (source `model:NAME`): uploaded and committed as a fetched one is. */
  show(model: Model): void {
    this.cancel();
    this.isLoaded = false;
    this.host.message(undefined);
    const source = `model:${model.name}`;
    const abort = new AbortController();
    this.abort = abort;
    this.pending = source;
    void this.load(source, this.generation, abort.signal, model);
  }

  private async load(source: string, generation: number, signal: AbortSignal, preloaded?: Model): Promise<void> {
    let phase: 'load' | 'gpu' = 'load';
    try {
      // Events go out after the call that set src (or inserted the element) returns.
      await Promise.resolve();
      if (generation !== this.generation) return;
      const model = preloaded ?? await this.host.fetch(source, signal, (loaded, total) => {
        if (generation === this.generation) this.host.loadProgress(loaded, total);
      });
      if (generation !== this.generation) return;
      const gpu = await this.host.gpu();
      if (generation !== this.generation) return;
      phase = 'gpu';
      await this.host.upload(gpu, model);
      if (generation !== this.generation) return;
      this.commit(source, model);
    } catch (error) {
      if (generation !== this.generation || signal.aborted) return;
      // The host reports a missing WebGPU (or a failed device) once, itself.
      if (error instanceof WebGpuUnsupportedError || (error instanceof DOMException && error.name === 'AbortError')) return;
      this.pending = undefined;
      this.abort = undefined;
      this.clear();
      this.host.failed(phase, error, source);
    }
  }

  private commit(source: string, model: Model): void {
    this.abort = undefined;
    this.pending = undefined;
    this.shownSource = source;
    this.shownModel = model;
    this.isLoaded = true;
    this.host.committed(source, model);
  }

  private clear(): void {
    this.shownModel = undefined;
    this.shownSource = undefined;
    this.isLoaded = false;
    this.host.cleared();
  }
}
