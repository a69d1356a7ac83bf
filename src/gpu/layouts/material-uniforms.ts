import { MaterialAnimOffset, TEXTURE_SLOT_COUNT, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../gltf/extensions/khr-animation-pointer.ts';
import { IDENTITY_UV_TRANSFORM, uvTransformMatrix } from '../../gltf/extensions/khr-texture-transform.ts';
import type { Material, TextureInfo } from '../../gltf/model.ts';
import { AlphaModeCode, MaterialFlag } from './bindings.ts';

/**
 * Byte layout of `struct MaterialUniforms` (shaders/mesh.wgsl), group 2 binding 0:
 * the glTF metallic-roughness material's factors and which UV set each texture reads.
 * Written once at upload (an animated material's factors and UV matrices again per frame:
 * material-animation.ts). test/gpu/layouts/bindings.test.ts checks the offsets against the WGSL.
 */
export const MaterialUniformsOffset = {
  /** vec4f, linear RGBA. */
  BASE_COLOR_FACTOR: 0,
  /** vec3f, linear RGB: emissiveFactor × KHR_materials_emissive_strength. */
  EMISSIVE_FACTOR: 16,
  METALLIC_FACTOR: 28,
  ROUGHNESS_FACTOR: 32,
  NORMAL_SCALE: 36,
  OCCLUSION_STRENGTH: 40,
  ALPHA_CUTOFF: 44,
  /** u32: an `AlphaModeCode`. */
  ALPHA_MODE: 48,
  /** u32: `MaterialFlag` bits. */
  FLAGS: 52,
  /** u32 each: 0 for TEXCOORD_0, 1 for TEXCOORD_1. */
  BASE_COLOR_TEX_COORD: 56,
  METALLIC_ROUGHNESS_TEX_COORD: 60,
  NORMAL_TEX_COORD: 64,
  OCCLUSION_TEX_COORD: 68,
  EMISSIVE_TEX_COORD: 72,
  /**
   * mat3x2f each (24 bytes, column-major): the slot's KHR_texture_transform,
   * uv' = M · (u, v, 1); the identity without one.
   */
  BASE_COLOR_UV_TRANSFORM: 80,
  METALLIC_ROUGHNESS_UV_TRANSFORM: 104,
  NORMAL_UV_TRANSFORM: 128,
  OCCLUSION_UV_TRANSFORM: 152,
  EMISSIVE_UV_TRANSFORM: 176,
} as const;

export const MATERIAL_UNIFORMS_SIZE = 208;

/** The glTF default material (spec §3.9.6): white, fully metallic and rough, opaque. */
export const DEFAULT_MATERIAL: Material = Object.freeze({
  name: 'default',
  baseColorFactor: [1, 1, 1, 1] as const,
  baseColorTexture: undefined,
  metallicFactor: 1,
  roughnessFactor: 1,
  metallicRoughnessTexture: undefined,
  normalTexture: undefined,
  occlusionTexture: undefined,
  emissiveTexture: undefined,
  emissiveFactor: [0, 0, 0] as const,
  alphaMode: 'OPAQUE' as const,
  alphaCutoff: 0.5,
  doubleSided: false,
});

/** Packs a material into a new MATERIAL_UNIFORMS_SIZE-byte buffer (upload time only). */
export function packMaterialUniforms(material: Material): ArrayBuffer {
  const buffer = new ArrayBuffer(MATERIAL_UNIFORMS_SIZE);
  const f32 = new Float32Array(buffer);
  const u32 = new Uint32Array(buffer);
  const O = MaterialUniformsOffset;
  f32.set(material.baseColorFactor, O.BASE_COLOR_FACTOR / 4);
  const strength = material.emissiveStrength ?? 1;
  const em = material.emissiveFactor;
  f32.set([em[0] * strength, em[1] * strength, em[2] * strength], O.EMISSIVE_FACTOR / 4);
  f32[O.METALLIC_FACTOR / 4] = material.metallicFactor;
  f32[O.ROUGHNESS_FACTOR / 4] = material.roughnessFactor;
  f32[O.NORMAL_SCALE / 4] = material.normalTexture?.scale ?? 1;
  f32[O.OCCLUSION_STRENGTH / 4] = material.occlusionTexture?.scale ?? 1;
  f32[O.ALPHA_CUTOFF / 4] = material.alphaCutoff;
  u32[O.ALPHA_MODE / 4] = AlphaModeCode[material.alphaMode];
  u32[O.FLAGS / 4] = (material.normalTexture ? MaterialFlag.HAS_NORMAL_TEXTURE : 0) | (material.doubleSided ? MaterialFlag.DOUBLE_SIDED : 0);
  u32[O.BASE_COLOR_TEX_COORD / 4] = material.baseColorTexture?.texCoord ?? 0;
  u32[O.METALLIC_ROUGHNESS_TEX_COORD / 4] = material.metallicRoughnessTexture?.texCoord ?? 0;
  u32[O.NORMAL_TEX_COORD / 4] = material.normalTexture?.texCoord ?? 0;
  u32[O.OCCLUSION_TEX_COORD / 4] = material.occlusionTexture?.texCoord ?? 0;
  u32[O.EMISSIVE_TEX_COORD / 4] = material.emissiveTexture?.texCoord ?? 0;
  const transform = (info: TextureInfo | undefined, offset: number): void => {
    const t = info?.transform;
    f32.set(t ? uvTransformMatrix(t.offset, t.rotation, t.scale) : IDENTITY_UV_TRANSFORM, offset / 4);
  };
  transform(material.baseColorTexture, O.BASE_COLOR_UV_TRANSFORM);
  transform(material.metallicRoughnessTexture, O.METALLIC_ROUGHNESS_UV_TRANSFORM);
  transform(material.normalTexture, O.NORMAL_UV_TRANSFORM);
  transform(material.occlusionTexture, O.OCCLUSION_UV_TRANSFORM);
  transform(material.emissiveTexture, O.EMISSIVE_UV_TRANSFORM);
  return buffer;
}

/** A UvTransformOffset block (offset, rotation, scale) as the matrix T · R · S uvTransformMatrix builds, at `out[m]`. */
export function packUvMatrix(values: Float32Array, t: number, out: Float32Array, m: number): void {
  const rotation = values[t + UvTransformOffset.ROTATION];
  const sx = values[t + UvTransformOffset.SCALE], sy = values[t + UvTransformOffset.SCALE + 1];
  const cos = Math.cos(rotation), sin = Math.sin(rotation);
  out[m] = cos * sx;
  out[m + 1] = 0 - sin * sx;
  out[m + 2] = sin * sy;
  out[m + 3] = cos * sy;
  out[m + 4] = values[t + UvTransformOffset.OFFSET];
  out[m + 5] = values[t + UvTransformOffset.OFFSET + 1];
}

/** UV matrix offsets in the uniforms, in TextureSlot order. */
const UV_MATRIX_OFFSETS = [
  MaterialUniformsOffset.BASE_COLOR_UV_TRANSFORM, MaterialUniformsOffset.METALLIC_ROUGHNESS_UV_TRANSFORM,
  MaterialUniformsOffset.NORMAL_UV_TRANSFORM, MaterialUniformsOffset.OCCLUSION_UV_TRANSFORM, MaterialUniformsOffset.EMISSIVE_UV_TRANSFORM,
] as const;

/**
 * One material's animated values (`values` at `v`, the MaterialAnimOffset layout) into its
 * uniforms (`out` at float `u`): factors as they are, emissive × its (animated) strength, and each slot's
 * UV matrix T(offset) · R(rotation) · S(scale) as `uvTransformMatrix` builds it.
 */
export function packAnimatedValues(values: Float32Array, v: number, out: Float32Array, u: number): void {
  const emissiveStrength = values[v + MaterialAnimOffset.EMISSIVE_STRENGTH];
  const O = MaterialUniformsOffset;
  for (let c = 0; c < 4; c++) out[u + O.BASE_COLOR_FACTOR / 4 + c] = values[v + MaterialAnimOffset.BASE_COLOR_FACTOR + c];
  for (let c = 0; c < 3; c++) out[u + O.EMISSIVE_FACTOR / 4 + c] = values[v + MaterialAnimOffset.EMISSIVE_FACTOR + c] * emissiveStrength;
  out[u + O.ALPHA_CUTOFF / 4] = values[v + MaterialAnimOffset.ALPHA_CUTOFF];
  for (let s = 0; s < TEXTURE_SLOT_COUNT; s++) packUvMatrix(values, v + MaterialAnimOffset.UV_TRANSFORM + s * UV_TRANSFORM_FLOATS, out, u + UV_MATRIX_OFFSETS[s] / 4);
}
