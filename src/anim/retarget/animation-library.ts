import { GltfError } from '../../gltf/errors.ts';
import type { HumanoidMap } from '../../gltf/humanoid.ts';
import { loadGltf, type LoadOptions } from '../../gltf/load.ts';
import type { Clip, Model } from '../../gltf/model.ts';
import { resolveGltfUri } from '../../gltf/uri.ts';
import type { RetargetSkeleton } from './joint-map.ts';

/**
 * Clips to play on other characters: any glTF — a full character, or an animation-only file
 * with nodes and animations but no mesh or skin (what Blender writes for a Mixamo clip exported
 * without its character) — loaded as a skeleton and its clips, with the file's VRM humanoid map
 * when it has one (`Model.humanoid`). Pass it as the source of `retargetClips`; a target needs
 * no clips, so any loaded model (a VRM avatar's included) is one as it is.
 */
export interface AnimationLibrary extends RetargetSkeleton {
  /** The file's nodes (its skeleton) and everything else it holds. */
  readonly model: Model;
  /** `model.animations`: the clips, on `model`'s slots until retargeted. */
  readonly clips: readonly Clip[];
  /** `model.humanoid`: the VRM humanoid bones by node index; absent when the file has no VRM extension. */
  readonly humanoid?: HumanoidMap;
}

export interface AnimationLibraryOptions extends LoadOptions {
  /** Resolves a relative URL `source` (default: the page's location when there is one). */
  readonly baseUrl?: string;
  /** The fetch to use for a URL `source` and its external files (default: the global `fetch`). */
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}

/**
 * Loads a clip library from bytes, or from a URL (its external buffers fetched relative to it).
 * Throws GltfError for a broken file, and for a file with no animations at all.
 */
export async function loadAnimationLibrary(source: Uint8Array | string | URL, options: AnimationLibraryOptions = {}): Promise<AnimationLibrary> {
  let bytes: Uint8Array;
  let loadOptions: LoadOptions = options;
  if (source instanceof Uint8Array) {
    bytes = source;
  } else {
    const base = options.baseUrl ?? (typeof location !== 'undefined' ? location.href : undefined);
    const url = new URL(source, base);
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    const get = async (u: URL): Promise<Uint8Array> => {
      const response = await fetchFn(u, { signal: options.signal });
      if (!response.ok) throw new Error(`animation library ${u.href}: HTTP ${response.status} ${response.statusText}`.trim());
      return new Uint8Array(await response.arrayBuffer());
    };
    bytes = await get(url);
    const name = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? url.hostname);
    loadOptions = { name, ...options, resolveUri: (_decoded, raw) => get(resolveGltfUri(url, raw)) };
  }
  const model = await loadGltf(bytes, loadOptions);
  if (model.animations.length === 0) throw new GltfError('animations', `${model.name} has no animations to use as a clip library`);
  return { model, clips: model.animations, ...(model.humanoid ? { humanoid: model.humanoid } : {}) };
}
