/**
 * bakeToGlb carries the material and texture extensions the loader draws over to the baked
 * file, so it loads back to the same materials and textures.
 */
import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { bakeToGlb } from '../../src/bake/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { buildMaterialQuad, solidPng } from '../gpu/fixtures.ts';
import { encodeKtx2, gradientImage, ktx2Quad } from '../support/ktx2.ts';
import { encodePng } from '../support/png.ts';
import { everyPbrExtension, PBR_EXTENSION_NAMES, PBR_EXTENSION_TEXTURE_COUNT } from '../support/pbr-materials.ts';
import { COLOUR_VARIANTS, variantFileBytes, VARIANTS_EXT } from '../support/variant-files.ts';

describe('bakeToGlb and material extensions', () => {
  it('writes texture transforms, WebP/AVIF sources, unlit, emissive strength and converted spec-gloss back; they load the same', async () => {
    const transform = { offset: [0.5, 0.25], rotation: 0.75, scale: [2, 3] };
    const bytes = buildMaterialQuad((texture, b) => {
      const webp = b.addImage(solidPng([0, 255, 0, 255]), 'image/webp');
      const avif = b.addImage(solidPng([0, 0, 255, 255]), 'image/avif');
      const base = texture(solidPng([255, 0, 0, 255]), { extensions: { EXT_texture_avif: { source: avif }, EXT_texture_webp: { source: webp } } });
      const sg = texture(solidPng([9, 9, 9, 128]));
      b.addMaterial({ extensions: { KHR_materials_unlit: {} }, pbrMetallicRoughness: { baseColorTexture: { index: base, texCoord: 1 } } });
      b.addMaterial({ emissiveFactor: [0.5, 0.5, 0.5], extensions: { KHR_materials_emissive_strength: { emissiveStrength: 3 } } });
      return {
        normalTexture: { index: base, scale: 0.5, extensions: { KHR_texture_transform: transform } },
        extensions: {
          KHR_materials_pbrSpecularGlossiness: {
            diffuseFactor: [0.5, 0.6, 0.7, 1], glossinessFactor: 0.75,
            diffuseTexture: { index: base, extensions: { KHR_texture_transform: { rotation: 1 } } },
            specularGlossinessTexture: { index: sg },
          },
        },
      };
    });
    const model = await loadGltf(bytes);
    const baked = await loadGltf(bakeToGlb(model, bakeModel(model)));
    expect(baked.warnings).toEqual([]);
    expect(baked.textures).toEqual(model.textures);
    expect(baked.images.map((i) => i.mimeType)).toEqual(model.images.map((i) => i.mimeType));
    // Materials in the builder's order: the callback's two, then the quad's own.
    expect(model.materials.map((m) => m.shading)).toEqual(['unlit', undefined, 'pbr-glossiness']);
    expect(baked.materials).toHaveLength(model.materials.length);
    for (let i = 0; i < model.materials.length; i++) {
      const { name: _n, ...original } = model.materials[i];
      const { name: _m, ...reloaded } = baked.materials[i];
      expect(reloaded, `materials[${i}]`).toEqual({ ...original, roughnessFactor: expect.closeTo(original.roughnessFactor, 12) });
    }
  });

  it('writes every PBR material extension back with its textures; the baked file loads to the same materials', async () => {
    const bytes = buildMaterialQuad((texture, b) => {
      const textures = Array.from({ length: PBR_EXTENSION_TEXTURE_COUNT }, (_, k) => texture(solidPng([k * 16, 255 - k * 16, 128, 255])));
      b.json.extensionsUsed!.push(...PBR_EXTENSION_NAMES);
      return { extensions: everyPbrExtension((k) => textures[k]) };
    });
    const model = await loadGltf(bytes);
    expect(model.warnings).toEqual([]);
    const out = bakeToGlb(model, bakeModel(model));
    const baked = await loadGltf(out);
    expect(baked.warnings).toEqual([]);
    expect([...(parseGlb(out).json as { extensionsUsed: string[] }).extensionsUsed].sort()).toEqual([...PBR_EXTENSION_NAMES, 'KHR_texture_transform'].sort());
    const { name: _n, ...original } = model.materials[0];
    const { name: _m, ...reloaded } = baked.materials[0];
    expect(reloaded).toEqual(original);
    expect(original.volume!.attenuationDistance).toBe(0.5);
  });

  it('a texture with no plain source makes its source extension required', async () => {
    const bytes = buildMaterialQuad((_texture, b) => {
      const webp = b.addImage(solidPng([0, 255, 0, 255]), 'image/webp');
      const index = b.addTexture({ extensions: { EXT_texture_webp: { source: webp } } });
      return { pbrMetallicRoughness: { baseColorTexture: { index } } };
    });
    const model = await loadGltf(bytes);
    const out = bakeToGlb(model, bakeModel(model));
    const json = JSON.parse(new TextDecoder().decode(out.subarray(20, 20 + new DataView(out.buffer, out.byteOffset).getUint32(12, true))));
    expect(json.extensionsUsed).toEqual(['EXT_texture_webp']);
    expect(json.extensionsRequired).toEqual(['EXT_texture_webp']);
    expect((await loadGltf(out)).textures).toEqual(model.textures);
  });

  it('KHR_texture_basisu: the KTX2 image and the extension are carried over byte for byte, without transcoding', async () => {
    const image = gradientImage(8, 8);
    const ktx2 = await encodeKtx2(image, { uastc: false });
    const model = await loadGltf(ktx2Quad(ktx2, encodePng(8, 8, image.data)));
    const baked = await loadGltf(bakeToGlb(model, bakeModel(model)));
    expect(baked.textures).toEqual(model.textures);
    expect(baked.textures[0].extensionSources).toEqual([{ extension: 'KHR_texture_basisu', source: 0 }]);
    expect(baked.images[0].mimeType).toBe('image/ktx2');
    expect(baked.images[0].bytes).toEqual(ktx2);
  });
});

describe('bakeToGlb and KHR_materials_variants', () => {
  it('writes the variant names and each primitive\'s mappings back; they load the same', async () => {
    const model = await loadGltf(variantFileBytes({ ...COLOUR_VARIANTS, right: [{ material: 3, variants: [1] }, { material: 1, variants: [0] }] }));
    const out = bakeToGlb(model, bakeModel(model));
    const baked = await loadGltf(out);
    expect(baked.warnings).toEqual([]);
    expect(baked.variants).toEqual(['blue', 'yellow']);
    const tables = (m: typeof model) => m.meshes.flatMap((mesh) => mesh.primitives.map((p) => [p.material, Array.from(p.variantMaterials ?? [])]));
    expect(tables(baked)).toEqual(tables(model));
    expect(tables(model)).toEqual([[0, [2, 3]], [1, [1, 3]]]);
    // The right quad's mapping to its own material says nothing and is not written.
    const json = parseGlb(out).json as { meshes: { primitives: { extensions?: Record<string, { mappings: unknown[] }> }[] }[]; extensionsUsed: string[] };
    expect(json.meshes[0].primitives[1].extensions?.[VARIANTS_EXT].mappings).toEqual([{ material: 3, variants: [1] }]);
    expect(json.extensionsUsed).toContain(VARIANTS_EXT);
  });

  it('a file without variants bakes without the extension', async () => {
    const model = await loadGltf(variantFileBytes({ names: [], edit: (j) => { delete j.extensions; j.extensionsUsed = ['KHR_materials_unlit']; } }));
    const json = parseGlb(bakeToGlb(model, bakeModel(model))).json as Record<string, unknown>;
    expect(json.extensions).toBeUndefined();
    expect(json.extensionsUsed).not.toContain(VARIANTS_EXT);
  });
});
