import { describe, expect, it } from 'vitest';
import { loadWithExtension, pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_ior', () => {
  pbrExtensionReaderTests({
    name: 'KHR_materials_ior',
    read: (m) => m.ior,
    defaults: 1.5,
    full: { json: { ior: 2.42 }, expected: 2.42 },
    clamps: [['ior', 0.5, 1], ['ior', -3, 1]],
    textures: [],
    numeric: 'ior',
  });

  it('0 is valid (a Fresnel of 1 everywhere, the extension says) and kept', async () => {
    const model = await loadWithExtension('KHR_materials_ior', { ior: 0 });
    expect(model.materials[0].ior).toBe(0);
    expect(model.warnings).toEqual([]);
  });
});
