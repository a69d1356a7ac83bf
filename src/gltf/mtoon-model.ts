/**
 * MToon, VRM's toon material, as VRMC_materials_mtoon 1.0 defines its parameters. A VRM 1.0
 * file gives them in `materials[i].extensions.VRMC_materials_mtoon`
 * (extensions/vrmc-materials-mtoon.ts); a VRM 0.x file's `materialProperties` with shader
 * `VRM/MToon` (or `VRM/Unlit*`) are converted to them at load as three-vrm 3.x does
 * (extensions/vrm0-mtoon.ts). The lit colour, normal map, emission, alpha mode and
 * double-sidedness are the glTF material's own (`Material`), as the specification says.
 *
 * Values are checked: colours in [0, 1], factors in their ranges, the render queue offset an
 * integer in the range its alpha mode allows; what was out of range was clamped with a warning.
 * Defaults are the specification's prose (and three-vrm's): its schema disagrees in places
 * (shadeColorFactor, rimLightingMixFactor, parametricRimFresnelPowerFactor), three-vrm follows
 * the prose.
 */
import type { Rgb } from './pbr-extensions-model.ts';
import type { TextureInfo } from './texture-info.ts';

/**
 * How an MToon outline's width is measured: no outline, metres in the world, or a share of the screen height.
 */
export type MToonOutlineWidthMode = 'none' | 'worldCoordinates' | 'screenCoordinates';
export const MTOON_OUTLINE_WIDTH_MODES: readonly MToonOutlineWidthMode[] = ['none', 'worldCoordinates', 'screenCoordinates'];

/**
 * An MToon material's parameters (VRMC_materials_mtoon 1.0's, VRM 0.x converted to them): shade colour and
 * shift, rim, matcap, outline and UV animation.
 */
export interface MToonMaterial {
  /** Alpha mode BLEND that still writes depth (drawn before the other blended materials). */
  readonly transparentWithZWrite: boolean;
  /** Draw order offset among blended materials: 0…9 with z-write, −9…0 without; 0 otherwise. */
  readonly renderQueueOffsetNumber: number;

  /** Linear RGB; multiplied by `shadeMultiplyTexture`. */
  readonly shadeColorFactor: Rgb;
  readonly shadeMultiplyTexture: TextureInfo | undefined;
  /** Added to N·L before the toony ramp. */
  readonly shadingShiftFactor: number;
  /** R channel × `scale` (TextureInfo.scale) is added to the shift. */
  readonly shadingShiftTexture: TextureInfo | undefined;
  /** 0: a soft Lambert ramp over N·L ∈ [−1, 1]; 1: a hard step. */
  readonly shadingToonyFactor: number;
  /** 0: GI by the normal; 1: GI as the mean of up and down, the same from every direction. */
  readonly giEqualizationFactor: number;

  readonly matcapFactor: Rgb;
  readonly matcapTexture: TextureInfo | undefined;
  readonly parametricRimColorFactor: Rgb;
  readonly rimMultiplyTexture: TextureInfo | undefined;
  /** 0: the rim glows as emission; 1: the rim is lit by the light reaching the surface. */
  readonly rimLightingMixFactor: number;
  readonly parametricRimFresnelPowerFactor: number;
  readonly parametricRimLiftFactor: number;

  readonly outlineWidthMode: MToonOutlineWidthMode;
  /** Metres (worldCoordinates) or a fraction of the view (screenCoordinates). */
  readonly outlineWidthFactor: number;
  /** G channel multiplies the width. */
  readonly outlineWidthMultiplyTexture: TextureInfo | undefined;
  readonly outlineColorFactor: Rgb;
  readonly outlineLightingMixFactor: number;

  /** B channel multiplies the three speeds. */
  readonly uvAnimationMaskTexture: TextureInfo | undefined;
  /** UV units per second. */
  readonly uvAnimationScrollXSpeedFactor: number;
  readonly uvAnimationScrollYSpeedFactor: number;
  /** Radians per second, counter-clockwise about (0.5, 0.5) in U-right, V-down space. */
  readonly uvAnimationRotationSpeedFactor: number;
}

/** The parameters of an extension object with nothing but `specVersion`. */
export const MTOON_DEFAULTS: MToonMaterial = Object.freeze({
  transparentWithZWrite: false,
  renderQueueOffsetNumber: 0,
  shadeColorFactor: [0, 0, 0] as const,
  shadeMultiplyTexture: undefined,
  shadingShiftFactor: 0,
  shadingShiftTexture: undefined,
  shadingToonyFactor: 0.9,
  giEqualizationFactor: 0.9,
  matcapFactor: [1, 1, 1] as const,
  matcapTexture: undefined,
  parametricRimColorFactor: [0, 0, 0] as const,
  rimMultiplyTexture: undefined,
  rimLightingMixFactor: 1,
  parametricRimFresnelPowerFactor: 5,
  parametricRimLiftFactor: 0,
  outlineWidthMode: 'none' as const,
  outlineWidthFactor: 0,
  outlineWidthMultiplyTexture: undefined,
  outlineColorFactor: [0, 0, 0] as const,
  outlineLightingMixFactor: 1,
  uvAnimationMaskTexture: undefined,
  uvAnimationScrollXSpeedFactor: 0,
  uvAnimationScrollYSpeedFactor: 0,
  uvAnimationRotationSpeedFactor: 0,
});

/** Whether the material draws an outline (three-vrm's rule: a mode other than none and a width above 0). */
export function hasMToonOutline(m: MToonMaterial): boolean {
  return m.outlineWidthMode !== 'none' && m.outlineWidthFactor > 0;
}

/** Whether the material's UVs move (any speed other than 0). */
export function hasMToonUvAnimation(m: MToonMaterial): boolean {
  return m.uvAnimationScrollXSpeedFactor !== 0 || m.uvAnimationScrollYSpeedFactor !== 0 || m.uvAnimationRotationSpeedFactor !== 0;
}
