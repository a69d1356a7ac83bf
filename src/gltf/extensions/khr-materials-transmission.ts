/**
 * KHR_materials_transmission: the share (0…1) of light that passes through the surface instead of
 * being diffusely reflected. Drawn with a screen-space transmission pass: transmissive surfaces
 * sample a copy of the opaque scene behind them (src/gpu transmission pass, shaders/pbr-extensions.wgsl).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_TRANSMISSION: GltfExtension = {
  name: 'KHR_materials_transmission',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.transmission = {
      factor: reader.factor(ext, 'transmissionFactor', path, 0, 0, 1),
      texture: reader.textureInfo(ext, 'transmissionTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.transmission;
    if (e === undefined) return undefined;
    return withTextures({
      transmissionFactor: e.factor,
    }, {
      transmissionTexture: texture(e.texture),
    });
  },
};
