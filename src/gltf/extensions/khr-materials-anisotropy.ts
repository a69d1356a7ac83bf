/**
 * KHR_materials_anisotropy: the specular lobe stretched along a direction in the tangent plane —
 * `anisotropyStrength` (0…1, × the texture's blue), turned by `anisotropyRotation` radians from the
 * tangent, or from the texture's red-green direction. Needs a tangent frame: the TANGENT attribute,
 * else the one derived from UV derivatives (as for normal maps).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_ANISOTROPY: GltfExtension = {
  name: 'KHR_materials_anisotropy',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.anisotropy = {
      strength: reader.factor(ext, 'anisotropyStrength', path, 0, 0, 1),
      rotation: reader.factor(ext, 'anisotropyRotation', path, 0, -Infinity, Infinity),
      texture: reader.textureInfo(ext, 'anisotropyTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.anisotropy;
    if (e === undefined) return undefined;
    return withTextures({
      anisotropyStrength: e.strength, anisotropyRotation: e.rotation,
    }, {
      anisotropyTexture: texture(e.texture),
    });
  },
};
