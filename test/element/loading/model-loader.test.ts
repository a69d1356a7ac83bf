/**
 * ModelLoader: which load of <skinned-mesh-viewer> may commit or report, when sources
 * change, loads are cancelled or fail late. Fetch, GPU and upload are fakes that resolve
 * when a test says so.
 */
import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/gltf/model.ts';
import { WebGpuUnsupportedError } from '../../../src/gpu/device/device.ts';
import { ModelLoader } from '../../../src/element/loading/model-loader.ts';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void, reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const modelNamed = (name: string) => ({ name }) as Model;

interface FetchCall extends Deferred<Model> {
  readonly source: string;
  readonly signal: AbortSignal;
  readonly onProgress: (loaded: number, total: number) => void;
}

/** A loader whose host logs every effect; fetches and uploads wait for the test. */
function setup() {
  const log: string[] = [];
  const fetches: FetchCall[] = [];
  const uploads: (Deferred<void> & { model: Model })[] = [];
  let gpu = deferred<string>();
  gpu.resolve('gpu');
  let unsupported: string | undefined;
  const loader = new ModelLoader<string>({
    fetch: (source, signal, onProgress) => {
      const call = { ...deferred<Model>(), source, signal, onProgress };
      fetches.push(call);
      return call.promise;
    },
    gpu: () => gpu.promise,
    upload: (_gpu, model) => {
      const call = { ...deferred<void>(), model };
      uploads.push(call);
      return call.promise;
    },
    unsupportedMessage: () => unsupported,
    loadStarted: () => log.push('started'),
    loadProgress: (loaded, total) => log.push(`progress ${loaded}/${total}`),
    loadStopped: () => log.push('stopped'),
    message: (text) => log.push(`message ${text ?? '-'}`),
    committed: (source, model) => log.push(`committed ${source} ${model.name}`),
    cleared: () => log.push('cleared'),
    failed: (phase, error, source) => log.push(`failed ${phase} ${source}: ${(error as Error).message}`),
  });
  /** The log since the last call. */
  const taken = (): string[] => log.splice(0);
  return {
    loader, fetches, uploads, taken,
    setGpu(next: Deferred<string>) { gpu = next; },
    setUnsupported(message: string) { unsupported = message; },
  };
}

/** Resolves the fetch and the upload of `source` (the latest of each). */
async function finish(t: ReturnType<typeof setup>, source: string): Promise<Model> {
  const fetch = t.fetches.filter((f) => f.source === source).pop()!;
  const model = modelNamed(source);
  fetch.resolve(model);
  await settle();
  t.uploads.filter((u) => u.model === model).pop()?.resolve();
  await settle();
  return model;
}

/** A loader whose load of a.glb was superseded by one of b.glb, both fetching. */
async function supersededLoad(): Promise<ReturnType<typeof setup>> {
  const t = setup();
  t.loader.sourceChanged('a.glb');
  await settle();
  t.loader.sourceChanged('b.glb');
  await settle();
  return t;
}

describe('ModelLoader', () => {
  it('loads, uploads and commits a source, reporting progress; nothing happens before the setting call returns', async () => {
    const t = setup();
    t.loader.sourceChanged('a.glb');
    expect(t.taken()).toEqual(['stopped', 'message -', 'started']);
    expect(t.fetches).toHaveLength(0);
    expect([t.loader.loading, t.loader.loaded]).toEqual(['a.glb', false]);
    await settle();
    t.fetches[0].onProgress(10, 100);
    const model = await finish(t, 'a.glb');
    expect(t.taken()).toEqual(['progress 10/100', 'committed a.glb a.glb']);
    expect([t.loader.model, t.loader.source, t.loader.loading, t.loader.loaded]).toEqual([model, 'a.glb', undefined, true]);
    // The same source again: nothing to load.
    t.loader.sourceChanged('a.glb');
    t.loader.connected('a.glb');
    expect(t.taken()).toEqual(['stopped']);
    expect(t.loader.loaded).toBe(true);
  });

  it('a new source during a load wins: the older fetch is aborted, its progress and result ignored', async () => {
    const t = await supersededLoad();
    const [a, b] = t.fetches;
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
    t.taken();
    a.onProgress(5, 10);
    await finish(t, 'a.glb');
    expect(t.uploads).toHaveLength(0);
    expect(t.taken()).toEqual([]);
    await finish(t, 'b.glb');
    expect(t.taken()).toEqual(['committed b.glb b.glb']);
    expect(t.loader.source).toBe('b.glb');
  });

  it('a source changed back to the shown one drops the newer load and keeps the model', async () => {
    const t = setup();
    t.loader.sourceChanged('a.glb');
    await settle();
    const shown = await finish(t, 'a.glb');
    t.loader.sourceChanged('b.glb');
    expect(t.loader.loaded).toBe(false);
    t.loader.sourceChanged('b.glb'); // already loading: not restarted
    t.loader.sourceChanged('a.glb');
    expect([t.loader.model, t.loader.loading, t.loader.loaded]).toEqual([shown, undefined, true]);
    await settle();
    expect(t.fetches).toHaveLength(1);
    expect(t.taken()).toEqual(['stopped', 'message -', 'started', 'committed a.glb a.glb', 'stopped', 'message -', 'started', 'stopped']);
  });

  it('a cancelled load never commits, even when its upload finishes', async () => {
    const t = setup();
    t.loader.sourceChanged('a.glb');
    await settle();
    t.fetches[0].resolve(modelNamed('a'));
    await settle();
    expect(t.uploads).toHaveLength(1);
    t.loader.cancel();
    t.uploads[0].resolve();
    await settle();
    expect(t.taken()).toEqual(['stopped', 'message -', 'started', 'stopped']);
    expect([t.loader.model, t.loader.loaded]).toEqual([undefined, false]);
  });

  it('a superseded load that fails late reports nothing; the current one reports its phase and clears', async () => {
    const t = await supersededLoad();
    t.taken();
    t.fetches[0].reject(new Error('404'));
    await settle();
    expect(t.taken()).toEqual([]);
    t.fetches[1].resolve(modelNamed('b'));
    await settle();
    t.uploads[0].reject(new Error('out of memory'));
    await settle();
    expect(t.taken()).toEqual(['cleared', 'failed gpu b.glb: out of memory']);
    expect(t.loader.loading).toBeUndefined();
    // A failed fetch is a load error.
    t.loader.sourceChanged('c.glb');
    await settle();
    t.fetches[2].reject(new Error('not glTF'));
    await settle();
    expect(t.taken().slice(-2)).toEqual(['cleared', 'failed load c.glb: not glTF']);
  });

  it('leaves a missing WebGPU and aborts to whoever reported them', async () => {
    const t = setup();
    const gpu = deferred<string>();
    t.setGpu(gpu);
    t.loader.sourceChanged('a.glb');
    await settle();
    t.fetches[0].resolve(modelNamed('a'));
    gpu.reject(new WebGpuUnsupportedError('no WebGPU here'));
    await settle();
    t.loader.sourceChanged('b.glb');
    await settle();
    t.fetches[1].reject(new DOMException('gone', 'AbortError'));
    await settle();
    expect(t.taken().filter((e) => e.startsWith('failed') || e === 'cleared')).toEqual([]);
    // Once the host knows WebGPU is missing, a new source shows why instead of loading.
    t.setUnsupported('no WebGPU here');
    t.loader.sourceChanged('c.glb');
    await settle();
    expect(t.fetches).toHaveLength(2);
    expect(t.taken()).toEqual(['stopped', 'message -', 'message no WebGPU here']);
  });

  it('show() during a load replaces it: no fetch, the given model committed as model:NAME', async () => {
    const t = setup();
    t.loader.sourceChanged('a.glb');
    await settle();
    const mine = modelNamed('Mine');
    t.loader.show(mine);
    expect(t.fetches[0].signal.aborted).toBe(true);
    expect(t.loader.loading).toBe('model:Mine');
    await finish(t, 'a.glb');
    await settle();
    expect(t.uploads.map((u) => u.model)).toEqual([mine]);
    t.uploads[0].resolve();
    await settle();
    expect(t.fetches).toHaveLength(1);
    expect(t.taken()).toEqual(['stopped', 'message -', 'started', 'stopped', 'message -', 'committed model:Mine Mine']);
    expect([t.loader.model, t.loader.source, t.loader.loaded]).toEqual([mine, 'model:Mine', true]);
  });

  it('removal during a load (cancel) drops it; re-insertion loads again unless the model is shown', async () => {
    const t = setup();
    t.loader.connected('a.glb');
    await settle();
    t.loader.cancel();
    await finish(t, 'a.glb');
    expect(t.loader.model).toBeUndefined();
    t.loader.connected('a.glb');
    await settle();
    expect(t.fetches).toHaveLength(2);
    await finish(t, 'a.glb');
    expect(t.loader.source).toBe('a.glb');
    t.taken();
    t.loader.cancel();
    t.loader.connected('a.glb');
    t.loader.connected(undefined);
    expect(t.taken()).toEqual(['stopped']);
    expect(t.fetches).toHaveLength(2);
  });

  it('no source during a load cancels it and clears what is shown; with no load in flight, what is shown stays', async () => {
    const t = setup();
    t.loader.sourceChanged('a.glb');
    await settle();
    const shown = await finish(t, 'a.glb');
    t.taken();
    t.loader.sourceChanged(undefined);
    expect(t.taken()).toEqual([]);
    expect([t.loader.model, t.loader.loaded]).toEqual([shown, true]);
    t.loader.sourceChanged('b.glb');
    t.loader.sourceChanged(undefined);
    expect(t.taken()).toEqual(['stopped', 'message -', 'started', 'stopped', 'message -', 'cleared']);
    expect([t.loader.model, t.loader.source, t.loader.loaded]).toEqual([undefined, undefined, false]);
  });
});
