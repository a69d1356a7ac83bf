import { resolveGltfUri } from '../../gltf/uri.ts';
import { NotGltfError } from '../../gltf/errors.ts';
import { loadGltf, type LoadOptions } from '../../gltf/load.ts';
import type { Model } from '../../gltf/model.ts';
import { builtinNameOf } from '../attributes.ts';
import { EarlyShape } from './early-shape.ts';

/**
 * Turning an element's `src` into a Model: `builtin:NAME` builds a procedural model in
 * memory; anything else is a URL fetched with streamed progress, whose `.gltf` external
 * buffers and images are fetched relative to it. Nothing here touches the GPU or the DOM,
 * so it runs (and is tested) in Node with an injected `fetch`.
 */

/** An element's own source: `src`, else `builtin:NAME` from its `builtin` attribute, else undefined. */
export function elementSource(element: Pick<Element, 'getAttribute'>): string | undefined {
  const src = element.getAttribute('src');
  if (src !== null && src.trim() !== '') return src.trim();
  const builtin = element.getAttribute('builtin');
  if (builtin !== null && builtin.trim() !== '') return `builtin:${builtin.trim()}`;
  return undefined;
}

/** An HTTP failure, reported with the URL and status so a page author can fix the path. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(readonly url: string, readonly status: number, message: string) {
    super(message);
  }
}

/** Options of `loadModelSource`: the base URL, cancellation, progress, credentials and the fetch to use. */
export interface LoadSourceOptions {
  /** Resolves relative `src` values (the document's base URL in a page). */
  readonly baseUrl: string;
  /** Aborting stops every fetch of this load; the promise then rejects with the abort reason. */
  readonly signal?: AbortSignal;
  /**
   * Bytes received so far over every file of the load, and the sum of the sizes the server
   * announced (Content-Length); `total` is 0 while no size is known. Never decreases.
   */
  readonly onProgress?: (loaded: number, total: number) => void;
  /**
   * The fetch to use for the model and its external files (default: the global `fetch`); Node and tests
   * inject their own.
   */
  readonly fetch?: typeof fetch;
  /**
   * The fetches' credentials mode (default: the browser's, `same-origin`); `include` sends
   * cookies and HTTP authentication cross-origin, as model-viewer's `with-credentials` does.
   */
  readonly credentials?: RequestCredentials;
  /** Told the model's shape once its JSON is parsed (LoadOptions.onShape). */
  readonly onShape?: LoadOptions['onShape'];
}

/** The last path segment of a URL, decoded: the model's name. */
export function fileNameOf(url: URL): string {
  const segment = url.pathname.split('/').filter((s) => s.length > 0).pop() ?? url.hostname;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Loads what an element's `src` names into a Model: `builtin:NAME` is built in memory, anything else is
 * fetched as a URL (with streamed progress), and a `.gltf`'s external buffers and images are fetched relative
 * to it. Throws a SourceError for a failed fetch, a GltfError for a bad file (a NotGltfError, naming the
 * URL, for bytes that are not glTF at all).
 */
export async function loadModelSource(source: string, options: LoadSourceOptions): Promise<Model> {
  const builtin = builtinNameOf(source);
  if (builtin !== undefined) {
    // Imported on demand: a page that shows its own file never fetches the generated models (first load).
    const { buildBuiltinGlb } = await import('../../builtin/index.ts');
    const bytes = buildBuiltinGlb(builtin);
    options.onProgress?.(bytes.byteLength, bytes.byteLength);
    return loadGltf(bytes, { name: source, onShape: options.onShape });
  }
  const url = new URL(source, options.baseUrl);
  const progress = new ProgressSum(options.onProgress);
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const init: RequestInit = {};
  if (options.signal) init.signal = options.signal;
  if (options.credentials) init.credentials = options.credentials;
  // A GLB's JSON chunk comes first: its shape goes out while the rest downloads.
  const early = options.onShape ? new EarlyShape(options.onShape) : undefined;
  const bytes = await fetchBytes(fetchFn, url, init, progress, early);
  // Bytes that are not glTF at all (often a server's HTML page served with 200) name the URL, as a failed fetch does.
  return loadGltf(bytes, {
    name: fileNameOf(url),
    onShape: early?.delivered ? undefined : options.onShape,
    // glTF URIs are relative to the file that names them (glTF 2.0 §3.6.1.1); the policy
    // refuses other origins (`//evil.example/x.bin`), other schemes and credentials.
    resolveUri: (_decoded, raw) => fetchBytes(fetchFn, resolveGltfUri(url, raw), init, progress),
  }).catch((error: unknown) => {
    throw error instanceof NotGltfError ? error.from(url.href) : error;
  });
}

/** Progress summed over the main file and its external resources. */
class ProgressSum {
  private loaded = 0;
  private total = 0;
  constructor(private readonly report: ((loaded: number, total: number) => void) | undefined) {}

  announce(bytes: number): void {
    this.total += bytes;
  }

  add(bytes: number): void {
    this.loaded += bytes;
    // A compressed response announces its compressed size but streams decompressed bytes.
    if (this.total > 0 && this.loaded > this.total) this.total = this.loaded;
    this.report?.(this.loaded, this.total);
  }
}

async function fetchBytes(fetchFn: typeof fetch, url: URL, init: RequestInit, progress: ProgressSum, early?: EarlyShape): Promise<Uint8Array> {
  const response = await fetchFn(url.href, init);
  if (!response.ok) {
    throw new SourceError(url.href, response.status, `${url.href}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  const announced = Number(response.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > 0) progress.announce(announced);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    progress.add(bytes.byteLength);
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
    progress.add(value.byteLength);
    early?.add(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
