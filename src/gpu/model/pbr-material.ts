/**
 * The PBR path's material upload: MaterialUniforms (material-uniforms.ts) and a texture and
 * sampler per glTF slot. Unlit materials read the base colour only: their other textures are
 * neither uploaded nor sampled.
 */
import type { Material } from '../../gltf/model.ts';
import { MaterialBinding, MaterialTexture } from '../layouts/bindings.ts';
import { MATERIAL_UNIFORMS_SIZE, packAnimatedValues, packMaterialUniforms } from '../layouts/material-uniforms.ts';
import { pbrFeatures } from '../pipelines/pbr-path.ts';
import { BLENDED_QUEUE, type MaterialTextures, type MaterialUploader } from './material-upload.ts';

/** `material` as drawn: an unlit one without the textures it does not read. */
function drawn(material: Material): Material {
  return (material.shading ?? 'pbr') !== 'unlit' ? material : {
    ...material, metallicRoughnessTexture: undefined, normalTexture: undefined, occlusionTexture: undefined, emissiveTexture: undefined,
  };
}

const PLAIN_BLENDING = Object.freeze({ queue: BLENDED_QUEUE, depthWrite: false });

export const PBR_UPLOADER: MaterialUploader = {
  uniformsSize: MATERIAL_UNIFORMS_SIZE,
  pack: packMaterialUniforms,
  packAnimated: packAnimatedValues,
  features(material: Material): number {
    const m = drawn(material);
    const T = MaterialTexture;
    const own = (m.baseColorTexture ? T.BASE_COLOR : 0) | (m.metallicRoughnessTexture ? T.METALLIC_ROUGHNESS : 0)
      | (m.normalTexture ? T.NORMAL : 0) | (m.occlusionTexture ? T.OCCLUSION : 0) | (m.emissiveTexture ? T.EMISSIVE : 0);
    return pbrFeatures(own, m.shading);
  },
  blending: () => PLAIN_BLENDING,
  async textureEntries(material: Material, textures: MaterialTextures, path: string): Promise<GPUBindGroupEntry[]> {
    const m = drawn(material);
    const M = MaterialBinding;
    const { whiteSrgb, whiteLinear, flatNormal } = textures.defaults;
    return [
      { binding: M.BASE_COLOR_TEXTURE, resource: await textures.view(m.baseColorTexture, true, whiteSrgb, `${path}.baseColorTexture`) },
      { binding: M.BASE_COLOR_SAMPLER, resource: textures.sampler(m.baseColorTexture) },
      { binding: M.METALLIC_ROUGHNESS_TEXTURE, resource: await textures.view(m.metallicRoughnessTexture, false, whiteLinear, `${path}.metallicRoughnessTexture`) },
      { binding: M.METALLIC_ROUGHNESS_SAMPLER, resource: textures.sampler(m.metallicRoughnessTexture) },
      { binding: M.NORMAL_TEXTURE, resource: await textures.view(m.normalTexture, false, flatNormal, `${path}.normalTexture`) },
      { binding: M.NORMAL_SAMPLER, resource: textures.sampler(m.normalTexture) },
      { binding: M.OCCLUSION_TEXTURE, resource: await textures.view(m.occlusionTexture, false, whiteLinear, `${path}.occlusionTexture`) },
      { binding: M.OCCLUSION_SAMPLER, resource: textures.sampler(m.occlusionTexture) },
      { binding: M.EMISSIVE_TEXTURE, resource: await textures.view(m.emissiveTexture, true, whiteSrgb, `${path}.emissiveTexture`) },
      { binding: M.EMISSIVE_SAMPLER, resource: textures.sampler(m.emissiveTexture) },
    ];
  },
};
