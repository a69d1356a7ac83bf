import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'KHR_materials_emissive_strength';

describe('KHR_materials_emissive_strength', () => {
  it('reads the strength beside the unchanged emissiveFactor; absent means none (1)', async () => {
    const model = await loadMaterialFile({
      extensionsUsed: [EXT], extensionsRequired: [EXT],
      materials: [
        { emissiveFactor: [1, 0.5, 0.25], extensions: { [EXT]: { emissiveStrength: 6 } } },
        { emissiveFactor: [1, 1, 1], extensions: { [EXT]: {} } },
        { emissiveFactor: [1, 1, 1] },
      ],
    });
    expect(model.materials[0].emissiveFactor).toEqual([1, 0.5, 0.25]);
    expect(model.materials[0].emissiveStrength).toBe(6);
    expect(model.materials[1].emissiveStrength).toBe(1);
    expect(model.materials[2].emissiveStrength).toBeUndefined();
    expect(model.warnings).toEqual([]);
  });

  it('a negative strength is clamped to 0 with a warning; a non-number or a non-float32 is refused', async () => {
    const model = await loadMaterialFile({ materials: [{ extensions: { [EXT]: { emissiveStrength: -2 } } }] });
    expect(model.materials[0].emissiveStrength).toBe(0);
    expect(model.warnings).toEqual([{ path: `materials[0].extensions.${EXT}.emissiveStrength`, message: expect.stringMatching(/clamped to 0/) }]);
    for (const bad of ['2', 1e39]) {
      const error = await loadMaterialFile({ materials: [{ extensions: { [EXT]: { emissiveStrength: bad } } }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GltfError);
      expect((error as GltfError).path).toMatch(/^materials\[0\]\.extensions\.KHR_materials_emissive_strength/);
    }
  });
});
