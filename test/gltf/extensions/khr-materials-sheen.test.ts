import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_sheen', () => pbrExtensionReaderTests({
  name: 'KHR_materials_sheen',
  read: (m) => m.sheen,
  defaults: { colorFactor: [0, 0, 0], colorTexture: undefined, roughnessFactor: 0, roughnessTexture: undefined },
  full: {
    json: { sheenColorFactor: [0.9, 0.4, 0.2], sheenColorTexture: { index: 0 }, sheenRoughnessFactor: 0.6, sheenRoughnessTexture: { index: 1 } },
    expected: { colorFactor: [0.9, 0.4, 0.2], colorTexture: { index: 0, texCoord: 0, scale: 1 }, roughnessFactor: 0.6, roughnessTexture: { index: 1, texCoord: 0, scale: 1 } },
  },
  clamps: [['sheenColorFactor', [1.5, -1, 0.5], [1, 0, 0.5]], ['sheenRoughnessFactor', -1, 0], ['sheenRoughnessFactor', 2, 1]],
  textures: ['sheenColorTexture', 'sheenRoughnessTexture'],
  numeric: 'sheenRoughnessFactor',
}));
