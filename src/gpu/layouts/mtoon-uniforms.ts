/**
 * The MToon path's TS side of shaders/mtoon.wgsl: the byte layout of `struct MToonUniforms`
 * (group 2 binding 0), the group 2 binding numbers, the feature bits (`MTOON_FEATURES`), and
 * packing a material's uniforms — at upload, and for an animated material (expression binds,
 * UV animation time) from its MaterialAnimation values per frame, allocating nothing.
 * test/gpu/mtoon-layout.test.ts checks every offset, binding and bit against the WGSL.
 */
import { uvTransformMatrix } from '../../gltf/extensions/khr-texture-transform.ts';
import { MaterialAnimOffset, MToonTextureSlot, TextureSlot, UV_TRANSFORM_FLOATS } from '../../gltf/extensions/khr-animation-pointer.ts';
import type { Material, TextureInfo } from '../../gltf/model.ts';
import { hasMToonOutline, hasMToonUvAnimation, MTOON_DEFAULTS } from '../../gltf/mtoon-model.ts';
import { AlphaModeCode } from './bindings.ts';
import { packUvMatrix } from './material-uniforms.ts';

export const MToonUniformsOffset = {
  /** vec4f: baseColorFactor, linear RGBA. */
  LIT_FACTOR: 0,
  /** vec3f each, linear RGB. */
  SHADE_COLOR_FACTOR: 16,
  SHADING_SHIFT_FACTOR: 28,
  /** vec3f: emissiveFactor × KHR_materials_emissive_strength. */
  EMISSIVE_FACTOR: 32,
  SHADING_SHIFT_TEXTURE_SCALE: 44,
  MATCAP_FACTOR: 48,
  SHADING_TOONY_FACTOR: 60,
  PARAMETRIC_RIM_COLOR_FACTOR: 64,
  GI_EQUALIZATION_FACTOR: 76,
  OUTLINE_COLOR_FACTOR: 80,
  RIM_LIGHTING_MIX_FACTOR: 92,
  PARAMETRIC_RIM_FRESNEL_POWER_FACTOR: 96,
  PARAMETRIC_RIM_LIFT_FACTOR: 100,
  /** f32: metres, or a fraction of the view's half height (screen coordinates). */
  OUTLINE_WIDTH_FACTOR: 104,
  OUTLINE_LIGHTING_MIX_FACTOR: 108,
  UV_ANIMATION_SCROLL_X_SPEED_FACTOR: 112,
  UV_ANIMATION_SCROLL_Y_SPEED_FACTOR: 116,
  UV_ANIMATION_ROTATION_SPEED_FACTOR: 120,
  /** f32: seconds the UV animation has run (MaterialAnimation.uvAnimationTime; 0 unanimated). */
  UV_ANIMATION_TIME: 124,
  NORMAL_SCALE: 128,
  ALPHA_CUTOFF: 132,
  /** u32: an AlphaModeCode. */
  ALPHA_MODE: 136,
  /** u32: bit s (MToonTextureBit order) set when slot s reads TEXCOORD_1. */
  TEX_COORDS: 140,
  /** mat3x2f each (24 bytes): the slot's KHR_texture_transform, uv' = M · (u, v, 1), after the UV animation. */
  BASE_COLOR_UV_TRANSFORM: 144,
  NORMAL_UV_TRANSFORM: 168,
  EMISSIVE_UV_TRANSFORM: 192,
  SHADE_MULTIPLY_UV_TRANSFORM: 216,
  SHADING_SHIFT_UV_TRANSFORM: 240,
  MATCAP_UV_TRANSFORM: 264,
  RIM_MULTIPLY_UV_TRANSFORM: 288,
  OUTLINE_WIDTH_MULTIPLY_UV_TRANSFORM: 312,
  UV_ANIMATION_MASK_UV_TRANSFORM: 336,
} as const;

export const MTOON_UNIFORMS_SIZE = 368;

/** Group 2 bindings of the MToon path: the uniforms, then a texture and its sampler per slot. */
export const MToonBinding = {
  UNIFORMS: 0,
  BASE_COLOR_TEXTURE: 1, BASE_COLOR_SAMPLER: 2,
  NORMAL_TEXTURE: 3, NORMAL_SAMPLER: 4,
  EMISSIVE_TEXTURE: 5, EMISSIVE_SAMPLER: 6,
  SHADE_MULTIPLY_TEXTURE: 7, SHADE_MULTIPLY_SAMPLER: 8,
  SHADING_SHIFT_TEXTURE: 9, SHADING_SHIFT_SAMPLER: 10,
  MATCAP_TEXTURE: 11, MATCAP_SAMPLER: 12,
  RIM_MULTIPLY_TEXTURE: 13, RIM_MULTIPLY_SAMPLER: 14,
  OUTLINE_WIDTH_MULTIPLY_TEXTURE: 15, OUTLINE_WIDTH_MULTIPLY_SAMPLER: 16,
  UV_ANIMATION_MASK_TEXTURE: 17, UV_ANIMATION_MASK_SAMPLER: 18,
} as const;

/**
 * The MToon path's feature bits (GpuMaterial.features, mtoon.wgsl `MTOON_FEATURES`): which
 * slots hold the material's own texture (the others are not sampled), then whether its UVs
 * animate, whether it has an outline (outline pipelines are built) and the outline's width mode.
 */
export const MToonFeature = {
  BASE_COLOR_TEXTURE: 1,
  NORMAL_TEXTURE: 2,
  EMISSIVE_TEXTURE: 4,
  SHADE_MULTIPLY_TEXTURE: 8,
  SHADING_SHIFT_TEXTURE: 16,
  MATCAP_TEXTURE: 32,
  RIM_MULTIPLY_TEXTURE: 64,
  OUTLINE_WIDTH_MULTIPLY_TEXTURE: 128,
  UV_ANIMATION_MASK_TEXTURE: 256,
  UV_ANIMATION: 512,
  OUTLINE: 1024,
  OUTLINE_SCREEN_COORDINATES: 2048,
} as const;
export const ALL_MTOON_FEATURES = 4095;

/** A material's texture slots, in MToonFeature bit order, with where their UV matrix goes. */
function slots(m: Material): readonly (readonly [TextureInfo | undefined, number, number])[] {
  const t = m.mtoon ?? MTOON_DEFAULTS;
  const O = MToonUniformsOffset, F = MToonFeature;
  return [
    [m.baseColorTexture, F.BASE_COLOR_TEXTURE, O.BASE_COLOR_UV_TRANSFORM],
    [m.normalTexture, F.NORMAL_TEXTURE, O.NORMAL_UV_TRANSFORM],
    [m.emissiveTexture, F.EMISSIVE_TEXTURE, O.EMISSIVE_UV_TRANSFORM],
    [t.shadeMultiplyTexture, F.SHADE_MULTIPLY_TEXTURE, O.SHADE_MULTIPLY_UV_TRANSFORM],
    [t.shadingShiftTexture, F.SHADING_SHIFT_TEXTURE, O.SHADING_SHIFT_UV_TRANSFORM],
    [t.matcapTexture, F.MATCAP_TEXTURE, O.MATCAP_UV_TRANSFORM],
    [t.rimMultiplyTexture, F.RIM_MULTIPLY_TEXTURE, O.RIM_MULTIPLY_UV_TRANSFORM],
    [t.outlineWidthMultiplyTexture, F.OUTLINE_WIDTH_MULTIPLY_TEXTURE, O.OUTLINE_WIDTH_MULTIPLY_UV_TRANSFORM],
    [t.uvAnimationMaskTexture, F.UV_ANIMATION_MASK_TEXTURE, O.UV_ANIMATION_MASK_UV_TRANSFORM],
  ];
}

/** The features of a material drawn with MToon. */
export function mtoonFeatures(m: Material): number {
  const t = m.mtoon ?? MTOON_DEFAULTS;
  let bits = 0;
  for (const [info, bit] of slots(m)) if (info) bits |= bit;
  if (hasMToonUvAnimation(t)) bits |= MToonFeature.UV_ANIMATION;
  if (hasMToonOutline(t)) bits |= MToonFeature.OUTLINE;
  if (t.outlineWidthMode === 'screenCoordinates') bits |= MToonFeature.OUTLINE_SCREEN_COORDINATES;
  return bits;
}

/** Packs `m` (its MToon parameters, MTOON_DEFAULTS without) into a new MTOON_UNIFORMS_SIZE-byte buffer (upload time). */
export function packMToonUniforms(m: Material): ArrayBuffer {
  const buffer = new ArrayBuffer(MTOON_UNIFORMS_SIZE);
  const f32 = new Float32Array(buffer);
  const u32 = new Uint32Array(buffer);
  const t = m.mtoon ?? MTOON_DEFAULTS;
  const O = MToonUniformsOffset;
  const strength = m.emissiveStrength ?? 1;
  f32.set(m.baseColorFactor, O.LIT_FACTOR / 4);
  f32.set(t.shadeColorFactor, O.SHADE_COLOR_FACTOR / 4);
  f32[O.SHADING_SHIFT_FACTOR / 4] = t.shadingShiftFactor;
  f32.set(m.emissiveFactor.map((v) => v * strength), O.EMISSIVE_FACTOR / 4);
  f32[O.SHADING_SHIFT_TEXTURE_SCALE / 4] = t.shadingShiftTexture?.scale ?? 1;
  f32.set(t.matcapFactor, O.MATCAP_FACTOR / 4);
  f32[O.SHADING_TOONY_FACTOR / 4] = t.shadingToonyFactor;
  f32.set(t.parametricRimColorFactor, O.PARAMETRIC_RIM_COLOR_FACTOR / 4);
  f32[O.GI_EQUALIZATION_FACTOR / 4] = t.giEqualizationFactor;
  f32.set(t.outlineColorFactor, O.OUTLINE_COLOR_FACTOR / 4);
  f32[O.RIM_LIGHTING_MIX_FACTOR / 4] = t.rimLightingMixFactor;
  f32[O.PARAMETRIC_RIM_FRESNEL_POWER_FACTOR / 4] = t.parametricRimFresnelPowerFactor;
  f32[O.PARAMETRIC_RIM_LIFT_FACTOR / 4] = t.parametricRimLiftFactor;
  f32[O.OUTLINE_WIDTH_FACTOR / 4] = t.outlineWidthFactor;
  f32[O.OUTLINE_LIGHTING_MIX_FACTOR / 4] = t.outlineLightingMixFactor;
  f32[O.UV_ANIMATION_SCROLL_X_SPEED_FACTOR / 4] = t.uvAnimationScrollXSpeedFactor;
  f32[O.UV_ANIMATION_SCROLL_Y_SPEED_FACTOR / 4] = t.uvAnimationScrollYSpeedFactor;
  f32[O.UV_ANIMATION_ROTATION_SPEED_FACTOR / 4] = t.uvAnimationRotationSpeedFactor;
  f32[O.NORMAL_SCALE / 4] = m.normalTexture?.scale ?? 1;
  f32[O.ALPHA_CUTOFF / 4] = m.alphaCutoff;
  u32[O.ALPHA_MODE / 4] = AlphaModeCode[m.alphaMode];
  let texCoords = 0;
  for (const [info, bit, offset] of slots(m)) {
    if (info?.texCoord === 1) texCoords |= bit;
    const tr = info?.transform;
    f32.set(tr ? uvTransformMatrix(tr.offset, tr.rotation, tr.scale) : [1, 0, 0, 1, 0, 0], offset / 4);
  }
  u32[O.TEX_COORDS / 4] = texCoords;
  return buffer;
}

/** Uniform offsets of the UV matrices the animated values hold, with where they sit in a MaterialAnimation block. */
const ANIMATED_UV: readonly (readonly [number, number])[] = [
  [MToonUniformsOffset.BASE_COLOR_UV_TRANSFORM, MaterialAnimOffset.UV_TRANSFORM + TextureSlot.BASE_COLOR * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.NORMAL_UV_TRANSFORM, MaterialAnimOffset.UV_TRANSFORM + TextureSlot.NORMAL * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.EMISSIVE_UV_TRANSFORM, MaterialAnimOffset.UV_TRANSFORM + TextureSlot.EMISSIVE * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.SHADE_MULTIPLY_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.SHADE_MULTIPLY * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.SHADING_SHIFT_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.SHADING_SHIFT * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.MATCAP_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.MATCAP * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.RIM_MULTIPLY_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.RIM_MULTIPLY * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.OUTLINE_WIDTH_MULTIPLY_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.OUTLINE_WIDTH_MULTIPLY * UV_TRANSFORM_FLOATS],
  [MToonUniformsOffset.UV_ANIMATION_MASK_UV_TRANSFORM, MaterialAnimOffset.MTOON_UV_TRANSFORM + MToonTextureSlot.UV_ANIMATION_MASK * UV_TRANSFORM_FLOATS],
];

/** The RGB values the animated block holds, with their uniform offsets. */
const ANIMATED_RGB: readonly (readonly [number, number])[] = [
  [MToonUniformsOffset.SHADE_COLOR_FACTOR, MaterialAnimOffset.MTOON_SHADE_COLOR],
  [MToonUniformsOffset.MATCAP_FACTOR, MaterialAnimOffset.MTOON_MATCAP_FACTOR],
  [MToonUniformsOffset.PARAMETRIC_RIM_COLOR_FACTOR, MaterialAnimOffset.MTOON_RIM_COLOR],
  [MToonUniformsOffset.OUTLINE_COLOR_FACTOR, MaterialAnimOffset.MTOON_OUTLINE_COLOR],
];

/**
 * One MToon material's animated values (`values` at `v`, the MaterialAnimOffset layout) into
 * its uniforms (`out` at float `u`, packed at upload): lit colour, emissive × its (animated) strength, cutoff,
 * the MToon colours, the UV animation time and every slot's UV matrix. Allocates nothing.
 */
export function packAnimatedMToonValues(values: Float32Array, v: number, out: Float32Array, u: number): void {
  const emissiveStrength = values[v + MaterialAnimOffset.EMISSIVE_STRENGTH];
  const O = MToonUniformsOffset;
  for (let c = 0; c < 4; c++) out[u + O.LIT_FACTOR / 4 + c] = values[v + MaterialAnimOffset.BASE_COLOR_FACTOR + c];
  for (let c = 0; c < 3; c++) out[u + O.EMISSIVE_FACTOR / 4 + c] = values[v + MaterialAnimOffset.EMISSIVE_FACTOR + c] * emissiveStrength;
  out[u + O.ALPHA_CUTOFF / 4] = values[v + MaterialAnimOffset.ALPHA_CUTOFF];
  out[u + O.UV_ANIMATION_TIME / 4] = values[v + MaterialAnimOffset.MTOON_UV_ANIMATION_TIME];
  for (let i = 0; i < ANIMATED_RGB.length; i++) {
    const [uniform, value] = ANIMATED_RGB[i];
    for (let c = 0; c < 3; c++) out[u + uniform / 4 + c] = values[v + value + c];
  }
  for (let i = 0; i < ANIMATED_UV.length; i++) {
    const [uniform, value] = ANIMATED_UV[i];
    packUvMatrix(values, v + value, out, u + uniform / 4);
  }
}
