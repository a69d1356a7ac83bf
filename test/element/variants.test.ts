import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../src/gltf/load.ts';
import { variantIndex } from '../../src/element/variants.ts';
import { COLOUR_VARIANTS, variantFileBytes } from '../support/variant-files.ts';

describe('variant-name → variant index', () => {
  it('null selects the file\'s materials, a name its (first) index, an unknown name nothing, with a warning', async () => {
    const model = await loadGltf(variantFileBytes({ ...COLOUR_VARIANTS, names: ['blue', 'yellow', 'blue'] }), { name: 'v.glb' });
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(variantIndex(model, null, warn)).toBe(-1);
    expect(variantIndex(model, 'yellow', warn)).toBe(1);
    expect(variantIndex(model, 'blue', warn)).toBe(0);
    expect(warnings).toEqual([]);
    expect(variantIndex(model, 'Blue', warn)).toBeUndefined();
    expect(warnings).toEqual(['variant-name="Blue" is not a variant of v.glb (blue, yellow, blue); the materials shown stay']);
  });

  it('a model without variants knows no name', async () => {
    const model = await loadGltf(variantFileBytes({ names: [], edit: (j) => { delete j.extensions; } }), { name: 'plain' });
    const warnings: string[] = [];
    expect(variantIndex(model, '', (m) => warnings.push(m))).toBeUndefined();
    expect(warnings[0]).toContain('it has none');
  });
});
