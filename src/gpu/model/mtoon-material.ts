/**
 * The MToon path's material upload: MToonUniforms (layouts/mtoon-uniforms.ts) and a texture and
 * sampler per slot — the glTF base colour (sRGB), normal and emissive (sRGB) textures and
 * MToon's own: shade multiply, matcap and rim multiply (sRGB colours), shading shift,
 * outline width multiply and UV animation mask (linear data, read from one channel each).
 * A slot without a texture binds a default and is not sampled (MToonFeature bits).
 */
import type { Material } from '../../gltf/model.ts';
import { MTOON_DEFAULTS } from '../../gltf/mtoon-model.ts';
import { BLENDED_QUEUE, type MaterialTextures, type MaterialUploader } from './material-upload.ts';
import { MToonBinding, mtoonFeatures, MTOON_UNIFORMS_SIZE, packAnimatedMToonValues, packMToonUniforms } from '../layouts/mtoon-uniforms.ts';

export const MTOON_UPLOADER: MaterialUploader = {
  uniformsSize: MTOON_UNIFORMS_SIZE,
  pack: packMToonUniforms,
  packAnimated: packAnimatedMToonValues,
  features: mtoonFeatures,
  blending(m: Material) {
    const t = m.mtoon ?? MTOON_DEFAULTS;
    // three-vrm's renderOrder: (transparentWithZWrite ? 0 : 19) + renderQueueOffsetNumber.
    return { queue: (t.transparentWithZWrite ? 0 : BLENDED_QUEUE) + t.renderQueueOffsetNumber, depthWrite: t.transparentWithZWrite };
  },
  async textureEntries(m: Material, textures: MaterialTextures, path: string): Promise<GPUBindGroupEntry[]> {
    const t = m.mtoon ?? MTOON_DEFAULTS;
    const B = MToonBinding;
    const { whiteSrgb, whiteLinear, flatNormal } = textures.defaults;
    const at = `${path}.extensions.VRMC_materials_mtoon`;
    const slots = [
      [m.baseColorTexture, true, whiteSrgb, `${path}.baseColorTexture`, B.BASE_COLOR_TEXTURE, B.BASE_COLOR_SAMPLER],
      [m.normalTexture, false, flatNormal, `${path}.normalTexture`, B.NORMAL_TEXTURE, B.NORMAL_SAMPLER],
      [m.emissiveTexture, true, whiteSrgb, `${path}.emissiveTexture`, B.EMISSIVE_TEXTURE, B.EMISSIVE_SAMPLER],
      [t.shadeMultiplyTexture, true, whiteSrgb, `${at}.shadeMultiplyTexture`, B.SHADE_MULTIPLY_TEXTURE, B.SHADE_MULTIPLY_SAMPLER],
      [t.shadingShiftTexture, false, whiteLinear, `${at}.shadingShiftTexture`, B.SHADING_SHIFT_TEXTURE, B.SHADING_SHIFT_SAMPLER],
      [t.matcapTexture, true, whiteSrgb, `${at}.matcapTexture`, B.MATCAP_TEXTURE, B.MATCAP_SAMPLER],
      [t.rimMultiplyTexture, true, whiteSrgb, `${at}.rimMultiplyTexture`, B.RIM_MULTIPLY_TEXTURE, B.RIM_MULTIPLY_SAMPLER],
      [t.outlineWidthMultiplyTexture, false, whiteLinear, `${at}.outlineWidthMultiplyTexture`, B.OUTLINE_WIDTH_MULTIPLY_TEXTURE, B.OUTLINE_WIDTH_MULTIPLY_SAMPLER],
      [t.uvAnimationMaskTexture, false, whiteLinear, `${at}.uvAnimationMaskTexture`, B.UV_ANIMATION_MASK_TEXTURE, B.UV_ANIMATION_MASK_SAMPLER],
    ] as const;
    const entries: GPUBindGroupEntry[] = [];
    for (const [info, srgb, fallback, usedAt, textureBinding, samplerBinding] of slots) {
      entries.push(
        { binding: textureBinding, resource: await textures.view(info, srgb, fallback, usedAt) },
        { binding: samplerBinding, resource: textures.sampler(info) },
      );
    }
    return entries;
  },
};
