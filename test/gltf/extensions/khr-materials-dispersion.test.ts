import { describe } from 'vitest';
import { pbrExtensionReaderTests } from '../../support/pbr-extension-reader.ts';

describe('KHR_materials_dispersion', () => pbrExtensionReaderTests({
  name: 'KHR_materials_dispersion',
  read: (m) => m.dispersion,
  defaults: 0,
  full: { json: { dispersion: 0.33 }, expected: 0.33 },
  clamps: [['dispersion', -1, 0]],
  textures: [],
  numeric: 'dispersion',
}));
