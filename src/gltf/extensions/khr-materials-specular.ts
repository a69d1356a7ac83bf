/**
 * KHR_materials_specular: the strength (0…1) and F0 colour (≥ 0; values above 1 are allowed and
 * kept) of the dielectric specular reflection. Metals are unaffected. Drawn by
 * shaders/pbr-extensions.wgsl (the sample viewer's `getSpecularInfo`).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_SPECULAR: GltfExtension = {
  name: 'KHR_materials_specular',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const color = reader.factors(ext, 'specularColorFactor', path, [1, 1, 1], 0, Infinity);
    material.specular = {
      factor: reader.factor(ext, 'specularFactor', path, 1, 0, 1),
      texture: reader.textureInfo(ext, 'specularTexture', path),
      colorFactor: [color[0], color[1], color[2]],
      colorTexture: reader.textureInfo(ext, 'specularColorTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.specular;
    if (e === undefined) return undefined;
    return withTextures({
      specularFactor: e.factor, specularColorFactor: [...e.colorFactor],
    }, {
      specularTexture: texture(e.texture), specularColorTexture: texture(e.colorTexture),
    });
  },
};
