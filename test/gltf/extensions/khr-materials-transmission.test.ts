import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_transmission', () => pbrExtensionReaderTests({
  name: 'KHR_materials_transmission',
  read: (m) => m.transmission,
  defaults: { factor: 0, texture: undefined },
  full: { json: { transmissionFactor: 0.75, transmissionTexture: { index: 1 } }, expected: { factor: 0.75, texture: { index: 1, texCoord: 0, scale: 1 } } },
  clamps: [['transmissionFactor', -0.25, 0], ['transmissionFactor', 1.25, 1]],
  textures: ['transmissionTexture'],
  numeric: 'transmissionFactor',
}));
