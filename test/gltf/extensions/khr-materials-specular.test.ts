import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_specular', () => pbrExtensionReaderTests({
  name: 'KHR_materials_specular',
  read: (m) => m.specular,
  defaults: { factor: 1, texture: undefined, colorFactor: [1, 1, 1], colorTexture: undefined },
  full: {
    // The colour may exceed 1 (the schema has no maximum).
    json: { specularFactor: 0.3, specularTexture: { index: 0 }, specularColorFactor: [2, 0.5, 0], specularColorTexture: { index: 1 } },
    expected: { factor: 0.3, texture: { index: 0, texCoord: 0, scale: 1 }, colorFactor: [2, 0.5, 0], colorTexture: { index: 1, texCoord: 0, scale: 1 } },
  },
  clamps: [['specularFactor', -0.2, 0], ['specularFactor', 1.5, 1], ['specularColorFactor', [-1, 0.5, 0.5], [0, 0.5, 0.5]]],
  textures: ['specularTexture', 'specularColorTexture'],
  numeric: 'specularFactor',
}));
