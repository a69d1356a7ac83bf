/**
 * Which path draws a material, and how each path uploads one (material-upload.ts): the upload
 * (upload.ts) and the per-frame animated uniforms (material-animation.ts) both ask here.
 */
import type { Material } from '../../gltf/model.ts';
import type { MaterialUploader } from './material-upload.ts';
import { MTOON_UPLOADER } from './mtoon-material.ts';
import { PBR_UPLOADER } from './pbr-material.ts';
import { activePbrExtensions, PBR_EXTENSIONS_UPLOADER } from './pbr-extensions-material.ts';
import type { MaterialPathName } from '../pipelines/material-path.ts';

export const MATERIAL_UPLOADERS: Readonly<Record<MaterialPathName, MaterialUploader>> = { 'pbr': PBR_UPLOADER, 'pbr-extensions': PBR_EXTENSIONS_UPLOADER, 'mtoon': MTOON_UPLOADER };

/**
 * The path `material` is drawn with: MToon for an MToon material unless `mtoon` is off
 * (RenderSettings.mtoon), else PBR (its glTF fallback), with the KHR_materials_* extensions when
 * one changes how it looks (`animated`: its values change per frame, so every extension it has counts).
 */
export function materialPathFor(material: Material, mtoon: boolean, animated: boolean): MaterialPathName {
  if (material.mtoon && mtoon) return 'mtoon';
  return activePbrExtensions(material, animated) !== 0 ? 'pbr-extensions' : 'pbr';
}
