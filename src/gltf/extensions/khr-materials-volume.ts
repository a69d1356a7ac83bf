/**
 * KHR_materials_volume: the medium under a transmissive surface: its thickness (≥ 0, in the mesh's
 * units) and Beer-Lambert attenuation (a colour reached after `attenuationDistance`). The distance
 * must be > 0; 0 or less is read as the default, infinity (no attenuation), with a warning.
 */
import { optNumber, type JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import { withTextures } from './material-extension-json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader, TextureInfoWriter } from './types.ts';

export const KHR_MATERIALS_VOLUME: GltfExtension = {
  name: 'KHR_materials_volume',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    let distance = ext.attenuationDistance === undefined
      ? Infinity
      : reader.inRange(optNumber(ext, 'attenuationDistance', path, Infinity), `${path}.attenuationDistance`, -Infinity, Infinity);
    if (distance <= 0) {
      reader.warn(`${path}.attenuationDistance`, `${distance} is not above 0; read as infinity (no attenuation)`);
      distance = Infinity;
    }
    const color = reader.factors(ext, 'attenuationColor', path, [1, 1, 1], 0, 1);
    material.volume = {
      thicknessFactor: reader.factor(ext, 'thicknessFactor', path, 0, 0, Infinity),
      thicknessTexture: reader.textureInfo(ext, 'thicknessTexture', path),
      attenuationDistance: distance,
      attenuationColor: [color[0], color[1], color[2]],
    };
  },
  writeMaterial(m: Material, texture: TextureInfoWriter): JsonObject | undefined {
    const e = m.volume;
    if (e === undefined) return undefined;
    const json: JsonObject = { thicknessFactor: e.thicknessFactor, attenuationColor: [...e.attenuationColor] };
    // Infinity (no attenuation) is the default, and JSON has no way to write it.
    if (Number.isFinite(e.attenuationDistance)) json.attenuationDistance = e.attenuationDistance;
    return withTextures(json, { thicknessTexture: texture(e.thicknessTexture) });
  },
};
