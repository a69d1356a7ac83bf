/**
 * Material JSON using the PBR material extensions, for tests across layers (loader, bake, GPU).
 * `everyPbrExtension` sets every property of every extension to a non-default value and gives
 * every extension texture a reference (`texture(k)` supplies the k-th texture's index).
 */
export const PBR_EXTENSION_NAMES = [
  'KHR_materials_clearcoat', 'KHR_materials_specular', 'KHR_materials_ior', 'KHR_materials_sheen', 'KHR_materials_transmission',
  'KHR_materials_volume', 'KHR_materials_iridescence', 'KHR_materials_anisotropy', 'KHR_materials_dispersion',
  'KHR_materials_diffuse_transmission',
] as const;

export type PbrExtensionName = (typeof PBR_EXTENSION_NAMES)[number];

/** The extension textures of `everyPbrExtension`, in the order `texture(k)` is asked for. */
export const PBR_EXTENSION_TEXTURE_COUNT = 14;

export function everyPbrExtension(texture: (k: number) => number): Record<PbrExtensionName, Record<string, unknown>> {
  let k = 0;
  const t = (extra: Record<string, unknown> = {}) => ({ index: texture(k++), ...extra });
  return {
    KHR_materials_clearcoat: {
      clearcoatFactor: 0.8, clearcoatTexture: t(), clearcoatRoughnessFactor: 0.3, clearcoatRoughnessTexture: t(), clearcoatNormalTexture: t({ scale: 0.5 }),
    },
    KHR_materials_specular: { specularFactor: 0.6, specularTexture: t(), specularColorFactor: [1.2, 0.9, 0.5], specularColorTexture: t({ texCoord: 1 }) },
    KHR_materials_ior: { ior: 1.7 },
    KHR_materials_sheen: { sheenColorFactor: [0.7, 0.2, 0.4], sheenColorTexture: t(), sheenRoughnessFactor: 0.45, sheenRoughnessTexture: t() },
    KHR_materials_transmission: { transmissionFactor: 0.65, transmissionTexture: t() },
    KHR_materials_volume: { thicknessFactor: 0.2, thicknessTexture: t(), attenuationDistance: 0.5, attenuationColor: [0.9, 0.5, 0.3] },
    KHR_materials_iridescence: {
      iridescenceFactor: 0.9, iridescenceTexture: t(), iridescenceIor: 1.45, iridescenceThicknessMinimum: 150, iridescenceThicknessMaximum: 650,
      iridescenceThicknessTexture: t({ extensions: { KHR_texture_transform: { offset: [0.25, 0], rotation: 0.5, scale: [2, 2] } } }),
    },
    KHR_materials_anisotropy: { anisotropyStrength: 0.7, anisotropyRotation: 1.1, anisotropyTexture: t() },
    KHR_materials_dispersion: { dispersion: 0.4 },
    KHR_materials_diffuse_transmission: {
      diffuseTransmissionFactor: 0.35, diffuseTransmissionTexture: t(), diffuseTransmissionColorFactor: [0.3, 0.8, 0.2], diffuseTransmissionColorTexture: t(),
    },
  };
}
