import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { ModelShape } from '../../../src/gltf/model-shape.ts';
import { assetPath } from '../../support/assets.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { elementSource, fileNameOf, loadModelSource, SourceError } from '../../../src/element/loading/source.ts';

/** A fetch serving `files` (by absolute URL), streaming each body in `chunk`-byte pieces. */
function fakeFetch(files: Record<string, Uint8Array>, chunk = 64 * 1024, withLength = true) {
  const requested: string[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    requested.push(url);
    if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const body = files[url];
    if (!body) return new Response('nope', { status: 404, statusText: 'Not Found' });
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) {
          controller.close();
          return;
        }
        controller.enqueue(body.slice(offset, offset + chunk));
        offset += chunk;
      },
    });
    return new Response(stream, { status: 200, headers: withLength ? { 'content-length': String(body.length) } : {} });
  }) as typeof globalThis.fetch;
  return { fetch, requested };
}

const CHARACTER = buildBuiltinGlb('character');

describe('loadModelSource', () => {
  it('fails with the URL and HTTP status, or the loader’s GltfError, for bad sources', async () => {
    const { fetch } = fakeFetch({ 'https://example.test/m/not.glb': new TextEncoder().encode('<html>') });
    await expect(loadModelSource('missing.glb', { baseUrl: 'https://example.test/m/', fetch }))
      .rejects.toThrow(new SourceError('https://example.test/m/missing.glb', 404, 'https://example.test/m/missing.glb: HTTP 404 Not Found'));
    await expect(loadModelSource('not.glb', { baseUrl: 'https://example.test/m/', fetch })).rejects.toBeInstanceOf(GltfError);
    // Bytes that are not glTF at all (here a server's HTML page) name the URL, as a failed fetch does.
    await expect(loadModelSource('not.glb', { baseUrl: 'https://example.test/m/', fetch })).rejects.toThrow(
      'https://example.test/m/not.glb: not a glTF file: neither a GLB (no "glTF" magic) nor glTF JSON (no "{" first); it begins "<html>" (markup: an HTML page, such as a server\'s error page?)');
    await expect(loadModelSource('builtin:teapot', { baseUrl: 'https://example.test/' })).rejects.toThrow(/unknown built-in model "teapot"/);
  });

  it('builds builtin: models without fetching, reporting their size once', async () => {
    const progress: [number, number][] = [];
    const { fetch, requested } = fakeFetch({});
    const model = await loadModelSource('builtin:character', { baseUrl: 'https://example.test/', fetch, onProgress: (l, t) => progress.push([l, t]) });
    expect(model.name).toBe('builtin:character');
    expect(model.animations.map((c) => c.name)).toEqual(['Walk', 'Idle', 'Wave']);
    expect(requested).toEqual([]);
    expect(progress).toEqual([[CHARACTER.length, CHARACTER.length]]);
  });

  it('streams with progress that only grows and ends at the announced size', async () => {
    const { fetch } = fakeFetch({ 'https://example.test/a/Character%20One.glb': CHARACTER }, 50_000);
    const progress: [number, number][] = [];
    const model = await loadModelSource('Character%20One.glb', { baseUrl: 'https://example.test/a/page.html', fetch, onProgress: (l, t) => progress.push([l, t]) });
    expect(model.name).toBe('Character One.glb');
    expect(progress.length).toBe(Math.ceil(CHARACTER.length / 50_000));
    expect(progress.at(-1)).toEqual([CHARACTER.length, CHARACTER.length]);
    for (let i = 1; i < progress.length; i++) expect(progress[i][0]).toBeGreaterThan(progress[i - 1][0]);
    expect(progress.every(([, total]) => total === CHARACTER.length)).toBe(true);
  });

  it('reports total 0 while the server announces no size', async () => {
    const { fetch } = fakeFetch({ 'https://example.test/c.glb': CHARACTER }, 100_000, false);
    const progress: [number, number][] = [];
    await loadModelSource('/c.glb', { baseUrl: 'https://example.test/x/', fetch, onProgress: (l, t) => progress.push([l, t]) });
    expect(progress.at(-1)).toEqual([CHARACTER.length, 0]);
  });

  it('fetches a .gltf’s external buffer relative to the .gltf, not the page, and counts it in the progress', async () => {
    const { json, bin } = parseGlb(CHARACTER);
    const root = json as { buffers: { uri?: string }[] };
    root.buffers[0].uri = 'data/my%20buffer.bin';
    const gltf = new TextEncoder().encode(JSON.stringify(root));
    const { fetch, requested } = fakeFetch({
      'https://cdn.test/models/character.gltf': gltf,
      'https://cdn.test/models/data/my%20buffer.bin': bin!,
    });
    const progress: [number, number][] = [];
    const model = await loadModelSource('https://cdn.test/models/character.gltf', { baseUrl: 'https://page.test/', fetch, onProgress: (l, t) => progress.push([l, t]) });
    expect(model.meshNodes.length).toBeGreaterThan(0);
    expect(requested).toEqual(['https://cdn.test/models/character.gltf', 'https://cdn.test/models/data/my%20buffer.bin']);
    expect(progress.at(-1)).toEqual([gltf.length + bin!.length, gltf.length + bin!.length]);
  });

  it('refuses a .gltf resource on another origin or scheme, naming the buffer', async () => {
    const { json } = parseGlb(CHARACTER);
    const root = json as { buffers: { uri?: string }[] };
    for (const uri of ['//evil.test/x.bin', 'https://evil.test/x.bin', 'javascript:alert(1)', 'file:///etc/passwd']) {
      root.buffers[0].uri = uri;
      const { fetch, requested } = fakeFetch({ 'https://cdn.test/m.gltf': new TextEncoder().encode(JSON.stringify(root)) });
      await expect(loadModelSource('https://cdn.test/m.gltf', { baseUrl: 'https://page.test/', fetch })).rejects.toThrow(/buffers\[0\]\.uri: could not load/);
      expect(requested).toEqual(['https://cdn.test/m.gltf']);
    }
  });

  it('with credentials: "include", every fetch of the load (the .gltf and its buffer) sends them; by default none is asked for', async () => {
    const { json, bin } = parseGlb(CHARACTER);
    const root = json as { buffers: { uri?: string }[] };
    root.buffers[0].uri = 'b.bin';
    const files = { 'https://cdn.test/m.gltf': new TextEncoder().encode(JSON.stringify(root)), 'https://cdn.test/b.bin': bin! };
    const modes: (RequestCredentials | undefined)[] = [];
    const { fetch: inner } = fakeFetch(files);
    const fetch = ((input: string, init?: RequestInit) => { modes.push(init?.credentials); return inner(input, init); }) as typeof globalThis.fetch;
    await loadModelSource('https://cdn.test/m.gltf', { baseUrl: 'https://page.test/', fetch, credentials: 'include' });
    expect(modes).toEqual(['include', 'include']);
    modes.length = 0;
    await loadModelSource('https://cdn.test/m.gltf', { baseUrl: 'https://page.test/', fetch });
    expect(modes).toEqual([undefined, undefined]);
  });

  it('stops when aborted', async () => {
    const { fetch } = fakeFetch({ 'https://example.test/c.glb': CHARACTER });
    const abort = new AbortController();
    abort.abort();
    await expect(loadModelSource('c.glb', { baseUrl: 'https://example.test/', fetch, signal: abort.signal })).rejects.toThrow(/abort/i);
  });
});

describe('loadModelSource: the model\'s shape for the pipeline forecast (onShape)', () => {
  const FOX = readFileSync(assetPath('Fox'));
  const BASE = 'https://example.test/m/';

  it('a GLB: once, from its JSON chunk, while the BIN chunk is still downloading', async () => {
    const { fetch } = fakeFetch({ [`${BASE}Fox.glb`]: FOX }, 4096);
    let loaded = 0;
    const at: number[] = [];
    const shapes: ModelShape[] = [];
    const model = await loadModelSource('Fox.glb', {
      baseUrl: BASE, fetch, onProgress: (l) => { loaded = l; }, onShape: (shape) => { shapes.push(shape); at.push(loaded); },
    });
    expect(shapes).toHaveLength(1);
    expect(shapes[0].draws).toHaveLength(1);
    // The JSON chunk is the first few KB of the Fox's 160 KB: delivered long before the last byte.
    expect(at[0]).toBeLessThan(FOX.length / 4);
    expect(model.meshNodes).toHaveLength(1);
  });

  it('a .gltf: once, from loadGltf; a GLB streamed 7 bytes at a time: once', async () => {
    const glb = parseGlb(CHARACTER);
    const gltf = new TextEncoder().encode(JSON.stringify({ ...(glb.json as object), buffers: [{ uri: 'c.bin', byteLength: glb.bin!.length }] }));
    const { fetch } = fakeFetch({ [`${BASE}c.gltf`]: gltf, [`${BASE}c.bin`]: glb.bin!, [`${BASE}c.glb`]: CHARACTER }, 7);
    for (const file of ['c.gltf', 'c.glb']) {
      const shapes: ModelShape[] = [];
      await loadModelSource(file, { baseUrl: BASE, fetch, onShape: (s) => shapes.push(s) });
      expect(shapes, file).toHaveLength(1);
    }
  });

  it('a GLB whose header promises more JSON than the file has: no shape, no wait; the load fails as it always did', async () => {
    const lying = CHARACTER.slice();
    new DataView(lying.buffer).setUint32(12, 0xfffffff0, true);
    const { fetch } = fakeFetch({ [`${BASE}lying.glb`]: lying }, 4096);
    const shapes: ModelShape[] = [];
    await expect(loadModelSource('lying.glb', { baseUrl: BASE, fetch, onShape: (s) => shapes.push(s) })).rejects.toBeInstanceOf(GltfError);
    expect(shapes).toEqual([]);
  });
});

describe('URI helpers', () => {
  it('name a model by its decoded file name', () => {
    expect(fileNameOf(new URL('https://x.test/a/b%20c.glb?v=2'))).toBe('b c.glb');
    expect(fileNameOf(new URL('https://x.test/'))).toBe('x.test');
  });
});

describe('elementSource', () => {
  const element = (attrs: Record<string, string>) => ({ getAttribute: (name: string) => attrs[name] ?? null });
  it('is src (trimmed), else builtin:NAME, else undefined; blank values do not count', () => {
    expect(elementSource(element({ src: ' a.glb ', builtin: 'limb' }))).toBe('a.glb');
    expect(elementSource(element({ src: '  ', builtin: ' limb ' }))).toBe('builtin:limb');
    expect(elementSource(element({ builtin: '' }))).toBeUndefined();
  });
});
