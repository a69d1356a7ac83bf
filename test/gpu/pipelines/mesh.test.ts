/**
 * Pipeline keys (src/gpu/pipelines/mesh.ts): what is compiled in per pipeline is part of the key,
 * so a primitive without morph targets never shares a pipeline compiled with them.
 */
import { describe, expect, it, vi } from 'vitest';
import meshWgsl from '../../../shaders/mesh.wgsl?raw';
import pbrMaterialWgsl from '../../../shaders/pbr-material.wgsl?raw';
import { ALL_MATERIAL_TEXTURES, MaterialTexture } from '../../../src/gpu/layouts/bindings.ts';
import { loadMaterialPaths, MATERIAL_PATHS, materialFeaturesOf, meshPipelineKey, meshShaderSource, meshVariantDesc, shadowsOf, usesLeanSurface, type MeshPipelineDesc } from '../../../src/gpu/pipelines/mesh.ts';
import { pbrFeatures, pbrShading, pbrTextures } from '../../../src/gpu/pipelines/pbr-path.ts';

const desc: MeshPipelineDesc = {
  vertexLayoutKey: 'p', vertexLayouts: [], influences: 4, topology: 'triangle-list', stripIndexFormat: undefined,
  alphaMode: 'OPAQUE', doubleSided: false, frontFace: 'ccw', colorFormat: 'rgba8unorm',
};

describe('material paths whose WGSL is deferred (a page fetches it only for a model that draws with the path)', () => {
  it('MToon\'s and the PBR extensions\' WGSL arrive with loadMaterialPaths; asked for before, meshShaderSource names the path', async () => {
    // A fresh copy of the modules: nothing loaded yet, as on a page's first load.
    vi.resetModules();
    const fresh = await import('../../../src/gpu/pipelines/mesh.ts');
    expect(fresh.meshShaderSource('pbr')).toContain('fn fsMain');
    for (const [path, marker] of [['mtoon', 'fn fsMToon'], ['pbr-extensions', 'fn fsExtended']] as const) {
      expect(() => fresh.meshShaderSource(path)).toThrow(`material path '${path}': its WGSL is not loaded yet`);
      await fresh.loadMaterialPaths([path]);
      expect(fresh.meshShaderSource(path)).toContain(marker);
    }
  });
});

describe('meshPipelineKey', () => {
  it('keys morph targets compiled in or out; unset means compiled in', () => {
    expect(meshPipelineKey({ ...desc, morphed: false })).not.toBe(meshPipelineKey({ ...desc, morphed: true }));
    expect(meshPipelineKey(desc)).toBe(meshPipelineKey({ ...desc, morphed: true }));
  });

  it('the overrides it sets exist in mesh.wgsl, defaulting to the behaviour of an unspecialised pipeline', async () => {
    expect(meshWgsl).toMatch(/override MORPH_TARGETS: bool = true;/);
    expect(meshWgsl).toMatch(/override ALPHA_TEST: bool = true;/);
    // discard only under ALPHA_TEST, in every material path, so opaque and blended pipelines compile without it.
    let discards = 0;
    await loadMaterialPaths(Object.keys(MATERIAL_PATHS) as (keyof typeof MATERIAL_PATHS)[]);
    for (const path of Object.keys(MATERIAL_PATHS) as (keyof typeof MATERIAL_PATHS)[]) {
      const source = meshShaderSource(path);
      for (const m of source.matchAll(/discard;/g)) {
        discards++;
        const before = source.slice(Math.max(0, m.index! - 120), m.index);
        expect(before, path).toMatch(/ALPHA_TEST &&/);
      }
    }
    expect(discards).toBeGreaterThan(0);
  });

  it('keys lean surfaces (shaded, vertex-skinned pipelines only); other variants and the compute path use the full layouts', () => {
    const lean = { ...desc, leanVertexLayouts: [] };
    expect(usesLeanSurface(desc)).toBe(false);
    expect(usesLeanSurface(lean)).toBe(true);
    expect(meshPipelineKey(lean)).not.toBe(meshPipelineKey(desc));
    expect(usesLeanSurface({ ...lean, preskinned: true })).toBe(false);
    expect(meshPipelineKey({ ...lean, preskinned: true })).toBe(meshPipelineKey({ ...desc, preskinned: true }));
    for (const variant of ['weights', 'wireframe'] as const) {
      expect(usesLeanSurface(meshVariantDesc(lean, variant))).toBe(false);
      expect(meshPipelineKey(meshVariantDesc(lean, variant))).toBe(meshPipelineKey(meshVariantDesc(desc, variant)));
    }
  });

  it('keys the material textures a shaded pipeline samples; unset means all; debug variants sample none of them and share', () => {
    const baseOnly = { ...desc, materialFeatures: pbrFeatures(MaterialTexture.BASE_COLOR) };
    expect(pbrTextures(materialFeaturesOf(desc))).toBe(ALL_MATERIAL_TEXTURES);
    expect(Object.values(MaterialTexture).reduce((a, b) => a | b, 0)).toBe(ALL_MATERIAL_TEXTURES);
    expect(meshPipelineKey(desc)).toBe(meshPipelineKey({ ...desc, materialFeatures: pbrFeatures(ALL_MATERIAL_TEXTURES) }));
    expect(meshPipelineKey(baseOnly)).not.toBe(meshPipelineKey(desc));
    expect(meshPipelineKey(baseOnly)).not.toBe(meshPipelineKey({ ...desc, materialFeatures: pbrFeatures(0) }));
    for (const variant of ['weights', 'wireframe'] as const) {
      expect(meshPipelineKey(meshVariantDesc(baseOnly, variant))).toBe(meshPipelineKey(meshVariantDesc(desc, variant)));
    }
  });

  it('MATERIAL_TEXTURES defaults to every texture, and each sample in fsMain is under its bit', () => {
    expect(pbrMaterialWgsl).toMatch(new RegExp(`override MATERIAL_TEXTURES: u32 = ${ALL_MATERIAL_TEXTURES}u;`));
    const samples = [...pbrMaterialWgsl.matchAll(/= textureSample\((\w+)Texture,/g)];
    expect(samples.map((m) => m[1])).toEqual(['baseColor', 'metallicRoughness', 'normal', 'occlusion', 'emissive']);
    for (const m of samples) {
      const before = pbrMaterialWgsl.slice(Math.max(0, m.index! - 160), m.index);
      expect(before).toMatch(/if \(\(MATERIAL_TEXTURES & TEXTURE_\w+\) != 0u\) \{\s*[\w.]+\s*$/);
    }
  });

  it('keys the shadow lookup of shaded pipelines; unset means compiled in; debug variants have none and share', () => {
    const unshadowed = { ...desc, shadows: false };
    expect(shadowsOf(desc)).toBe(true);
    expect(shadowsOf(unshadowed)).toBe(false);
    expect(meshPipelineKey(desc)).toBe(meshPipelineKey({ ...desc, shadows: true }));
    expect(meshPipelineKey(unshadowed)).not.toBe(meshPipelineKey(desc));
    for (const variant of ['weights', 'wireframe'] as const) {
      expect(shadowsOf(meshVariantDesc(desc, variant))).toBe(false);
      expect(meshPipelineKey(meshVariantDesc(unshadowed, variant))).toBe(meshPipelineKey(meshVariantDesc(desc, variant)));
    }
  });

  it('keys the material shading of shaded pipelines; unset means pbr; debug variants shade no material and share', () => {
    expect(pbrShading(materialFeaturesOf(desc))).toBe('pbr');
    const all = (shading: 'pbr' | 'pbr-glossiness' | 'unlit') => ({ ...desc, materialFeatures: pbrFeatures(ALL_MATERIAL_TEXTURES, shading) });
    expect(meshPipelineKey(desc)).toBe(meshPipelineKey(all('pbr')));
    const keys = new Set((['pbr', 'pbr-glossiness', 'unlit'] as const).map((shading) => meshPipelineKey(all(shading))));
    expect(keys.size).toBe(3);
    for (const variant of ['weights', 'wireframe'] as const) {
      expect(pbrShading(materialFeaturesOf(meshVariantDesc(all('unlit'), variant)))).toBe('pbr');
      expect(meshPipelineKey(meshVariantDesc(all('unlit'), variant))).toBe(meshPipelineKey(meshVariantDesc(desc, variant)));
    }
  });

  it('PBR features round-trip their textures and shading', () => {
    for (const shading of ['pbr', 'pbr-glossiness', 'unlit'] as const) {
      for (const textures of [0, MaterialTexture.NORMAL, ALL_MATERIAL_TEXTURES]) {
        expect([pbrTextures(pbrFeatures(textures, shading)), pbrShading(pbrFeatures(textures, shading))]).toEqual([textures, shading]);
      }
    }
  });

  it('MATERIAL_SHADING defaults to metallic-roughness; unlit returns before any lighting', () => {
    expect(pbrMaterialWgsl).toMatch(/override MATERIAL_SHADING: u32 = SHADING_PBR;/);
    const shade = pbrMaterialWgsl.slice(pbrMaterialWgsl.indexOf('fn shadeSurface('));
    const unlitReturn = shade.indexOf('if (MATERIAL_SHADING == SHADING_UNLIT) {\n    return outputColor(base.rgb, base.a);');
    expect(unlitReturn).toBeGreaterThan(0);
    for (const lighting of ['frame.lightDirection', 'keyLightVisibility(', 'environmentBrdf(', 'material.emissiveFactor']) {
      expect(shade.indexOf(lighting), lighting).toBeGreaterThan(unlitReturn);
    }
  });

  it('SHADOWS defaults to the lookup compiled in, and false returns before any of it', () => {
    expect(meshWgsl).toMatch(/override SHADOWS: bool = true;/);
    const lookup = meshWgsl.slice(meshWgsl.indexOf('fn keyLightVisibility('));
    expect(lookup).toMatch(/^fn keyLightVisibility\([^)]*\) -> f32 \{\s*if \(!SHADOWS\) \{\s*return 1\.0;/);
  });
});
