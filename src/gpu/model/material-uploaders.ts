/**
 * Which path draws a material, and how each path uploads one (material-upload.ts): the upload
 * (upload.ts) and the per-frame animated uniforms (material-animation.ts) both ask here.
 */
import type { Material } from '../../gltf/model.ts';
import type { BlendOrder, MaterialUploadContext, MaterialUploader } from './material-upload.ts';
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

/** How a material is drawn: what its pipelines are keyed by, and the material as its path draws it. */
export interface MaterialDrawing {
  readonly path: MaterialPathName;
  readonly uploader: MaterialUploader;
  /** The material as `path` draws it on the device (MaterialUploader.prepare). */
  readonly drawn: Material;
  readonly features: number;
  readonly blending: BlendOrder;
}

/**
 * How `material` is drawn on `ctx.device` (with the MToon path unless `mtoon` is off): for its
 * upload, and for pipelines asked for before the upload (draw/pipeline-forecast.ts), so both key alike.
 */
export function materialDrawing(material: Material, mtoon: boolean, ctx: MaterialUploadContext, path: string): MaterialDrawing {
  const name = materialPathFor(material, mtoon, ctx.animated);
  const uploader = MATERIAL_UPLOADERS[name];
  const drawn = uploader.prepare ? uploader.prepare(material, ctx, path) : material;
  return { path: name, uploader, drawn, features: uploader.features(drawn), blending: uploader.blending(material) };
}
