/**
 * KHR_materials_sheen: a sheen layer (Charlie distribution) with a colour and roughness, each
 * 0…1 (clamped with a warning). A black sheen colour with no texture draws nothing. Drawn by
 * shaders/pbr-extensions.wgsl, with the sheen's directional albedo from the sheen E table.
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_SHEEN: GltfExtension = {
  name: 'KHR_materials_sheen',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const color = reader.factors(ext, 'sheenColorFactor', path, [0, 0, 0], 0, 1);
    material.sheen = {
      colorFactor: [color[0], color[1], color[2]],
      colorTexture: reader.textureInfo(ext, 'sheenColorTexture', path),
      roughnessFactor: reader.factor(ext, 'sheenRoughnessFactor', path, 0, 0, 1),
      roughnessTexture: reader.textureInfo(ext, 'sheenRoughnessTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.sheen;
    if (e === undefined) return undefined;
    return withTextures({
      sheenColorFactor: [...e.colorFactor], sheenRoughnessFactor: e.roughnessFactor,
    }, {
      sheenColorTexture: texture(e.colorTexture), sheenRoughnessTexture: texture(e.roughnessTexture),
    });
  },
};
