import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_anisotropy', () => pbrExtensionReaderTests({
  name: 'KHR_materials_anisotropy',
  read: (m) => m.anisotropy,
  defaults: { strength: 0, rotation: 0, texture: undefined },
  full: {
    // Any rotation is valid (radians, not wrapped).
    json: { anisotropyStrength: 0.6, anisotropyRotation: -7.5, anisotropyTexture: { index: 1 } },
    expected: { strength: 0.6, rotation: -7.5, texture: { index: 1, texCoord: 0, scale: 1 } },
  },
  clamps: [['anisotropyStrength', -0.5, 0], ['anisotropyStrength', 1.5, 1]],
  textures: ['anisotropyTexture'],
  numeric: 'anisotropyRotation',
}));
