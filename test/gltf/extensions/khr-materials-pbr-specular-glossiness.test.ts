import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'KHR_materials_pbrSpecularGlossiness';

describe('KHR_materials_pbrSpecularGlossiness', () => {
  it('converts to metal-rough: base ← diffuse, metallic 0, roughness ← 1 − glossiness, the texture read as glossiness', async () => {
    const model = await loadMaterialFile({
      images: ['image/png', 'image/png'], textures: [{ source: 0 }, { source: 1 }],
      extensionsUsed: [EXT, 'KHR_texture_transform'], extensionsRequired: [EXT],
      materials: [{
        // The metal-rough fallback a writer may add is replaced.
        pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 1], metallicFactor: 1, roughnessFactor: 0.1, metallicRoughnessTexture: { index: 0 } },
        emissiveFactor: [0.5, 0, 0],
        extensions: {
          [EXT]: {
            diffuseFactor: [0.8, 0.6, 0.4, 0.5], specularFactor: [0.2, 0.2, 0.2], glossinessFactor: 0.75,
            diffuseTexture: { index: 0, texCoord: 1 },
            specularGlossinessTexture: { index: 1, extensions: { KHR_texture_transform: { offset: [0.5, 0] } } },
          },
        },
      }],
    });
    const m = model.materials[0];
    expect(m.baseColorFactor).toEqual([0.8, 0.6, 0.4, 0.5]);
    expect(m.baseColorTexture).toEqual({ index: 0, texCoord: 1, scale: 1 });
    expect(m.metallicFactor).toBe(0);
    expect(m.roughnessFactor).toBe(0.25);
    expect(m.metallicRoughnessTexture).toEqual({ index: 1, texCoord: 0, scale: 1, transform: { offset: [0.5, 0], rotation: 0, scale: [1, 1] } });
    expect(m.shading).toBe('pbr-glossiness');
    expect(m.emissiveFactor).toEqual([0.5, 0, 0]);
    expect(model.warnings).toEqual([]);
  });

  it('without a specularGlossinessTexture: plain metal-rough factors (defaults: white, glossiness 1 → roughness 0)', async () => {
    const model = await loadMaterialFile({ materials: [{ extensions: { [EXT]: {} } }] });
    const m = model.materials[0];
    expect(m.baseColorFactor).toEqual([1, 1, 1, 1]);
    expect(m.baseColorTexture).toBeUndefined();
    expect([m.metallicFactor, m.roughnessFactor]).toEqual([0, 0]);
    expect(m.metallicRoughnessTexture).toBeUndefined();
    expect(m.shading).toBeUndefined();
  });

  it('out-of-range factors are clamped with a warning; bad ones refused by JSON path', async () => {
    const model = await loadMaterialFile({ materials: [{ extensions: { [EXT]: { diffuseFactor: [2, 0, 0, 1], glossinessFactor: -1 } } }] });
    expect(model.materials[0].baseColorFactor[0]).toBe(1);
    expect(model.materials[0].roughnessFactor).toBe(1);
    expect(model.warnings.map((w) => w.path)).toEqual([`materials[0].extensions.${EXT}.diffuseFactor[0]`, `materials[0].extensions.${EXT}.glossinessFactor`]);
    for (const [ext, path] of [
      [{ diffuseFactor: [1, 1, 1] }, `materials[0].extensions.${EXT}.diffuseFactor`],
      [{ glossinessFactor: 'high' }, `materials[0].extensions.${EXT}.glossinessFactor`],
      [{ specularFactor: [1, 1] }, `materials[0].extensions.${EXT}.specularFactor`],
      [{ diffuseTexture: { index: 'three' } }, `materials[0].extensions.${EXT}.diffuseTexture.index`],
      [{ specularGlossinessTexture: 7 }, `materials[0].extensions.${EXT}.specularGlossinessTexture`],
    ] as const) {
      const error = await loadMaterialFile({ images: ['image/png'], textures: [{ source: 0 }], materials: [{ extensions: { [EXT]: ext } }] }).catch((e: unknown) => e);
      expect(error, JSON.stringify(ext)).toBeInstanceOf(GltfError);
      expect((error as GltfError).path, JSON.stringify(ext)).toBe(path);
    }
    // An index past the textures loses that texture, not the file (as every material texture).
    const dropped = await loadMaterialFile({ images: ['image/png'], textures: [{ source: 0 }], materials: [{ extensions: { [EXT]: { diffuseTexture: { index: 3 } } } }] });
    expect(dropped.materials[0].baseColorTexture).toBeUndefined();
    expect(dropped.warnings).toEqual([{ path: `materials[0].extensions.${EXT}.diffuseTexture.index`, message: 'textures[3] does not exist (the file has 1); the texture is ignored' }]);
  });
});
