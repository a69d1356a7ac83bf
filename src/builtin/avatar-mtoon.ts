/**
 * The built-in VRM avatars' toon look: every material is MToon, with a shade colour, a hard
 * shading edge, a soft rim light and an outline (none on the eyes), so the demo shows MToon
 * without a file. The VRM 1.0 avatar writes VRMC_materials_mtoon; the 0.x one writes the same
 * look as Unity `materialProperties` (gamma-encoded colours, centimetre widths, 0.x's toony and
 * shift), which the loader converts back as three-vrm does (gltf/extensions/vrm0-mtoon.ts).
 */
import type { GltfBuilder } from '../gltf/builder.ts';

type Rgb = [number, number, number];

/** One material's look, in VRMC_materials_mtoon's terms (linear colours, metres). */
interface MToonLook {
  readonly shade: Rgb;
  readonly outlineWidth: number;
  readonly outlineColor: Rgb;
  readonly rim: Rgb;
}

const TOONY = 0.9;
const SHIFT = -0.05;
const GI_EQUALIZATION = 0.9;
const RIM_POWER = 4;
const RIM_LIFT = 0.05;
const OUTLINE_LIGHTING_MIX = 0.5;
/** Outline width in metres: thin lines, as VRoid's defaults draw them. */
const OUTLINE = 0.0025;

/** A darker, cooler shade of `c` (the usual toon shade), and a darker outline of it. */
function look(c: Rgb, outline = OUTLINE, rim: Rgb = [0.12, 0.12, 0.14]): MToonLook {
  return {
    shade: [c[0] * 0.5, c[1] * 0.48, Math.min(1, c[2] * 0.62 + 0.02)],
    outlineWidth: outline,
    outlineColor: [c[0] * 0.18, c[1] * 0.16, c[2] * 0.2],
    rim,
  };
}

/** Looks by material name; a material not listed keeps a plain look of its base colour. */
const LOOKS: Readonly<Record<string, (base: Rgb) => MToonLook>> = {
  Skin: (c) => ({ ...look(c), shade: [c[0] * 0.78, c[1] * 0.55, c[2] * 0.52] }),
  Face: (c) => ({ ...look(c, OUTLINE * 0.6), shade: [c[0] * 0.78, c[1] * 0.55, c[2] * 0.52] }),
  EyeWhite: (c) => look(c, 0, [0, 0, 0]),
  Shoes: (c) => look(c, OUTLINE, [0.2, 0.2, 0.22]),
};

function lookOf(name: string | undefined, base: Rgb): MToonLook {
  return (LOOKS[name ?? ''] ?? look)(base);
}

type MaterialJson = { name?: string; pbrMetallicRoughness?: { baseColorFactor?: number[] }; extensions?: Record<string, unknown> };

function baseOf(m: MaterialJson): Rgb {
  const c = m.pbrMetallicRoughness?.baseColorFactor ?? [1, 1, 1, 1];
  return [c[0], c[1], c[2]];
}

/** Gives every material of `b` a VRMC_materials_mtoon look (VRM 1.0). */
export function addMToon10(b: GltfBuilder): void {
  const json = b.json as unknown as { materials: MaterialJson[]; extensionsUsed: string[] };
  json.extensionsUsed.push('VRMC_materials_mtoon');
  for (const m of json.materials) {
    const l = lookOf(m.name, baseOf(m));
    m.extensions = {
      ...m.extensions,
      VRMC_materials_mtoon: {
        specVersion: '1.0',
        shadeColorFactor: l.shade, shadingToonyFactor: TOONY, shadingShiftFactor: SHIFT, giEqualizationFactor: GI_EQUALIZATION,
        parametricRimColorFactor: l.rim, parametricRimFresnelPowerFactor: RIM_POWER, parametricRimLiftFactor: RIM_LIFT, rimLightingMixFactor: 1,
        ...(l.outlineWidth > 0 ? {
          outlineWidthMode: 'worldCoordinates', outlineWidthFactor: l.outlineWidth, outlineColorFactor: l.outlineColor, outlineLightingMixFactor: OUTLINE_LIGHTING_MIX,
        } : {}),
      },
    };
  }
}

/** Unity's gamma-encoded colour of a linear one (alpha stays linear). */
function gamma(c: readonly number[]): number[] {
  return c.map((v, i) => (i < 3 ? v ** (1 / 2.2) : v));
}

/**
 * The same look as a VRM 0.x `materialProperties` entry (VRM/MToon) for material `m`: the
 * inverse of three-vrm's conversion (toony₁ = lerp(toony₀, 1, ½ + ½·shift₀),
 * shift₁ = −shift₀ − (1 − toony₁); widths in centimetres; colours gamma-encoded).
 */
export function mtoon0Properties(m: MaterialJson): Record<string, unknown> {
  const base = m.pbrMetallicRoughness?.baseColorFactor ?? [1, 1, 1, 1];
  const l = lookOf(m.name, baseOf(m));
  const shift0 = -SHIFT - (1 - TOONY);
  const w = 0.5 + 0.5 * shift0;
  const toony0 = (TOONY - w) / (1 - w);
  return {
    name: m.name, shader: 'VRM/MToon', renderQueue: 2000,
    floatProperties: {
      _Cutoff: 0.5, _ShadeShift: shift0, _ShadeToony: toony0, _IndirectLightIntensity: 1 - GI_EQUALIZATION, _CullMode: 2, _ZWrite: 1,
      _RimLightingMix: 1, _RimFresnelPower: RIM_POWER, _RimLift: RIM_LIFT,
      _OutlineWidthMode: l.outlineWidth > 0 ? 1 : 0, _OutlineWidth: l.outlineWidth * 100, _OutlineColorMode: 1, _OutlineLightingMix: OUTLINE_LIGHTING_MIX,
    },
    vectorProperties: {
      _Color: gamma(base), _ShadeColor: gamma([...l.shade, 1]), _EmissionColor: [0, 0, 0, 1], _RimColor: gamma([...l.rim, 1]),
      _OutlineColor: gamma([...l.outlineColor, 1]), _MainTex: [0, 0, 1, 1],
    },
    textureProperties: {}, keywordMap: {}, tagMap: { RenderType: 'Opaque' },
  };
}
