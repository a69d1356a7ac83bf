/**
 * KHR_materials_ior: the index of refraction of the material (default 1.5, F0 0.04). Valid values
 * are ≥ 1, and 0, which the extension defines as a Fresnel of 1 everywhere (the
 * specular-glossiness workflow); anything else is clamped to 1 with a warning.
 */
import { optNumber, type JsonObject } from '../json.ts';
import type { Material } from '../model.ts';
import type { GltfExtension, MaterialDraft, MaterialReader } from './types.ts';

/** glTF's dielectric index of refraction (Appendix B): F0 = ((1.5 − 1) / (1.5 + 1))² = 0.04. */
export const DEFAULT_IOR = 1.5;

export const KHR_MATERIALS_IOR: GltfExtension = {
  name: 'KHR_materials_ior',
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const ior = optNumber(ext, 'ior', path, DEFAULT_IOR);
    material.ior = ior === 0 ? 0 : reader.inRange(ior, `${path}.ior`, 1, Infinity);
  },
  writeMaterial(m: Material): JsonObject | undefined {
    return m.ior === undefined ? undefined : { ior: m.ior };
  },
};
