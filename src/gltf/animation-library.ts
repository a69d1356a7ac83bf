import type { HumanoidMap, RetargetSkeleton } from '../anim/retarget/joint-map.ts';
import { humanoidBoneOfVrm, type HumanoidBone } from '../anim/retarget/humanoid.ts';
import { GltfError } from './errors.ts';
import { isGlb, parseGlb, parseJsonBytes } from './glb.ts';
import { asObject, checkIndex, describe, isObject, optArray, optObject, type JsonObject } from './json.ts';
import { loadGltf, type LoadOptions } from './load.ts';
import type { Clip, Model } from './model.ts';
import { resolveGltfUri } from './uri.ts';

/**
 * Clips to play on other characters: any glTF — a full character, or an animation-only file
 * with nodes and animations but no mesh or skin (what Blender writes for a Mixamo clip exported
 * without its character) — loaded as a skeleton and its clips, plus the file's VRM humanoid map
 * when it has one (VRM 0.x `extensions.VRM.humanoid`, VRM 1.0 `VRMC_vrm.humanoid`). Pass it as
 * the source (or, for a VRM avatar, the target) of `retargetClips`.
 */
export interface AnimationLibrary extends RetargetSkeleton {
  /** The file's nodes (its skeleton) and everything else it holds. */
  readonly model: Model;
  /** `model.animations`: the clips, on `model`'s slots until retargeted. */
  readonly clips: readonly Clip[];
  /** The VRM humanoid bones by node index; absent when the file has no VRM extension. */
  readonly humanoid?: HumanoidMap;
}

export interface AnimationLibraryOptions extends LoadOptions {
  /** Resolves a relative URL `source` (default: the page's location when there is one). */
  readonly baseUrl?: string;
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
  const humanoid = readVrmHumanoid(asObject(isGlb(bytes) ? parseGlb(bytes).json : parseJsonBytes(bytes, ''), '(root)'), model.nodes.length);
  return { model, clips: model.animations, ...(humanoid ? { humanoid } : {}) };
}

/** The VRM humanoid map of a glTF JSON root (1.0 preferred), or undefined when there is none. Checks node indices and bone names. */
export function readVrmHumanoid(root: JsonObject, nodeCount: number): HumanoidMap | undefined {
  const extensions = optObject(root, 'extensions', '');
  if (!extensions) return undefined;
  const out: Partial<Record<HumanoidBone, number>> = {};
  const add = (boneName: unknown, node: unknown, path: string, version: 0 | 1): void => {
    if (typeof boneName !== 'string') throw new GltfError(path, `bone name ${describe(boneName)} is not a string`);
    const bone = humanoidBoneOfVrm(boneName, version);
    if (bone === undefined) return; // A bone we have no use for (VRM allows more than we map).
    out[bone] = checkIndex(node, `${path}.node`, nodeCount, 'nodes');
  };
  const vrm1 = optObject(extensions, 'VRMC_vrm', 'extensions');
  if (vrm1) {
    const path = 'extensions.VRMC_vrm.humanoid.humanBones';
    const bones = optObject(asObject(vrm1.humanoid, 'extensions.VRMC_vrm.humanoid'), 'humanBones', 'extensions.VRMC_vrm.humanoid');
    if (!bones) throw new GltfError(path, 'is missing');
    for (const [name, entry] of Object.entries(bones)) add(name, asObject(entry, `${path}.${name}`).node, `${path}.${name}`, 1);
    return out;
  }
  const vrm0 = optObject(extensions, 'VRM', 'extensions');
  if (vrm0) {
    const path = 'extensions.VRM.humanoid.humanBones';
    const list = optArray(asObject(vrm0.humanoid, 'extensions.VRM.humanoid'), 'humanBones', 'extensions.VRM.humanoid');
    list.forEach((entry, i) => {
      if (!isObject(entry)) throw new GltfError(`${path}[${i}]`, 'is not an object');
      add(entry.bone, entry.node, `${path}[${i}]`, 0);
    });
    return out;
  }
  return undefined;
}
