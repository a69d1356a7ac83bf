/**
 * The MToon material path (shaders/mtoon.wgsl): VRM's toon material. Its features
 * (MToonFeature) compile in only the textures a material has, the UV animation when it moves
 * and the outline's width mode; a material with an outline gets a second pipeline, the
 * outline (`OUTLINE` on: the inverted hull, front faces culled).
 */
import { ALL_MTOON_FEATURES, MToonBinding, MToonFeature, MTOON_UNIFORMS_SIZE } from '../layouts/mtoon-uniforms.ts';
import { DeferredWgsl, type MaterialPath } from './material-path.ts';

export const MTOON_PATH: MaterialPath = {
  name: 'mtoon',
  files: {},
  deferredFiles: new DeferredWgsl('mtoon', () => import('./mtoon-wgsl.ts').then((m) => m.MTOON_WGSL)),
  layoutEntries(): GPUBindGroupLayoutEntry[] {
    const VERTEX = GPUShaderStage.VERTEX, FRAGMENT = GPUShaderStage.FRAGMENT;
    const B = MToonBinding;
    // The outline's vertex stage reads the width, its texture and the UV animation (mask included).
    const stages = (binding: number): number =>
      (binding === B.OUTLINE_WIDTH_MULTIPLY_TEXTURE || binding === B.OUTLINE_WIDTH_MULTIPLY_SAMPLER ? VERTEX
        : binding === B.UNIFORMS || binding === B.UV_ANIMATION_MASK_TEXTURE || binding === B.UV_ANIMATION_MASK_SAMPLER ? VERTEX | FRAGMENT : FRAGMENT);
    const entries: GPUBindGroupLayoutEntry[] = [{ binding: B.UNIFORMS, visibility: stages(B.UNIFORMS), buffer: { type: 'uniform', minBindingSize: MTOON_UNIFORMS_SIZE } }];
    for (let binding = B.BASE_COLOR_TEXTURE; binding <= B.UV_ANIMATION_MASK_SAMPLER; binding += 2) {
      entries.push(
        { binding, visibility: stages(binding), texture: { sampleType: 'float' } },
        { binding: binding + 1, visibility: stages(binding + 1), sampler: { type: 'filtering' } },
      );
    }
    return entries;
  },
  constants(features: number) {
    return { vertex: { MTOON_FEATURES: features }, fragment: { MTOON_FEATURES: features } };
  },
  allFeatures: ALL_MTOON_FEATURES,
  fragmentEntry: 'fsMToon',
  leanFragmentEntry: undefined,
  outlines: (features) => (features & MToonFeature.OUTLINE) !== 0,
};
