import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'KHR_materials_unlit';

describe('KHR_materials_unlit', () => {
  it('marks the material unlit and keeps its base colour factor and texture', async () => {
    const model = await loadMaterialFile({
      images: ['image/png'], textures: [{ source: 0 }], extensionsUsed: [EXT], extensionsRequired: [EXT],
      materials: [
        { pbrMetallicRoughness: { baseColorFactor: [0.2, 0.4, 0.6, 1], baseColorTexture: { index: 0 } }, extensions: { [EXT]: {} } },
        { pbrMetallicRoughness: { baseColorFactor: [0.2, 0.4, 0.6, 1] } },
      ],
    });
    expect(model.materials[0].shading).toBe('unlit');
    expect(model.materials[0].baseColorFactor).toEqual([0.2, 0.4, 0.6, 1]);
    expect(model.materials[0].baseColorTexture?.index).toBe(0);
    expect(model.materials[1].shading).toBeUndefined();
    expect(model.warnings).toEqual([]);
  });

  it('unlit wins over KHR_materials_pbrSpecularGlossiness in either order', async () => {
    for (const order of [['unlit', 'sg'], ['sg', 'unlit']]) {
      const extensions: Record<string, unknown> = {};
      for (const e of order) {
        if (e === 'unlit') extensions[EXT] = {};
        else extensions.KHR_materials_pbrSpecularGlossiness = { diffuseFactor: [1, 0, 0, 1], specularGlossinessTexture: { index: 0 } };
      }
      const model = await loadMaterialFile({ images: ['image/png'], textures: [{ source: 0 }], materials: [{ extensions }] });
      expect(model.materials[0].shading, order.join(' then ')).toBe('unlit');
      expect(model.materials[0].baseColorFactor).toEqual([1, 0, 0, 1]);
    }
  });

  it('refuses an extension value that is not an object', async () => {
    const error = await loadMaterialFile({ materials: [{ extensions: { [EXT]: true } }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('materials[0].extensions.KHR_materials_unlit');
  });
});
