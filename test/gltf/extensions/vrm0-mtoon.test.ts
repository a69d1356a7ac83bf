/**
 * VRM 0.x materials converted to MToon 1.0 (gltf/extensions/vrm0-mtoon.ts) against three-vrm
 * 3.5's own conversion (VRMMaterialsV0CompatPlugin, which rewrites the glTF JSON into
 * VRMC_materials_mtoon before its MToon loader reads it): the same file, the same numbers.
 * Then bad 0.x values: warnings naming the 0.x property they came from.
 */
import { VRMMaterialsV0CompatPlugin } from '@pixiv/three-vrm-materials-v0compat';
import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Material, Model, TextureInfo } from '../../../src/gltf/model.ts';
import { MTOON_DEFAULTS, type MToonMaterial } from '../../../src/gltf/mtoon-model.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PNG_1X1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** The built-in VRM 0.x avatar with its materials' properties edited (and four textures to point at). */
function vrm0File(edit: (props: Json[], json: Json) => void): { glb: Uint8Array; json: Json } {
  const { json, bin } = parseGlb(buildBuiltinGlb('vrm0-avatar'));
  const j = json as Json;
  j.images = [0, 1, 2, 3].map(() => ({ uri: PNG_1X1 }));
  j.textures = [0, 1, 2, 3].map((source) => ({ source }));
  edit(j.extensions.VRM.materialProperties, j);
  return { glb: encodeGlb(j, bin), json: structuredClone(j) };
}

/** Varied properties: every MToon parameter, blended queues of both kinds, the unlit shaders. */
function variedProperties(props: Json[]): void {
  const set = (i: number, p: Json) => Object.assign(props[i], p);
  set(0, {
    floatProperties: {
      _ShadeShift: -0.3, _ShadeToony: 0.6, _IndirectLightIntensity: 0.25, _RimLightingMix: 0.4, _RimFresnelPower: 3, _RimLift: 0.2,
      _OutlineWidthMode: 2, _OutlineWidth: 0.5, _OutlineColorMode: 1, _OutlineLightingMix: 0.7, _UvAnimScrollX: 0.3, _UvAnimScrollY: 0.2,
      _UvAnimRotation: 0.1, _BumpScale: 0.8, _CullMode: 0,
    },
    vectorProperties: {
      _Color: [0.8, 0.6, 0.4, 1], _ShadeColor: [0.5, 0.4, 0.3, 1], _RimColor: [0.9, 0.9, 0.5, 1], _OutlineColor: [0.2, 0.1, 0.1, 1],
      _EmissionColor: [0.1, 0.2, 0.3, 1], _MainTex: [0.25, 0.5, 2, 0.5],
    },
    textureProperties: { _MainTex: 0, _ShadeTexture: 1, _BumpMap: 2, _EmissionMap: 3, _SphereAdd: 1, _RimTexture: 2, _OutlineWidthTexture: 3, _UvAnimMaskTexture: 0 },
  });
  set(1, { keywordMap: { _ALPHATEST_ON: true }, floatProperties: { ...props[1].floatProperties, _Cutoff: 0.3, _OutlineWidthMode: 1, _OutlineWidth: 0.2 } });
  set(2, { keywordMap: { _ALPHABLEND_ON: true }, renderQueue: 3001, floatProperties: { ...props[2].floatProperties, _ZWrite: 0 } });
  set(3, { keywordMap: { _ALPHABLEND_ON: true }, renderQueue: 3003, floatProperties: { ...props[3].floatProperties, _ZWrite: 0 } });
  set(4, { keywordMap: { _ALPHABLEND_ON: true }, renderQueue: 2501, floatProperties: { ...props[4].floatProperties, _ZWrite: 1 } });
  set(5, { shader: 'VRM/UnlitTransparentZWrite', renderQueue: 2502, vectorProperties: { _Color: [0.5, 0.5, 0.5, 0.5] }, textureProperties: { _MainTex: 2 } });
  set(6, { shader: 'VRM/UnlitCutout', floatProperties: { _Cutoff: 0.7 }, vectorProperties: { _Color: [1, 0.5, 0.25, 1] } });
  set(7, { shader: 'VRM_USE_GLTFSHADER' });
}

/** three-vrm's converted JSON of `json` (its plugin rewrites json.materials in place). */
async function threeVrmConversion(json: Json): Promise<Json[]> {
  const plugin = new VRMMaterialsV0CompatPlugin({ json } as never);
  const warn = console.warn;
  console.warn = () => {};
  try {
    await plugin.beforeRoot();
  } finally {
    console.warn = warn;
  }
  return json.materials;
}

const close = (a: readonly number[], b: readonly number[], what: string) => {
  expect(a.length, what).toBe(b.length);
  a.forEach((v, i) => expect(v, `${what}[${i}]`).toBeCloseTo(b[i], 6));
};

/** Our texture reference against three-vrm's JSON one (index and KHR_texture_transform). */
function sameTexture(ours: TextureInfo | undefined, theirs: Json | undefined, what: string): void {
  if (!theirs) return void expect(ours, what).toBeUndefined();
  expect(ours?.index, what).toBe(theirs.index);
  const t = theirs.extensions?.KHR_texture_transform;
  if (!t) return void expect(ours?.transform, what).toBeUndefined();
  close(ours!.transform!.offset, t.offset ?? [0, 0], `${what} offset`);
  close(ours!.transform!.scale, t.scale ?? [1, 1], `${what} scale`);
}

function sameMaterial(ours: Material, theirs: Json, what: string): void {
  const ext = theirs.extensions?.VRMC_materials_mtoon as Json | undefined;
  if (!ext) return void expect(ours.mtoon, what).toBeUndefined();
  close(ours.baseColorFactor, theirs.pbrMetallicRoughness.baseColorFactor, `${what} baseColorFactor`);
  sameTexture(ours.baseColorTexture, theirs.pbrMetallicRoughness.baseColorTexture, `${what} baseColorTexture`);
  sameTexture(ours.normalTexture, theirs.normalTexture, `${what} normalTexture`);
  if (theirs.normalTexture) expect(ours.normalTexture!.scale).toBeCloseTo(theirs.normalTexture.scale, 6);
  sameTexture(ours.emissiveTexture, theirs.emissiveTexture, `${what} emissiveTexture`);
  if (theirs.emissiveFactor) close(ours.emissiveFactor, theirs.emissiveFactor.slice(0, 3), `${what} emissiveFactor`);
  expect(ours.alphaMode, what).toBe(theirs.alphaMode);
  expect(ours.alphaCutoff, what).toBeCloseTo(theirs.alphaCutoff ?? 0.5, 6);
  expect(ours.doubleSided, what).toBe(theirs.doubleSided ?? false);
  const m = ours.mtoon!;
  for (const key of Object.keys(MTOON_DEFAULTS) as (keyof MToonMaterial)[]) {
    const expected = ext[key] ?? MTOON_DEFAULTS[key];
    const actual = m[key];
    if (key.endsWith('Texture')) sameTexture(actual as TextureInfo | undefined, ext[key], `${what} ${key}`);
    else if (Array.isArray(actual)) close(actual, (expected as number[]).slice(0, 3), `${what} ${key}`);
    else if (typeof actual === 'number') expect(actual, `${what} ${key}`).toBeCloseTo(expected as number, 6);
    else expect(actual, `${what} ${key}`).toBe(expected);
  }
}

describe('VRM 0.x materials into MToon 1.0, as three-vrm converts them', () => {
  it('converts the built-in avatar’s MToon materials to the numbers three-vrm gets', async () => {
    const { glb, json } = vrm0File(() => {});
    const [model, theirs] = await Promise.all([loadGltf(glb), threeVrmConversion(json)]);
    expect(model.warnings).toEqual([]);
    model.materials.forEach((m, i) => sameMaterial(m, theirs[i], `materials[${i}]`));
    expect(model.materials.map((m) => [m.name, m.mtoon?.outlineWidthMode])).toEqual(model.materials.map((m) => [m.name, m.name === 'EyeWhite' ? 'none' : 'worldCoordinates']));
  });

  it('converts every MToon parameter, blended render queues and the unlit shaders to the numbers three-vrm gets', async () => {
    const { glb, json } = vrm0File(variedProperties);
    const [model, theirs] = await Promise.all([loadGltf(glb), threeVrmConversion(json)]);
    expect(model.warnings).toEqual([]);
    model.materials.forEach((m, i) => sameMaterial(m, theirs[i], `materials[${i}]`));
    // Spot checks that the comparison saw the interesting values.
    const m0 = model.materials[0].mtoon!;
    expect(m0.outlineWidthMode).toBe('screenCoordinates');
    expect(m0.outlineWidthFactor).toBeCloseTo(0.005, 9);
    expect(m0.uvAnimationScrollYSpeedFactor).toBe(-0.2);
    expect(m0.shadingToonyFactor).toBeCloseTo(0.6 + 0.4 * (0.5 - 0.15), 9);
    expect(model.materials.slice(2, 6).map((m) => [m.mtoon!.transparentWithZWrite, m.mtoon!.renderQueueOffsetNumber]))
      .toEqual([[false, -1], [false, 0], [true, 0], [true, 1]]);
    expect(model.materials[5].mtoon!.shadeMultiplyTexture?.index).toBe(2);
    expect(model.materials[7].mtoon).toBeUndefined();
  });
});

describe('VRM 0.x MToon: bad values warn at the 0.x property', () => {
  it('names the Unity property of each value it had to change', async () => {
    const { glb } = vrm0File((props) => {
      Object.assign(props[0].floatProperties, { _OutlineWidthMode: 5, _ShadeToony: 3, _RimFresnelPower: -2, _OutlineWidth: -1 });
      Object.assign(props[0].vectorProperties, { _ShadeColor: [-0.5, 0.2, 2, 1], _Color: [1.5, 1, 1] });
      props[1].shader = 'Standard';
      props[2].keywordMap = { _ALPHABLEND_ON: true };
      props[2].floatProperties._ZWrite = 1;
      props[2].renderQueue = 3000;
    });
    const model: Model = await loadGltf(glb);
    const at = (path: string) => {
      const w = model.warnings.find((x) => x.path === `extensions.VRM.materialProperties[${path}`);
      expect(w, `no warning at ${path}: ${JSON.stringify(model.warnings)}`).toBeDefined();
      return w!.message;
    };
    expect(at('0].floatProperties._OutlineWidthMode')).toMatch(/using none/);
    expect(at('0].floatProperties._ShadeToony')).toMatch(/outside \[0, 1\]/);
    expect(at('0].floatProperties._RimFresnelPower')).toMatch(/outside/);
    expect(at('0].floatProperties._OutlineWidth')).toMatch(/outside/);
    expect(at('0].vectorProperties._ShadeColor[0]')).toMatch(/negative/);
    expect(at('0].vectorProperties._ShadeColor[2]')).toMatch(/outside \[0, 1\]/);
    expect(at('0].vectorProperties._Color')).toMatch(/3 components/);
    expect(at('0].vectorProperties._Color[0]')).toMatch(/outside \[0, 1\]/);
    expect(at('1].shader')).toMatch(/not a VRM 0\.x shader/);
    expect(model.materials[1].mtoon).toBeUndefined();
    expect(model.materials[0].mtoon!.outlineWidthMode).toBe('none');
    // A lone z-writing blended queue ranks 0: in range, no warning.
    expect(model.materials[2].mtoon).toMatchObject({ transparentWithZWrite: true, renderQueueOffsetNumber: 0 });
  });
});
