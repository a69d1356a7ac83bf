/**
 * KHR_animation_pointer's channel reader (khr-animation-pointer.ts says what is animated): a
 * channel's pointer checked and resolved against the file's JSON. Loaded by load.ts only for a
 * file with a pointer channel (pointer-presence.ts); animations.ts reads such channels with it.
 */
import { TargetPath } from '../constants.ts';
import { GltfError } from '../errors.ts';
import { describe, isObject, optArray, type JsonObject } from '../json.ts';
import { MaterialAnimOffset, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset } from './khr-animation-pointer.ts';

const O = MaterialAnimOffset;
/**
 * The material extensions' properties a pointer may animate (`/materials/M/extensions/<name>/<property>`):
 * where the value lives in the MaterialAnimOffset layout and its size. Pointers at an extension the
 * material does not use, and at extension textures' transforms, are ignored.
 */
export const EXTENSION_PROPERTIES: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>> = {
  KHR_materials_emissive_strength: { emissiveStrength: [O.EMISSIVE_STRENGTH, 1] },
  KHR_materials_clearcoat: { clearcoatFactor: [O.CLEARCOAT_FACTOR, 1], clearcoatRoughnessFactor: [O.CLEARCOAT_ROUGHNESS_FACTOR, 1] },
  KHR_materials_specular: { specularFactor: [O.SPECULAR_FACTOR, 1], specularColorFactor: [O.SPECULAR_COLOR_FACTOR, 3] },
  KHR_materials_ior: { ior: [O.IOR, 1] },
  KHR_materials_sheen: { sheenColorFactor: [O.SHEEN_COLOR_FACTOR, 3], sheenRoughnessFactor: [O.SHEEN_ROUGHNESS_FACTOR, 1] },
  KHR_materials_transmission: { transmissionFactor: [O.TRANSMISSION_FACTOR, 1] },
  KHR_materials_volume: { thicknessFactor: [O.THICKNESS_FACTOR, 1], attenuationDistance: [O.ATTENUATION_DISTANCE, 1], attenuationColor: [O.ATTENUATION_COLOR, 3] },
  KHR_materials_iridescence: {
    iridescenceFactor: [O.IRIDESCENCE_FACTOR, 1], iridescenceIor: [O.IRIDESCENCE_IOR, 1],
    iridescenceThicknessMinimum: [O.IRIDESCENCE_THICKNESS_MINIMUM, 1], iridescenceThicknessMaximum: [O.IRIDESCENCE_THICKNESS_MAXIMUM, 1],
  },
  KHR_materials_anisotropy: { anisotropyStrength: [O.ANISOTROPY_STRENGTH, 1], anisotropyRotation: [O.ANISOTROPY_ROTATION, 1] },
  KHR_materials_dispersion: { dispersion: [O.DISPERSION, 1] },
  KHR_materials_diffuse_transmission: { diffuseTransmissionFactor: [O.DIFFUSE_TRANSMISSION_FACTOR, 1], diffuseTransmissionColorFactor: [O.DIFFUSE_TRANSMISSION_COLOR_FACTOR, 3] },
};

/** What a pointer names. `components` is the value size per key (weights: the morph target count, set by the caller). */
export type PointerTarget =
  | { readonly kind: 'node'; readonly node: number; readonly path: TargetPath }
  | { readonly kind: 'mesh-weights'; readonly mesh: number }
  | { readonly kind: 'material'; readonly material: number; readonly offset: number; readonly components: number }
  | { readonly kind: 'ignored' };

const IGNORED: PointerTarget = Object.freeze({ kind: 'ignored' });

const NODE_PATHS: Readonly<Record<string, TargetPath>> = {
  translation: TargetPath.TRANSLATION,
  rotation: TargetPath.ROTATION,
  scale: TargetPath.SCALE,
  weights: TargetPath.WEIGHTS,
};

/** Texture slot by its JSON location: [parent key or '', texture key]. */
const SLOTS: readonly (readonly [string, string, number])[] = [
  ['pbrMetallicRoughness', 'baseColorTexture', TextureSlot.BASE_COLOR],
  ['pbrMetallicRoughness', 'metallicRoughnessTexture', TextureSlot.METALLIC_ROUGHNESS],
  ['', 'normalTexture', TextureSlot.NORMAL],
  ['', 'occlusionTexture', TextureSlot.OCCLUSION],
  ['', 'emissiveTexture', TextureSlot.EMISSIVE],
];
const UV_PROPERTIES: Readonly<Record<string, readonly [number, number]>> = {
  offset: [UvTransformOffset.OFFSET, 2],
  rotation: [UvTransformOffset.ROTATION, 1],
  scale: [UvTransformOffset.SCALE, 2],
};

/** The channel's pointer string (`target` at `path`), checked to be a JSON pointer. */
export function channelPointer(target: JsonObject, path: string): string {
  const extPath = `${path}.extensions.KHR_animation_pointer`;
  const exts = target.extensions;
  const ext = exts !== null && typeof exts === 'object' && !Array.isArray(exts) && Object.hasOwn(exts, 'KHR_animation_pointer')
    ? (exts as JsonObject).KHR_animation_pointer : undefined;
  if (ext === null || typeof ext !== 'object' || Array.isArray(ext)) {
    throw new GltfError(extPath, 'a "pointer" channel needs the KHR_animation_pointer extension object');
  }
  const pointer = (ext as JsonObject).pointer;
  if (typeof pointer !== 'string') throw new GltfError(`${extPath}.pointer`, `${describe(pointer)} is not a string`);
  if (!pointer.startsWith('/') || /~(?![01])/.test(pointer)) throw new GltfError(`${extPath}.pointer`, `${describe(pointer)} is not a JSON pointer`);
  return pointer;
}

/** Resolves a pointer (from `channelPointer`) against the file's JSON `root`; `path` names it in errors. */
export function resolvePointer(pointer: string, root: JsonObject, path: string): PointerTarget {
  const tokens = pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const collection = tokens[0];
  if (collection !== 'nodes' && collection !== 'meshes' && collection !== 'materials') return IGNORED;
  const length = optArray(root, collection, '').length;
  const token = tokens[1];
  if (token === undefined || !/^(0|[1-9]\d*)$/.test(token)) throw new GltfError(path, `${describe(pointer)}: ${describe(token ?? '')} is not an index into ${collection}`);
  const index = Number(token);
  if (index >= length) throw new GltfError(path, `${describe(pointer)}: ${collection}[${index}] does not exist (${length} ${collection})`);
  const rest = tokens.slice(2);
  if (collection === 'nodes') {
    const p = rest.length === 1 && Object.hasOwn(NODE_PATHS, rest[0]) ? NODE_PATHS[rest[0]] : undefined;
    return p === undefined ? IGNORED : { kind: 'node', node: index, path: p };
  }
  if (collection === 'meshes') return rest.length === 1 && rest[0] === 'weights' ? { kind: 'mesh-weights', mesh: index } : IGNORED;
  return materialTarget(index, rest, optArray(root, 'materials', '')[index]);
}

function materialTarget(material: number, rest: readonly string[], json: unknown): PointerTarget {
  const key = rest.join('/');
  if (rest.length === 3 && rest[0] === 'extensions') {
    const properties = Object.hasOwn(EXTENSION_PROPERTIES, rest[1]) ? EXTENSION_PROPERTIES[rest[1]] : undefined;
    const property = properties && Object.hasOwn(properties, rest[2]) ? properties[rest[2]] : undefined;
    // A value of an extension the material does not use would animate nothing that is drawn.
    const exts = isObject(json) && isObject(json.extensions) ? json.extensions : undefined;
    if (!property || !exts || !isObject(exts[rest[1]])) return IGNORED;
    return { kind: 'material', material, offset: property[0], components: property[1] };
  }
  if (key === 'pbrMetallicRoughness/baseColorFactor') return { kind: 'material', material, offset: MaterialAnimOffset.BASE_COLOR_FACTOR, components: 4 };
  if (key === 'emissiveFactor') return { kind: 'material', material, offset: MaterialAnimOffset.EMISSIVE_FACTOR, components: 3 };
  if (key === 'alphaCutoff') return { kind: 'material', material, offset: MaterialAnimOffset.ALPHA_CUTOFF, components: 1 };
  for (const [parent, texture, slot] of SLOTS) {
    const prefix = parent ? [parent, texture] : [texture];
    const n = prefix.length;
    if (rest.length !== n + 3 || prefix.some((p, i) => rest[i] !== p)) continue;
    if (rest[n] !== 'extensions' || rest[n + 1] !== 'KHR_texture_transform' || !Object.hasOwn(UV_PROPERTIES, rest[n + 2])) continue;
    const [at, components] = UV_PROPERTIES[rest[n + 2]];
    return { kind: 'material', material, offset: MaterialAnimOffset.UV_TRANSFORM + slot * UV_TRANSFORM_FLOATS + at, components };
  }
  return IGNORED;
}

/** What animations.ts reads pointer channels with (this module, once imported). */
export interface PointerReader {
  channelPointer(target: JsonObject, path: string): string;
  resolvePointer(pointer: string, root: JsonObject, path: string): PointerTarget;
}
