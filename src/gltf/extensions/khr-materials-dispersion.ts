/**
 * KHR_materials_dispersion: how much the index of refraction varies with wavelength (20 / Abbe
 * number, ≥ 0). Only changes transmitted light: each colour channel refracts with its own index
 * (the sample viewer's spread of (ior − 1) · 0.025 · dispersion).
 */
import type { JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import type { GltfExtension, MaterialDraft, MaterialReader } from './types.ts';

export const KHR_MATERIALS_DISPERSION: GltfExtension = {
  name: 'KHR_materials_dispersion',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    material.dispersion = reader.factor(ext, 'dispersion', path, 0, 0, Infinity);
  },
  writeMaterial(m: Material): JsonObject | undefined {
    return m.dispersion === undefined ? undefined : { dispersion: m.dispersion };
  },
};
