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
 *
 * This module holds the layout of the animated material values (shared with the GPU's uniforms);
 * the channel reader (khr-animation-pointer-reader.ts) is loaded only by a file with a pointer
 * channel (pointer-presence.ts).
 */
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
