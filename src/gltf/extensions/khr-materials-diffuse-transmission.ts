/**
 * KHR_materials_diffuse_transmission: the share (0…1, × the texture's alpha) of diffuse light that
 * passes through a thin surface, tinted by a colour (0…1, × an sRGB texture): leaves and paper lit
 * from behind. Drawn by shaders/pbr-extensions.wgsl (the sample viewer's mix of the diffuse term
 * with light from the back side, −n).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_DIFFUSE_TRANSMISSION: GltfExtension = {
  name: 'KHR_materials_diffuse_transmission',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const color = reader.factors(ext, 'diffuseTransmissionColorFactor', path, [1, 1, 1], 0, 1);
    material.diffuseTransmission = {
      factor: reader.factor(ext, 'diffuseTransmissionFactor', path, 0, 0, 1),
      texture: reader.textureInfo(ext, 'diffuseTransmissionTexture', path),
      colorFactor: [color[0], color[1], color[2]],
      colorTexture: reader.textureInfo(ext, 'diffuseTransmissionColorTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.diffuseTransmission;
    if (e === undefined) return undefined;
    return withTextures({
      diffuseTransmissionFactor: e.factor, diffuseTransmissionColorFactor: [...e.colorFactor],
    }, {
      diffuseTransmissionTexture: texture(e.texture), diffuseTransmissionColorTexture: texture(e.colorTexture),
    });
  },
};
