import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_diffuse_transmission', () => pbrExtensionReaderTests({
  name: 'KHR_materials_diffuse_transmission',
  read: (m) => m.diffuseTransmission,
  defaults: { factor: 0, texture: undefined, colorFactor: [1, 1, 1], colorTexture: undefined },
  full: {
    json: { diffuseTransmissionFactor: 0.5, diffuseTransmissionTexture: { index: 0 }, diffuseTransmissionColorFactor: [0.2, 0.9, 0.1], diffuseTransmissionColorTexture: { index: 1 } },
    expected: { factor: 0.5, texture: { index: 0, texCoord: 0, scale: 1 }, colorFactor: [0.2, 0.9, 0.1], colorTexture: { index: 1, texCoord: 0, scale: 1 } },
  },
  clamps: [['diffuseTransmissionFactor', -1, 0], ['diffuseTransmissionColorFactor', [1.5, 0.5, -0.5], [1, 0.5, 0]]],
  textures: ['diffuseTransmissionTexture', 'diffuseTransmissionColorTexture'],
  numeric: 'diffuseTransmissionFactor',
}));
