/**
 * KHR_materials_emissive_strength: a scalar (≥ 0, default 1) multiplying emissiveFactor,
 * so emission can exceed 1. Kept apart from the factor (packed as their product), as
 * three.js keeps `emissiveIntensity`.
 */
import { optNumber, type JsonObject } from '../json.ts';
import type { GltfExtension, MaterialDraft, MaterialReader } from './types.ts';

export const KHR_MATERIALS_EMISSIVE_STRENGTH: GltfExtension = {
  name: 'KHR_materials_emissive_strength',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.emissiveStrength = reader.inRange(optNumber(ext, 'emissiveStrength', path, 1), `${path}.emissiveStrength`, 0, Infinity);
  },
};
