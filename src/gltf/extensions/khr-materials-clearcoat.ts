/**
 * KHR_materials_clearcoat: a clear dielectric layer (IOR 1.5) over the material, with its own
 * roughness and normal map. Factors are clamped into 0…1 with a warning; the normal texture's
 * `scale` is read as a normal texture's. Drawn by shaders/pbr-extensions.wgsl.
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_CLEARCOAT: GltfExtension = {
  name: 'KHR_materials_clearcoat',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.clearcoat = {
      factor: reader.factor(ext, 'clearcoatFactor', path, 0, 0, 1),
      texture: reader.textureInfo(ext, 'clearcoatTexture', path),
      roughnessFactor: reader.factor(ext, 'clearcoatRoughnessFactor', path, 0, 0, 1),
      roughnessTexture: reader.textureInfo(ext, 'clearcoatRoughnessTexture', path),
      normalTexture: reader.textureInfo(ext, 'clearcoatNormalTexture', path, 'scale'),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.clearcoat;
    if (e === undefined) return undefined;
    return withTextures({
      clearcoatFactor: e.factor, clearcoatRoughnessFactor: e.roughnessFactor,
    }, {
      clearcoatTexture: texture(e.texture), clearcoatRoughnessTexture: texture(e.roughnessTexture), clearcoatNormalTexture: texture(e.normalTexture, 'scale'),
    });
  },
};
