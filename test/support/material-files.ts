/**
 * Small glTF files for the material and texture extension tests: materials, textures and
 * images as given (image bytes are not decoded by the loader, so any bytes do), built with
 * the project's GltfBuilder and loaded by the real loader.
 */
import { GltfBuilder, type GltfMaterialJson } from '../../src/gltf/builder.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';

export interface MaterialFile {
  materials: GltfMaterialJson[];
  /** Image mime types; each image gets a few placeholder bytes. */
  images?: string[];
  textures?: Record<string, unknown>[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
}

export function materialFileBytes(f: MaterialFile): Uint8Array {
  const b = new GltfBuilder('material extension test');
  (f.images ?? []).forEach((mime, i) => b.addImage(Uint8Array.of(1, 2, 3, i), mime));
  for (const t of f.textures ?? []) b.addTexture(t);
  for (const m of f.materials) b.addMaterial(m);
  b.json.extensionsUsed.push(...(f.extensionsUsed ?? []));
  b.json.extensionsRequired.push(...(f.extensionsRequired ?? []));
  return b.toGlb();
}

export function loadMaterialFile(f: MaterialFile): Promise<Model> {
  return loadGltf(materialFileBytes(f), { name: 'materials' });
}
