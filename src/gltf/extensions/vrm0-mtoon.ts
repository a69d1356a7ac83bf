/**
 * VRM 0.x materials into MToon 1.0, with three-vrm 3.x's conversion
 * (VRMMaterialsV0CompatPlugin): a `materialProperties` entry with shader `VRM/MToon` rewrites
 * its glTF material's colour, textures, alpha mode and sides from the Unity properties and
 * gains MToon 1.0 parameters; `VRM/UnlitTexture`, `VRM/UnlitCutout`, `VRM/UnlitTransparent` and
 * `VRM/UnlitTransparentZWrite` become MToon whose shade colour is the lit colour (flat, lit
 * only by the light's colour). `VRM_USE_GLTFSHADER` keeps the glTF material.
 *
 * The conversion, as three-vrm does it: Unity colours are gamma 2.2 (alpha linear, except the
 * unlit shaders', whose alpha three-vrm also decodes: kept); `_ShadeToony` and `_ShadeShift`
 * become toony = lerp(toony₀, 1, ½ + ½·shift₀) and shift = −shift₀ − (1 − toony);
 * GI equalisation = 1 − `_IndirectLightIntensity` (0 leaves the default); outline widths are
 * centimetres (× 0.01); the V scroll is negated; `_MainTex`'s scale/offset becomes a
 * KHR_texture_transform on every texture but the matcap; blended materials' render queues
 * become offsets by rank (the distinct queues of each kind, ascending: ranks 0…9 with z-write,
 * −9…0 without; sorted as numbers, where three-vrm sorts them as text, which differs only for
 * queues of different digit counts). Every value then passes the 1.0 checks
 * (vrmc-materials-mtoon.ts), warnings naming the 0.x property it came from.
 */
import type { Material, TextureInfo } from '../model.ts';
import { MTOON_DEFAULTS, MTOON_OUTLINE_WIDTH_MODES } from '../mtoon-model.ts';
import type { Vrm0MaterialProperties } from '../vrm-model.ts';
import type { WarnFn } from '../errors.ts';
import { LenientReader } from './lenient-reader.ts';
import { checkMToon, MTOON_RENDER_QUEUE_STEPS, type MToonDraft } from './vrmc-materials-mtoon.ts';

const PATH = 'extensions.VRM.materialProperties';
const MTOON_SHADER = 'VRM/MToon';
const UNLIT_SHADERS = ['VRM/UnlitTexture', 'VRM/UnlitCutout', 'VRM/UnlitTransparent', 'VRM/UnlitTransparentZWrite'];
const GLTF_SHADER = 'VRM_USE_GLTFSHADER';
/** Unity's centimetre outline widths in metres. */
const OUTLINE_WIDTH_UNIT = 0.01;
const GAMMA = 2.2;

/** Where each 1.0 parameter comes from in a 0.x entry. */
const SOURCE: Readonly<Record<string, string>> = {
  transparentWithZWrite: 'floatProperties._ZWrite',
  renderQueueOffsetNumber: 'renderQueue',
  shadeColorFactor: 'vectorProperties._ShadeColor',
  shadeMultiplyTexture: 'textureProperties._ShadeTexture',
  shadingShiftFactor: 'floatProperties._ShadeShift',
  shadingShiftTexture: 'textureProperties._ShadingGradeTexture',
  shadingToonyFactor: 'floatProperties._ShadeToony',
  giEqualizationFactor: 'floatProperties._IndirectLightIntensity',
  matcapFactor: 'textureProperties._SphereAdd',
  matcapTexture: 'textureProperties._SphereAdd',
  parametricRimColorFactor: 'vectorProperties._RimColor',
  rimMultiplyTexture: 'textureProperties._RimTexture',
  rimLightingMixFactor: 'floatProperties._RimLightingMix',
  parametricRimFresnelPowerFactor: 'floatProperties._RimFresnelPower',
  parametricRimLiftFactor: 'floatProperties._RimLift',
  outlineWidthMode: 'floatProperties._OutlineWidthMode',
  outlineWidthFactor: 'floatProperties._OutlineWidth',
  outlineWidthMultiplyTexture: 'textureProperties._OutlineWidthTexture',
  outlineColorFactor: 'vectorProperties._OutlineColor',
  outlineLightingMixFactor: 'floatProperties._OutlineLightingMix',
  uvAnimationMaskTexture: 'textureProperties._UvAnimMaskTexture',
  uvAnimationScrollXSpeedFactor: 'floatProperties._UvAnimScrollX',
  uvAnimationScrollYSpeedFactor: 'floatProperties._UvAnimScrollY',
  uvAnimationRotationSpeedFactor: 'floatProperties._UvAnimRotation',
};

type MaterialDraft = { -readonly [K in keyof Material]: Material[K] };

/** `materials` with each VRM 0.x MToon / unlit entry of `properties` (by material index) converted. */
export function convertVrm0Materials(materials: readonly Material[], properties: readonly (Vrm0MaterialProperties | undefined)[], warn: WarnFn): Material[] {
  const reader = new LenientReader(warn);
  const queues = new RenderQueueRanks(properties);
  return materials.map((material, i) => {
    const p = properties[i];
    if (!p || p.shader === GLTF_SHADER) return material;
    const path = `${PATH}[${i}]`;
    if (p.shader === MTOON_SHADER) return convertMToon(material, p, path, queues, reader);
    if (p.shader !== undefined && UNLIT_SHADERS.includes(p.shader)) return convertUnlit(material, p, path, queues, reader);
    reader.warn(`${path}.shader`, `${JSON.stringify(p.shader)} is not a VRM 0.x shader three-vrm converts (VRM/MToon, VRM/Unlit*, VRM_USE_GLTFSHADER); the glTF material is drawn`);
    return material;
  });
}

/** What reading one entry needs: its properties, path and the checks. */
class Entry {
  constructor(readonly p: Vrm0MaterialProperties, readonly path: string, readonly reader: LenientReader) {}

  float(name: string, fallback: number): number {
    return this.p.floatProperties[name] ?? fallback;
  }

  /** A vector property padded with `fallback`'s components (with a warning when it is shorter). */
  vector(name: string, fallback: readonly number[]): number[] {
    const v = this.p.vectorProperties[name];
    if (v === undefined) return [...fallback];
    if (v.length < fallback.length) {
      this.reader.warn(`${this.path}.vectorProperties.${name}`, `has ${v.length} components, expected ${fallback.length}; the missing ones are [${fallback.slice(v.length).join(', ')}]`);
    }
    return fallback.map((f, c) => v[c] ?? f);
  }

  /** Gamma-encoded Unity colour components into linear ones (negative ones, which the curve cannot take, become 0 with a warning). */
  linear(name: string, values: number[], components: number): number[] {
    return values.map((v, c) => {
      if (c >= components) return v;
      if (v < 0) {
        this.reader.warn(`${this.path}.vectorProperties.${name}[${c}]`, `${v} is negative; using 0`);
        return 0;
      }
      return v ** GAMMA;
    });
  }

  texture(name: string, transform: TextureInfo['transform'], scale = 1): TextureInfo | undefined {
    const index = this.p.textureProperties[name];
    if (index === undefined) return undefined;
    return transform ? { index, texCoord: 0, scale, transform } : { index, texCoord: 0, scale };
  }

  /** `_MainTex`'s (offset, scale), V flipped into glTF's UV space, as a KHR_texture_transform; undefined without one. */
  mainTextureTransform(): TextureInfo['transform'] {
    if (this.p.vectorProperties._MainTex === undefined) return undefined;
    const [ou, ov, su, sv] = this.vector('_MainTex', [0, 0, 1, 1]);
    return { offset: [ou, 1 - sv - ov], rotation: 0, scale: [su, sv] };
  }

  pathOf = (key: string): string => `${this.path}.${SOURCE[key] ?? key}`;

  /** The glTF base colour: clamped into [0, 1] with warnings at `_Color`. */
  baseColor(rgba: number[]): [number, number, number, number] {
    const c = rgba.map((v, i) => this.reader.inRange(v, `${this.path}.vectorProperties._Color[${i}]`, 0, 1));
    return [c[0], c[1], c[2], c[3]];
  }
}

function convertMToon(material: Material, p: Vrm0MaterialProperties, path: string, queues: RenderQueueRanks, reader: LenientReader): Material {
  const e = new Entry(p, path, reader);
  const blend = p.keywordMap._ALPHABLEND_ON ?? false;
  const cutout = p.keywordMap._ALPHATEST_ON ?? false;
  const alphaMode = blend ? 'BLEND' : cutout ? 'MASK' : 'OPAQUE';
  const transform = e.mainTextureTransform();
  const color = e.linear('_Color', e.vector('_Color', [1, 1, 1, 1]), 3);
  const emission = e.linear('_EmissionColor', e.vector('_EmissionColor', [0, 0, 0]), 3);
  const out: MaterialDraft = {
    ...material,
    baseColorFactor: e.baseColor(color),
    baseColorTexture: e.texture('_MainTex', transform),
    metallicFactor: 1,
    roughnessFactor: 1,
    metallicRoughnessTexture: undefined,
    normalTexture: e.texture('_BumpMap', transform, e.float('_BumpScale', 1)),
    emissiveFactor: [emission[0], emission[1], emission[2]].map((v, c) => reader.inRange(v, `${path}.vectorProperties._EmissionColor[${c}]`, 0, 1)) as [number, number, number],
    emissiveTexture: e.texture('_EmissionMap', transform),
    emissiveStrength: undefined,
    alphaMode,
    alphaCutoff: cutout ? reader.inRange(e.float('_Cutoff', 0.5), `${path}.floatProperties._Cutoff`, 0, Infinity) : 0.5,
    doubleSided: e.float('_CullMode', 2) === 0,
  };

  const shift0 = e.float('_ShadeShift', 0);
  const toony = lerp(e.float('_ShadeToony', 0.9), 1, 0.5 + 0.5 * shift0);
  const gi = e.float('_IndirectLightIntensity', 0.1);
  const modeIndex = e.float('_OutlineWidthMode', 0);
  let outlineWidthMode = MTOON_OUTLINE_WIDTH_MODES[modeIndex];
  if (outlineWidthMode === undefined) {
    reader.warn(e.pathOf('outlineWidthMode'), `${modeIndex} is not 0 (none), 1 (world) or 2 (screen); using none`);
    outlineWidthMode = 'none';
  }
  const zWrite = blend && e.float('_ZWrite', 0) === 1;
  const matcap = e.texture('_SphereAdd', undefined);
  const draft: MToonDraft = {
    ...MTOON_DEFAULTS,
    transparentWithZWrite: zWrite,
    renderQueueOffsetNumber: blend ? queues.offset(p, zWrite) : 0,
    shadeColorFactor: rgb(e.linear('_ShadeColor', e.vector('_ShadeColor', [0.97, 0.81, 0.86]), 3)),
    shadeMultiplyTexture: e.texture('_ShadeTexture', transform),
    shadingShiftFactor: -shift0 - (1 - toony),
    shadingToonyFactor: toony,
    giEqualizationFactor: gi !== 0 ? 1 - gi : MTOON_DEFAULTS.giEqualizationFactor,
    matcapFactor: matcap ? [1, 1, 1] : MTOON_DEFAULTS.matcapFactor,
    matcapTexture: matcap,
    rimLightingMixFactor: e.float('_RimLightingMix', 0),
    rimMultiplyTexture: e.texture('_RimTexture', transform),
    parametricRimColorFactor: rgb(e.linear('_RimColor', e.vector('_RimColor', [0, 0, 0]), 3)),
    parametricRimFresnelPowerFactor: e.float('_RimFresnelPower', 1),
    parametricRimLiftFactor: e.float('_RimLift', 0),
    outlineWidthMode,
    outlineWidthFactor: e.float('_OutlineWidth', 0) * OUTLINE_WIDTH_UNIT,
    outlineWidthMultiplyTexture: e.texture('_OutlineWidthTexture', transform),
    outlineColorFactor: rgb(e.linear('_OutlineColor', e.vector('_OutlineColor', [0, 0, 0]), 3)),
    outlineLightingMixFactor: e.float('_OutlineColorMode', 0) === 1 ? e.float('_OutlineLightingMix', 1) : 0,
    uvAnimationMaskTexture: e.texture('_UvAnimMaskTexture', transform),
    uvAnimationScrollXSpeedFactor: e.float('_UvAnimScrollX', 0),
    uvAnimationScrollYSpeedFactor: -e.float('_UvAnimScrollY', 0),
    uvAnimationRotationSpeedFactor: e.float('_UvAnimRotation', 0),
  };
  out.mtoon = checkMToon(draft, alphaMode, reader, e.pathOf);
  return Object.freeze(out);
}

function convertUnlit(material: Material, p: Vrm0MaterialProperties, path: string, queues: RenderQueueRanks, reader: LenientReader): Material {
  const e = new Entry(p, path, reader);
  const zWrite = p.shader === 'VRM/UnlitTransparentZWrite';
  const blend = zWrite || p.shader === 'VRM/UnlitTransparent';
  const cutout = p.shader === 'VRM/UnlitCutout';
  const alphaMode = blend ? 'BLEND' : cutout ? 'MASK' : 'OPAQUE';
  const transform = e.mainTextureTransform();
  // three-vrm decodes the unlit shaders' alpha with the gamma curve too.
  const color = e.baseColor(e.linear('_Color', e.vector('_Color', [1, 1, 1, 1]), 4));
  const baseColorTexture = e.texture('_MainTex', transform);
  const out: MaterialDraft = {
    ...material,
    baseColorFactor: color,
    baseColorTexture,
    metallicFactor: 1,
    roughnessFactor: 1,
    metallicRoughnessTexture: undefined,
    alphaMode,
    alphaCutoff: cutout ? reader.inRange(e.float('_Cutoff', 0.5), `${path}.floatProperties._Cutoff`, 0, Infinity) : 0.5,
  };
  const draft: MToonDraft = {
    ...MTOON_DEFAULTS,
    transparentWithZWrite: zWrite,
    renderQueueOffsetNumber: blend ? queues.offset(p, zWrite) : 0,
    shadeColorFactor: [color[0], color[1], color[2]],
    shadeMultiplyTexture: baseColorTexture,
  };
  out.mtoon = checkMToon(draft, alphaMode, reader, (key) => (key === 'shadeColorFactor' ? `${path}.vectorProperties._Color` : e.pathOf(key)));
  return Object.freeze(out);
}

function rgb(v: readonly number[]): [number, number, number] {
  return [v[0], v[1], v[2]];
}

function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

/** Blended entries' render queues as 1.0 offsets: each queue's rank among the model's queues of its kind. */
class RenderQueueRanks {
  private readonly zWrite = new Map<number, number>();
  private readonly plain = new Map<number, number>();

  constructor(properties: readonly (Vrm0MaterialProperties | undefined)[]) {
    const zWrite = new Set<number>(), plain = new Set<number>();
    for (const p of properties) {
      if (!p || p.renderQueue === undefined || !isBlended(p)) continue;
      (writesDepth(p) ? zWrite : plain).add(p.renderQueue);
    }
    [...zWrite].sort((a, b) => a - b).forEach((q, i) => this.zWrite.set(q, Math.min(i, MTOON_RENDER_QUEUE_STEPS)));
    const plainSorted = [...plain].sort((a, b) => a - b);
    plainSorted.forEach((q, i) => this.plain.set(q, Math.max(i - plainSorted.length + 1, -MTOON_RENDER_QUEUE_STEPS)));
  }

  offset(p: Vrm0MaterialProperties, zWrite: boolean): number {
    if (p.renderQueue === undefined) return 0;
    return (zWrite ? this.zWrite : this.plain).get(p.renderQueue) ?? 0;
  }
}

/** three-vrm's test for the queue maps: a `_ALPHABLEND_ON` keyword present at all, or a transparent unlit shader. */
function isBlended(p: Vrm0MaterialProperties): boolean {
  return p.keywordMap._ALPHABLEND_ON !== undefined || p.shader === 'VRM/UnlitTransparent' || p.shader === 'VRM/UnlitTransparentZWrite';
}

function writesDepth(p: Vrm0MaterialProperties): boolean {
  return p.floatProperties._ZWrite === 1 || p.shader === 'VRM/UnlitTransparentZWrite';
}
