/**
 * KHR_animation_pointer: an animation channel whose `target.path` is "pointer" names the
 * animated property by a JSON pointer (RFC 6901) in `target.extensions.KHR_animation_pointer.pointer`.
 *
 * What we animate:
 * - `/nodes/N/translation|rotation|scale|weights` and `/meshes/M/weights`: mapped onto core
 *   channels (animations.ts), so they sample exactly as core channels do;
 * - `/materials/M/pbrMetallicRoughness/baseColorFactor`, `/materials/M/emissiveFactor`,
 *   `/materials/M/alphaCutoff`, `…/<slot>Texture/extensions/KHR_texture_transform/offset|rotation|scale`
 *   of the five texture slots, and the material extensions' factors (`EXTENSION_PROPERTIES`:
 *   `/materials/M/extensions/KHR_materials_clearcoat/clearcoatFactor`…): material tracks (`Clip.materialTracks`), sampled per frame by
 *   src/anim/material-tracks.ts and written into the material uniforms (src/gpu/model/material-animation.ts).
 *
 * Every other pointer (cameras, lights, other material properties…; the Khronos sample viewer
 * animates more of them) is ignored and listed in one warning. A pointer that is not a JSON
 * pointer, or indexes past the end of `nodes`, `meshes` or `materials`, is refused.
 */
import { TargetPath } from '../constants.ts';
import { GltfError } from '../errors.ts';
import { describe, isObject, optArray, type JsonObject } from '../json.ts';
import type { GltfExtension } from './types.ts';

export const KHR_ANIMATION_POINTER: GltfExtension = { name: 'KHR_animation_pointer' };

/** Texture slots in the order of the material uniforms' UV matrices. */
export const TextureSlot = { BASE_COLOR: 0, METALLIC_ROUGHNESS: 1, NORMAL: 2, OCCLUSION: 3, EMISSIVE: 4 } as const;
export const TEXTURE_SLOT_COUNT = 5;

/**
 * Layout of one material's animated values (floats): what a material track writes at
 * `MaterialTrack.offset`, and what material-tracks.ts keeps per animated material.
 */
export const MaterialAnimOffset = {
  /** 4 floats, linear RGBA. */
  BASE_COLOR_FACTOR: 0,
  /** 3 floats, before KHR_materials_emissive_strength. */
  EMISSIVE_FACTOR: 4,
  ALPHA_CUTOFF: 7,
  /** Per texture slot s, at UV_TRANSFORM + s × UV_TRANSFORM_FLOATS: offset (2), rotation (1), scale (2). */
  UV_TRANSFORM: 8,
  // The material extensions' animatable values (EXTENSION_PROPERTIES), each as its extension names it.
  EMISSIVE_STRENGTH: 33,
  CLEARCOAT_FACTOR: 34,
  CLEARCOAT_ROUGHNESS_FACTOR: 35,
  SPECULAR_FACTOR: 36,
  /** 3 floats. */
  SPECULAR_COLOR_FACTOR: 37,
  IOR: 40,
  /** 3 floats. */
  SHEEN_COLOR_FACTOR: 41,
  SHEEN_ROUGHNESS_FACTOR: 44,
  TRANSMISSION_FACTOR: 45,
  THICKNESS_FACTOR: 46,
  /** 0 for infinity (no attenuation): the values stay finite. */
  ATTENUATION_DISTANCE: 47,
  /** 3 floats. */
  ATTENUATION_COLOR: 48,
  IRIDESCENCE_FACTOR: 51,
  IRIDESCENCE_IOR: 52,
  IRIDESCENCE_THICKNESS_MINIMUM: 53,
  IRIDESCENCE_THICKNESS_MAXIMUM: 54,
  ANISOTROPY_STRENGTH: 55,
  ANISOTROPY_ROTATION: 56,
  DISPERSION: 57,
  DIFFUSE_TRANSMISSION_FACTOR: 58,
  /** 3 floats. */
  DIFFUSE_TRANSMISSION_COLOR_FACTOR: 59,
  /** MToon (Material.mtoon; VRM expressions bind them), after the PBR extensions' values: 3 floats each, linear RGB. */
  MTOON_SHADE_COLOR: 62,
  MTOON_MATCAP_FACTOR: 65,
  MTOON_RIM_COLOR: 68,
  MTOON_OUTLINE_COLOR: 71,
  /** Seconds the MToon UV animation has run (wall time, MaterialAnimation.uvAnimationTime). */
  MTOON_UV_ANIMATION_TIME: 74,
  /** Per MToon texture slot s (MToonTextureSlot), at MTOON_UV_TRANSFORM + s × UV_TRANSFORM_FLOATS, as UV_TRANSFORM. */
  MTOON_UV_TRANSFORM: 75,
} as const;
export const UvTransformOffset = { OFFSET: 0, ROTATION: 2, SCALE: 3 } as const;
export const UV_TRANSFORM_FLOATS = 5;

/** MToon's own texture slots in the order of their animated UV transforms (the core slots hold the base colour, normal and emissive ones). */
export const MToonTextureSlot = { SHADE_MULTIPLY: 0, SHADING_SHIFT: 1, MATCAP: 2, RIM_MULTIPLY: 3, OUTLINE_WIDTH_MULTIPLY: 4, UV_ANIMATION_MASK: 5 } as const;
export const MTOON_TEXTURE_SLOT_COUNT = 6;
export const MATERIAL_ANIM_FLOATS = MaterialAnimOffset.MTOON_UV_TRANSFORM + MTOON_TEXTURE_SLOT_COUNT * UV_TRANSFORM_FLOATS;

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
