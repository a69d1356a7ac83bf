/**
 * KHR_materials_unlit: the material shows its base colour (factor × texture × COLOR_0),
 * unlit. The mesh pipeline compiles a specialisation for it (mesh.wgsl `MATERIAL_SHADING`)
 * that samples the base colour texture only; exposure and tone mapping still apply, as
 * in three.js (MeshBasicMaterial) and the Khronos sample viewer.
 */
import type { JsonObject } from '../json.ts';
import type { GltfExtension, MaterialDraft } from './types.ts';

export const KHR_MATERIALS_UNLIT: GltfExtension = {
  name: 'KHR_materials_unlit',
  readMaterial(_ext: JsonObject, _path: string, material: MaterialDraft): void {
    material.shading = 'unlit';
  },
};
