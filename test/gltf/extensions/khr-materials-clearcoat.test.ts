import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_clearcoat', () => pbrExtensionReaderTests({
  name: 'KHR_materials_clearcoat',
  read: (m) => m.clearcoat,
  defaults: { factor: 0, texture: undefined, roughnessFactor: 0, roughnessTexture: undefined, normalTexture: undefined },
  full: {
    json: { clearcoatFactor: 0.8, clearcoatTexture: { index: 0 }, clearcoatRoughnessFactor: 0.2, clearcoatRoughnessTexture: { index: 1 }, clearcoatNormalTexture: { index: 1, scale: -2 } },
    expected: {
      factor: 0.8, texture: { index: 0, texCoord: 0, scale: 1 }, roughnessFactor: 0.2, roughnessTexture: { index: 1, texCoord: 0, scale: 1 },
      normalTexture: { index: 1, texCoord: 0, scale: -2 },
    },
  },
  clamps: [['clearcoatFactor', -1, 0], ['clearcoatFactor', 3, 1], ['clearcoatRoughnessFactor', -0.5, 0]],
  textures: ['clearcoatTexture', 'clearcoatRoughnessTexture', 'clearcoatNormalTexture'],
  numeric: 'clearcoatFactor',
}));
