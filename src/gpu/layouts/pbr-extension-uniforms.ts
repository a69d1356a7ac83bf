/**
 * The PBR material extensions on the GPU, as the WGSL reads them (shaders/pbr-extensions/):
 * the byte layout of `struct PbrExtensionUniforms` (group 2 binding PbrExtensionBinding.UNIFORMS,
 * placed in a material's uniform block after MaterialUniforms, at EXTENSION_UNIFORMS_OFFSET),
 * the feature bits pipelines compile in (`PBR_EXTENSIONS`), and the extension texture slots
 * with the group 2 bindings they get when a material has them. test/gpu/layouts/bindings.test.ts checks
 * the offsets, bits and bindings against the WGSL.
 */
import { MaterialAnimOffset } from '../../gltf/extensions/khr-animation-pointer.ts';
import { IDENTITY_UV_TRANSFORM, uvTransformMatrix } from '../../gltf/extensions/khr-texture-transform.ts';
import { DEFAULT_IOR } from '../../gltf/extensions/khr-materials-ior.ts';
import type { Material, TextureInfo } from '../../gltf/model.ts';

/** What an extended pipeline compiles in (override PBR_EXTENSIONS): one bit per extension that changes the shading. */
export const PbrExtensionFeature = {
  CLEARCOAT: 1,
  SPECULAR: 2,
  IOR: 4,
  SHEEN: 8,
  TRANSMISSION: 16,
  VOLUME: 32,
  IRIDESCENCE: 64,
  ANISOTROPY: 128,
  DISPERSION: 256,
  DIFFUSE_TRANSMISSION: 512,
} as const;
export const PBR_EXTENSION_FEATURE_BITS = 10;

/** The extension texture slots, in the order of their UV data in the uniforms and their bindings. */
export const ExtensionTexture = {
  CLEARCOAT: 0,
  CLEARCOAT_ROUGHNESS: 1,
  CLEARCOAT_NORMAL: 2,
  SPECULAR: 3,
  SPECULAR_COLOR: 4,
  SHEEN_COLOR: 5,
  SHEEN_ROUGHNESS: 6,
  TRANSMISSION: 7,
  THICKNESS: 8,
  IRIDESCENCE: 9,
  IRIDESCENCE_THICKNESS: 10,
  ANISOTROPY: 11,
  DIFFUSE_TRANSMISSION: 12,
  DIFFUSE_TRANSMISSION_COLOR: 13,
} as const;
export const EXTENSION_TEXTURE_COUNT = 14;

export interface ExtensionTextureSlot {
  /** The WGSL names: `<name>Texture`, and `sample<Name>(in)` which reads it. */
  readonly name: string;
  /** The extension and property it comes from (for warnings). */
  readonly extension: string;
  readonly property: string;
  /** Colour data, stored sRGB-encoded (uploaded to an -srgb texture). */
  readonly srgb: boolean;
  /** What `sample<Name>` returns without the texture: the value that leaves the factor as it is. */
  readonly neutral: 'white' | 'flat-normal' | 'tangent-direction';
  /** The feature that reads it. */
  readonly feature: number;
  texture(m: Material): TextureInfo | undefined;
}

const F = PbrExtensionFeature;
/** By ExtensionTexture index. */
export const EXTENSION_TEXTURE_SLOTS: readonly ExtensionTextureSlot[] = [
  { name: 'clearcoat', extension: 'KHR_materials_clearcoat', property: 'clearcoatTexture', srgb: false, neutral: 'white', feature: F.CLEARCOAT, texture: (m) => m.clearcoat?.texture },
  { name: 'clearcoatRoughness', extension: 'KHR_materials_clearcoat', property: 'clearcoatRoughnessTexture', srgb: false, neutral: 'white', feature: F.CLEARCOAT, texture: (m) => m.clearcoat?.roughnessTexture },
  { name: 'clearcoatNormal', extension: 'KHR_materials_clearcoat', property: 'clearcoatNormalTexture', srgb: false, neutral: 'flat-normal', feature: F.CLEARCOAT, texture: (m) => m.clearcoat?.normalTexture },
  { name: 'specular', extension: 'KHR_materials_specular', property: 'specularTexture', srgb: false, neutral: 'white', feature: F.SPECULAR, texture: (m) => m.specular?.texture },
  { name: 'specularColor', extension: 'KHR_materials_specular', property: 'specularColorTexture', srgb: true, neutral: 'white', feature: F.SPECULAR, texture: (m) => m.specular?.colorTexture },
  { name: 'sheenColor', extension: 'KHR_materials_sheen', property: 'sheenColorTexture', srgb: true, neutral: 'white', feature: F.SHEEN, texture: (m) => m.sheen?.colorTexture },
  { name: 'sheenRoughness', extension: 'KHR_materials_sheen', property: 'sheenRoughnessTexture', srgb: false, neutral: 'white', feature: F.SHEEN, texture: (m) => m.sheen?.roughnessTexture },
  { name: 'transmission', extension: 'KHR_materials_transmission', property: 'transmissionTexture', srgb: false, neutral: 'white', feature: F.TRANSMISSION, texture: (m) => m.transmission?.texture },
  { name: 'thickness', extension: 'KHR_materials_volume', property: 'thicknessTexture', srgb: false, neutral: 'white', feature: F.VOLUME, texture: (m) => m.volume?.thicknessTexture },
  { name: 'iridescence', extension: 'KHR_materials_iridescence', property: 'iridescenceTexture', srgb: false, neutral: 'white', feature: F.IRIDESCENCE, texture: (m) => m.iridescence?.texture },
  { name: 'iridescenceThickness', extension: 'KHR_materials_iridescence', property: 'iridescenceThicknessTexture', srgb: false, neutral: 'white', feature: F.IRIDESCENCE, texture: (m) => m.iridescence?.thicknessTexture },
  { name: 'anisotropy', extension: 'KHR_materials_anisotropy', property: 'anisotropyTexture', srgb: false, neutral: 'tangent-direction', feature: F.ANISOTROPY, texture: (m) => m.anisotropy?.texture },
  { name: 'diffuseTransmission', extension: 'KHR_materials_diffuse_transmission', property: 'diffuseTransmissionTexture', srgb: false, neutral: 'white', feature: F.DIFFUSE_TRANSMISSION, texture: (m) => m.diffuseTransmission?.texture },
  { name: 'diffuseTransmissionColor', extension: 'KHR_materials_diffuse_transmission', property: 'diffuseTransmissionColorTexture', srgb: true, neutral: 'white', feature: F.DIFFUSE_TRANSMISSION, texture: (m) => m.diffuseTransmission?.colorTexture },
];

/**
 * Group 2 bindings of an extended material, after the PBR path's (MaterialBinding, 0…10): the
 * extension uniforms, the device's sheen albedo table (with sheen), the one sampler every
 * extension texture is read with (the first one's: exporters give them one sampler; a material
 * whose extension textures name different ones gets a warning), then per present extension
 * texture slot k its texture at TEXTURE_BASE + k. One sampler keeps a material inside the 16
 * samplers per stage every device allows.
 */
export const PbrExtensionBinding = {
  UNIFORMS: 11,
  SHEEN_ALBEDO: 12,
  SAMPLER: 13,
  TEXTURE_BASE: 16,
} as const;

/** Bytes from the start of an extended material's uniform block to its PbrExtensionUniforms (a uniform offset alignment WebGPU always allows). */
export const EXTENSION_UNIFORMS_OFFSET = 256;

/** Byte offsets in `struct PbrExtensionUniforms`. */
export const PbrExtensionUniformsOffset = {
  /** vec3f: KHR_materials_specular specularColorFactor. */
  SPECULAR_COLOR: 0,
  SPECULAR_FACTOR: 12,
  /** vec3f, linear. */
  SHEEN_COLOR: 16,
  SHEEN_ROUGHNESS: 28,
  /** vec3f, linear. */
  ATTENUATION_COLOR: 32,
  /** 0 for infinity (no attenuation). */
  ATTENUATION_DISTANCE: 44,
  /** vec3f, linear. */
  DIFFUSE_TRANSMISSION_COLOR: 48,
  DIFFUSE_TRANSMISSION_FACTOR: 60,
  CLEARCOAT_FACTOR: 64,
  CLEARCOAT_ROUGHNESS: 68,
  CLEARCOAT_NORMAL_SCALE: 72,
  IOR: 76,
  TRANSMISSION_FACTOR: 80,
  THICKNESS_FACTOR: 84,
  DISPERSION: 88,
  IRIDESCENCE_FACTOR: 92,
  IRIDESCENCE_IOR: 96,
  IRIDESCENCE_THICKNESS_MINIMUM: 100,
  IRIDESCENCE_THICKNESS_MAXIMUM: 104,
  ANISOTROPY_STRENGTH: 108,
  /** vec2f: (cos, sin) of anisotropyRotation. */
  ANISOTROPY_DIRECTION: 112,
  /** array<vec4u, 4>: the UV set of extension texture slot k at u32 k. */
  TEX_COORDS: 128,
  /**
   * array<vec4f, 28>: slot k's KHR_texture_transform as two vec4f at 2k and 2k + 1,
   * (m00, m10, m01, m11) and (offsetU, offsetV, 0, 0); the identity without one.
   */
  UV_TRANSFORMS: 192,
} as const;

export const PBR_EXTENSION_UNIFORMS_SIZE = 640;

/** The bytes of an extended material's uniform block: MaterialUniforms, padding, PbrExtensionUniforms. */
export const EXTENDED_UNIFORMS_SIZE = EXTENSION_UNIFORMS_OFFSET + PBR_EXTENSION_UNIFORMS_SIZE;

/**
 * Writes `m`'s extension values into `f32`/`u32` (views of one block) at float `at`: every
 * extension's values (its defaults where `m` lacks one), texture UV sets and transforms.
 */
export function writePbrExtensionUniforms(m: Material, f32: Float32Array, u32: Uint32Array, at: number): void {
  const O = PbrExtensionUniformsOffset;
  const w = (offset: number, v: number) => { f32[at + offset / 4] = v; };
  const w3 = (offset: number, v: readonly number[]) => f32.set(v, at + offset / 4);
  w3(O.SPECULAR_COLOR, m.specular?.colorFactor ?? [1, 1, 1]);
  w(O.SPECULAR_FACTOR, m.specular?.factor ?? 1);
  w3(O.SHEEN_COLOR, m.sheen?.colorFactor ?? [0, 0, 0]);
  w(O.SHEEN_ROUGHNESS, m.sheen?.roughnessFactor ?? 0);
  w3(O.ATTENUATION_COLOR, m.volume?.attenuationColor ?? [1, 1, 1]);
  const distance = m.volume?.attenuationDistance ?? Infinity;
  w(O.ATTENUATION_DISTANCE, Number.isFinite(distance) ? distance : 0);
  w3(O.DIFFUSE_TRANSMISSION_COLOR, m.diffuseTransmission?.colorFactor ?? [1, 1, 1]);
  w(O.DIFFUSE_TRANSMISSION_FACTOR, m.diffuseTransmission?.factor ?? 0);
  w(O.CLEARCOAT_FACTOR, m.clearcoat?.factor ?? 0);
  w(O.CLEARCOAT_ROUGHNESS, m.clearcoat?.roughnessFactor ?? 0);
  w(O.CLEARCOAT_NORMAL_SCALE, m.clearcoat?.normalTexture?.scale ?? 1);
  // IOR 0 (a Fresnel of 1 everywhere) is passed as it is: F0 = ((0 − 1) / (0 + 1))² = 1.
  w(O.IOR, m.ior ?? DEFAULT_IOR);
  w(O.TRANSMISSION_FACTOR, m.transmission?.factor ?? 0);
  w(O.THICKNESS_FACTOR, m.volume?.thicknessFactor ?? 0);
  w(O.DISPERSION, m.dispersion ?? 0);
  w(O.IRIDESCENCE_FACTOR, m.iridescence?.factor ?? 0);
  w(O.IRIDESCENCE_IOR, m.iridescence?.ior ?? 1.3);
  w(O.IRIDESCENCE_THICKNESS_MINIMUM, m.iridescence?.thicknessMinimum ?? 100);
  w(O.IRIDESCENCE_THICKNESS_MAXIMUM, m.iridescence?.thicknessMaximum ?? 400);
  w(O.ANISOTROPY_STRENGTH, m.anisotropy?.strength ?? 0);
  const rotation = m.anisotropy?.rotation ?? 0;
  f32.set([Math.cos(rotation), Math.sin(rotation)], at + O.ANISOTROPY_DIRECTION / 4);
  for (let k = 0; k < EXTENSION_TEXTURE_COUNT; k++) {
    const info = EXTENSION_TEXTURE_SLOTS[k].texture(m);
    u32[at + O.TEX_COORDS / 4 + k] = info?.texCoord ?? 0;
    const t = info?.transform;
    const matrix = t ? uvTransformMatrix(t.offset, t.rotation, t.scale) : IDENTITY_UV_TRANSFORM;
    const base = at + O.UV_TRANSFORMS / 4 + k * 8;
    f32.set(matrix.slice(0, 4), base);
    f32.set([matrix[4], matrix[5], 0, 0], base + 4);
  }
}

/**
 * One material's animated extension values (`values` at `v`) into its PbrExtensionUniforms
 * (`out` at float `u`), as writePbrExtensionUniforms writes them at upload.
 */
export function packAnimatedExtensionValues(values: Float32Array, v: number, out: Float32Array, u: number): void {
  const A = MaterialAnimOffset;
  const O = PbrExtensionUniformsOffset;
  copyValues(values, v + A.SPECULAR_COLOR_FACTOR, out, u + O.SPECULAR_COLOR / 4, 3);
  copyValues(values, v + A.SPECULAR_FACTOR, out, u + O.SPECULAR_FACTOR / 4, 1);
  copyValues(values, v + A.SHEEN_COLOR_FACTOR, out, u + O.SHEEN_COLOR / 4, 3);
  copyValues(values, v + A.SHEEN_ROUGHNESS_FACTOR, out, u + O.SHEEN_ROUGHNESS / 4, 1);
  copyValues(values, v + A.ATTENUATION_COLOR, out, u + O.ATTENUATION_COLOR / 4, 3);
  copyValues(values, v + A.ATTENUATION_DISTANCE, out, u + O.ATTENUATION_DISTANCE / 4, 1);
  copyValues(values, v + A.DIFFUSE_TRANSMISSION_COLOR_FACTOR, out, u + O.DIFFUSE_TRANSMISSION_COLOR / 4, 3);
  copyValues(values, v + A.DIFFUSE_TRANSMISSION_FACTOR, out, u + O.DIFFUSE_TRANSMISSION_FACTOR / 4, 1);
  copyValues(values, v + A.CLEARCOAT_FACTOR, out, u + O.CLEARCOAT_FACTOR / 4, 1);
  copyValues(values, v + A.CLEARCOAT_ROUGHNESS_FACTOR, out, u + O.CLEARCOAT_ROUGHNESS / 4, 1);
  copyValues(values, v + A.IOR, out, u + O.IOR / 4, 1);
  copyValues(values, v + A.TRANSMISSION_FACTOR, out, u + O.TRANSMISSION_FACTOR / 4, 1);
  copyValues(values, v + A.THICKNESS_FACTOR, out, u + O.THICKNESS_FACTOR / 4, 1);
  copyValues(values, v + A.DISPERSION, out, u + O.DISPERSION / 4, 1);
  copyValues(values, v + A.IRIDESCENCE_FACTOR, out, u + O.IRIDESCENCE_FACTOR / 4, 1);
  copyValues(values, v + A.IRIDESCENCE_IOR, out, u + O.IRIDESCENCE_IOR / 4, 1);
  copyValues(values, v + A.IRIDESCENCE_THICKNESS_MINIMUM, out, u + O.IRIDESCENCE_THICKNESS_MINIMUM / 4, 1);
  copyValues(values, v + A.IRIDESCENCE_THICKNESS_MAXIMUM, out, u + O.IRIDESCENCE_THICKNESS_MAXIMUM / 4, 1);
  copyValues(values, v + A.ANISOTROPY_STRENGTH, out, u + O.ANISOTROPY_STRENGTH / 4, 1);
  const rotation = values[v + A.ANISOTROPY_ROTATION];
  out[u + O.ANISOTROPY_DIRECTION / 4] = Math.cos(rotation);
  out[u + O.ANISOTROPY_DIRECTION / 4 + 1] = Math.sin(rotation);
}

/** `n` floats from `values` at `from` to `out` at `to` (a function, not a closure: the frame path allocates nothing). */
function copyValues(values: Float32Array, from: number, out: Float32Array, to: number, n: number): void {
  for (let c = 0; c < n; c++) out[to + c] = values[from + c];
}
