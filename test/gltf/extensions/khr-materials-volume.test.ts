import { describe, expect, it } from 'vitest';
import { loadWithExtension, pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

const EXT = 'KHR_materials_volume';

describe(EXT, () => {
  pbrExtensionReaderTests({
    name: EXT,
    read: (m) => m.volume,
    defaults: { thicknessFactor: 0, thicknessTexture: undefined, attenuationDistance: Infinity, attenuationColor: [1, 1, 1] },
    full: {
      json: { thicknessFactor: 0.4, thicknessTexture: { index: 0 }, attenuationDistance: 0.25, attenuationColor: [0.9, 0.2, 0.1] },
      expected: { thicknessFactor: 0.4, thicknessTexture: { index: 0, texCoord: 0, scale: 1 }, attenuationDistance: 0.25, attenuationColor: [0.9, 0.2, 0.1] },
    },
    clamps: [['thicknessFactor', -2, 0], ['attenuationColor', [2, 0.5, -1], [1, 0.5, 0]]],
    textures: ['thicknessTexture'],
    numeric: 'thicknessFactor',
  });

  it('an attenuation distance of 0 or less is read as infinity (no attenuation), with a warning', async () => {
    for (const d of [0, -1]) {
      const model = await loadWithExtension(EXT, { attenuationDistance: d });
      expect(model.materials[0].volume!.attenuationDistance).toBe(Infinity);
      expect(model.warnings).toEqual([{ path: `materials[0].extensions.${EXT}.attenuationDistance`, message: `${d} is not above 0; read as infinity (no attenuation)` }]);
    }
  });
});
