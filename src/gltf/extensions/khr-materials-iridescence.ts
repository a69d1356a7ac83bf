/**
 * KHR_materials_iridescence: a thin film (index `iridescenceIor` ≥ 1, thickness in nanometres
 * ≥ 0) over the material, whose interference shifts the specular colour with the viewing angle.
 * Drawn by shaders/pbr-extensions.wgsl (Belcour and Barla 2017, as the sample viewer evaluates it).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_IRIDESCENCE: GltfExtension = {
  name: 'KHR_materials_iridescence',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.iridescence = {
      factor: reader.factor(ext, 'iridescenceFactor', path, 0, 0, 1),
      texture: reader.textureInfo(ext, 'iridescenceTexture', path),
      ior: reader.factor(ext, 'iridescenceIor', path, 1.3, 1, Infinity),
      thicknessMinimum: reader.factor(ext, 'iridescenceThicknessMinimum', path, 100, 0, Infinity),
      thicknessMaximum: reader.factor(ext, 'iridescenceThicknessMaximum', path, 400, 0, Infinity),
      thicknessTexture: reader.textureInfo(ext, 'iridescenceThicknessTexture', path),
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.iridescence;
    if (e === undefined) return undefined;
    return withTextures({
      iridescenceFactor: e.factor, iridescenceIor: e.ior, iridescenceThicknessMinimum: e.thicknessMinimum, iridescenceThicknessMaximum: e.thicknessMaximum,
    }, {
      iridescenceTexture: texture(e.texture), iridescenceThicknessTexture: texture(e.thicknessTexture),
    });
  },
};
