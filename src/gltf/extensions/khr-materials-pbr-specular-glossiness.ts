/**
 * KHR_materials_pbrSpecularGlossiness, converted to metallic-roughness at load as
 * glTF-Transform's `metalRough()` and the Khronos conversion do: base colour ← diffuse
 * factor and texture, metallic 0, roughness ← 1 − glossiness. The specular colour is not
 * kept (a dielectric's F0 of 0.04 is used), since KHR_materials_specular is not drawn.
 *
 * A specularGlossinessTexture stores glossiness in alpha. Rather than baking a new
 * roughness texture at load (the loader decodes no images: `bake` runs in Node without
 * an image decoder, and it would cost a second copy of the texture), the texture goes in
 * the metallic-roughness slot and the material gets shading 'pbr-glossiness': a mesh
 * pipeline specialisation (mesh.wgsl `MATERIAL_SHADING`) reads roughness as
 * 1 − (1 − roughnessFactor) · alpha = 1 − glossinessFactor · glossiness, which is the
 * extension's definition exactly (a texture pass 1 − alpha would round it to 8 bits and
 * multiply the factors the wrong way round, as `metalRough()` does).
 */
import { optNumber, optNumbers, optObject, type JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import type { GltfExtension, MaterialDraft, MaterialReader } from './types.ts';

/** The reflectance the converted material draws with: a dielectric's (glTF Appendix B). */
const CONVERTED_SPECULAR = 0.04;

/**
 * The extension's JSON for a converted material of shading 'pbr-glossiness' (a bake writes
 * it back), with the specular colour the conversion draws; `textureInfo` writes a slot.
 */
export function specularGlossinessJson(m: Material, textureInfo: (slot: Material['baseColorTexture']) => JsonObject | undefined): JsonObject {
  const json: JsonObject = {
    diffuseFactor: [...m.baseColorFactor],
    specularFactor: [CONVERTED_SPECULAR, CONVERTED_SPECULAR, CONVERTED_SPECULAR],
    glossinessFactor: 1 - m.roughnessFactor,
  };
  const diffuse = textureInfo(m.baseColorTexture);
  if (diffuse) json.diffuseTexture = diffuse;
  const specularGlossiness = textureInfo(m.metallicRoughnessTexture);
  if (specularGlossiness) json.specularGlossinessTexture = specularGlossiness;
  return json;
}

export const KHR_MATERIALS_PBR_SPECULAR_GLOSSINESS: GltfExtension = {
  name: 'KHR_materials_pbrSpecularGlossiness',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const diffuse = (optNumbers(ext, 'diffuseFactor', path, 4) ?? [1, 1, 1, 1]).map((v, i) => reader.inRange(v, `${path}.diffuseFactor[${i}]`, 0, 1));
    // Checked like the core factors even though only glossiness is used.
    const specular = optNumbers(ext, 'specularFactor', path, 3);
    specular?.forEach((v, i) => reader.inRange(v, `${path}.specularFactor[${i}]`, 0, 1));
    optObject(ext, 'specularGlossinessTexture', path);
    const glossiness = reader.inRange(optNumber(ext, 'glossinessFactor', path, 1), `${path}.glossinessFactor`, 0, 1);
    material.baseColorFactor = [diffuse[0], diffuse[1], diffuse[2], diffuse[3]];
    material.baseColorTexture = reader.textureInfo(ext, 'diffuseTexture', path);
    material.metallicFactor = 0;
    material.roughnessFactor = 1 - glossiness;
    material.metallicRoughnessTexture = reader.textureInfo(ext, 'specularGlossinessTexture', path);
    if (material.shading !== 'unlit' && material.metallicRoughnessTexture) material.shading = 'pbr-glossiness';
  },
};
