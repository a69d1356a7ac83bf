import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_iridescence', () => pbrExtensionReaderTests({
  name: 'KHR_materials_iridescence',
  read: (m) => m.iridescence,
  defaults: { factor: 0, texture: undefined, ior: 1.3, thicknessMinimum: 100, thicknessMaximum: 400, thicknessTexture: undefined },
  full: {
    json: {
      iridescenceFactor: 1, iridescenceTexture: { index: 0 }, iridescenceIor: 1.8, iridescenceThicknessMinimum: 250, iridescenceThicknessMaximum: 900,
      iridescenceThicknessTexture: { index: 1 },
    },
    expected: {
      factor: 1, texture: { index: 0, texCoord: 0, scale: 1 }, ior: 1.8, thicknessMinimum: 250, thicknessMaximum: 900,
      thicknessTexture: { index: 1, texCoord: 0, scale: 1 },
    },
  },
  clamps: [['iridescenceFactor', -1, 0], ['iridescenceIor', 0.5, 1], ['iridescenceThicknessMinimum', -10, 0], ['iridescenceThicknessMaximum', -400, 0]],
  textures: ['iridescenceTexture', 'iridescenceThicknessTexture'],
  numeric: 'iridescenceIor',
}));
