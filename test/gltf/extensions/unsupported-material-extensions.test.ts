import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

/** Material extensions outside the PBR set the loader draws (khr-materials-*.ts): newer, proposed and vendor ones. */
const IGNORED = ['KHR_materials_diffuse_roughness', 'KHR_materials_volume_scatter', 'ADOBE_materials_thin_transparency', 'EXT_materials_bump'];
const SHEEN_LIKE = 'KHR_materials_volume_scatter';

describe('material extensions the loader does not draw', () => {
  it('are ignored when only used, each listed once in the warnings (at its first material)', async () => {
    const ext = Object.fromEntries(IGNORED.map((name) => [name, {}]));
    const model = await loadMaterialFile({
      extensionsUsed: IGNORED,
      materials: [
        { pbrMetallicRoughness: { baseColorFactor: [0.5, 0.5, 0.5, 1] }, extensions: ext },
        { extensions: ext },
        { extensions: { [SHEEN_LIKE]: {}, KHR_materials_emissive_strength: { emissiveStrength: 2 } } },
      ],
    });
    expect(model.materials[0].baseColorFactor).toEqual([0.5, 0.5, 0.5, 1]);
    expect(model.materials[2].emissiveStrength).toBe(2);
    expect(model.warnings).toHaveLength(IGNORED.length);
    for (const name of IGNORED) {
      const w = model.warnings.filter((x) => x.message.startsWith(`${name} `));
      expect(w, name).toHaveLength(1);
      expect(w[0].path).toBe(`materials[0].extensions.${name}`);
      expect(w[0].message).toMatch(name === SHEEN_LIKE ? /used by 3 materials/ : /used by 2 materials/);
    }
  });

  it.each(IGNORED)('%s is still refused by name when required', async (name) => {
    const error = await loadMaterialFile({ extensionsUsed: [name], extensionsRequired: [name], materials: [{ extensions: { [name]: {} } }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('extensionsRequired');
    expect((error as GltfError).message).toContain(name);
  });
});
