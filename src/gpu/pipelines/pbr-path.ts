/**
 * The PBR material path: glTF metallic-roughness with its specialisations
 * (shaders/pbr-material.wgsl). Feature bits: the MaterialTexture bits of the slots that hold
 * the material's own texture (`MATERIAL_TEXTURES`: the rest are not sampled), and above them
 * the MaterialShadingCode (`MATERIAL_SHADING`: metallic-roughness, its glossiness reading,
 * unlit).
 */
import pbrMaterialWgsl from '../../../shaders/pbr-material.wgsl?raw';
import type { MaterialShading } from '../../gltf/model.ts';
import { ALL_MATERIAL_TEXTURES, MaterialBinding, MaterialShadingCode } from '../layouts/bindings.ts';
import { MATERIAL_UNIFORMS_SIZE } from '../layouts/material-uniforms.ts';
import type { MaterialPath } from './material-path.ts';

/** Where the shading code sits in the features, above the texture bits. */
const SHADING_SHIFT = 5;

const SHADING_CODE: Readonly<Record<MaterialShading, number>> = {
  'pbr': MaterialShadingCode.PBR, 'pbr-glossiness': MaterialShadingCode.PBR_GLOSSINESS, 'unlit': MaterialShadingCode.UNLIT,
};

/** The features of a PBR material with its own textures in `textures` (MaterialTexture bits) and `shading`. */
export function pbrFeatures(textures: number, shading: MaterialShading = 'pbr'): number {
  return (textures & ALL_MATERIAL_TEXTURES) | (SHADING_CODE[shading] << SHADING_SHIFT);
}

/** The MaterialTexture bits of PBR features. */
export function pbrTextures(features: number): number {
  return features & ALL_MATERIAL_TEXTURES;
}

/** The MaterialShading of PBR features. */
export function pbrShading(features: number): MaterialShading {
  const code = features >> SHADING_SHIFT;
  return (Object.keys(SHADING_CODE) as MaterialShading[]).find((s) => SHADING_CODE[s] === code) ?? 'pbr';
}

export const PBR_PATH: MaterialPath = {
  name: 'pbr',
  files: { 'pbr-material.wgsl': pbrMaterialWgsl },
  layoutEntries(): GPUBindGroupLayoutEntry[] {
    const FRAGMENT = GPUShaderStage.FRAGMENT;
    const texture = (binding: number): GPUBindGroupLayoutEntry => ({ binding, visibility: FRAGMENT, texture: { sampleType: 'float' } });
    const sampler = (binding: number): GPUBindGroupLayoutEntry => ({ binding, visibility: FRAGMENT, sampler: { type: 'filtering' } });
    const M = MaterialBinding;
    return [
      { binding: M.UNIFORMS, visibility: FRAGMENT, buffer: { type: 'uniform', minBindingSize: MATERIAL_UNIFORMS_SIZE } },
      texture(M.BASE_COLOR_TEXTURE), sampler(M.BASE_COLOR_SAMPLER),
      texture(M.METALLIC_ROUGHNESS_TEXTURE), sampler(M.METALLIC_ROUGHNESS_SAMPLER),
      texture(M.NORMAL_TEXTURE), sampler(M.NORMAL_SAMPLER),
      texture(M.OCCLUSION_TEXTURE), sampler(M.OCCLUSION_SAMPLER),
      texture(M.EMISSIVE_TEXTURE), sampler(M.EMISSIVE_SAMPLER),
    ];
  },
  constants(features: number) {
    return { vertex: {}, fragment: { MATERIAL_TEXTURES: pbrTextures(features), MATERIAL_SHADING: features >> SHADING_SHIFT } };
  },
  allFeatures: pbrFeatures(ALL_MATERIAL_TEXTURES),
  fragmentEntry: 'fsMain',
  leanFragmentEntry: 'fsMainLean',
  outlines: () => false,
};
