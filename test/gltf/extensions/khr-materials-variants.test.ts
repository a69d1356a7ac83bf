import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { GltfJson } from '../../../src/gltf/builder.ts';
import { COLOUR_VARIANTS, variantFileBytes, VARIANTS_EXT, type VariantFile } from '../../support/variant-files.ts';

const load = (f: VariantFile) => loadGltf(variantFileBytes(f), { name: 'variants' });

async function refusal(f: VariantFile): Promise<GltfError> {
  const error = await load(f).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GltfError);
  return error as GltfError;
}

const rootExt = (json: GltfJson) => (json.extensions as Record<string, { variants: unknown[] }>)[VARIANTS_EXT];
const leftExt = (json: GltfJson) => json.meshes[0].primitives[0].extensions as Record<string, { mappings: Record<string, unknown>[] }>;

describe('KHR_materials_variants', () => {
  it('reads the variant names and each primitive\'s material per variant (its own where unmapped)', async () => {
    const model = await load(COLOUR_VARIANTS);
    expect(model.variants).toEqual(['blue', 'yellow']);
    const [left, right] = model.meshes[0].primitives;
    expect(left.material).toBe(0);
    expect(Array.from(left.variantMaterials!)).toEqual([2, 3]);
    expect(right.material).toBe(1);
    expect(Array.from(right.variantMaterials!)).toEqual([1, 3]);
    expect(model.warnings).toEqual([]);
  });

  it('is accepted when required, and leaves files without it as they were', async () => {
    const model = await load({ ...COLOUR_VARIANTS, edit: (j) => j.extensionsRequired.push(VARIANTS_EXT) });
    expect(model.variants).toHaveLength(2);
    const plain = await load({ names: [], edit: (j) => { delete j.extensions; } });
    expect(plain.variants).toBeUndefined();
    expect(plain.meshes[0].primitives[0].variantMaterials).toBeUndefined();
    expect('variants' in plain).toBe(false);
  });

  it('a primitive without a material maps unmapped variants to the default material (-1)', async () => {
    const model = await load({ names: ['a', 'b'], left: [{ material: 3, variants: [1] }], edit: (j) => { delete j.meshes[0].primitives[0].material; } });
    expect(Array.from(model.meshes[0].primitives[0].variantMaterials!)).toEqual([-1, 3]);
  });

  it('warns about a repeated variant name (selecting it by name picks the first)', async () => {
    const model = await load({ names: ['x', 'x'], left: [{ material: 2, variants: [1] }] });
    expect(model.variants).toEqual(['x', 'x']);
    expect(model.warnings).toEqual([{ path: `extensions.${VARIANTS_EXT}.variants[1].name`, message: expect.stringContaining('variants[0]') }]);
  });

  it('refuses bad variants and mappings, naming the JSON path', async () => {
    const base = `meshes[0].primitives[0].extensions.${VARIANTS_EXT}`;
    const cases: [VariantFile, string][] = [
      [{ names: [], edit: (j) => { rootExt(j).variants = [{}]; } }, `extensions.${VARIANTS_EXT}.variants[0].name`],
      [{ names: [], edit: (j) => { rootExt(j).variants = [{ name: 3 }]; } }, `extensions.${VARIANTS_EXT}.variants[0].name`],
      [{ names: [], edit: (j) => { rootExt(j).variants = 'a' as unknown as unknown[]; } }, `extensions.${VARIANTS_EXT}.variants`],
      [{ names: [], edit: (j) => { j.extensions = { [VARIANTS_EXT]: 7 }; } }, `extensions.${VARIANTS_EXT}`],
      [{ names: ['a'], left: [{ material: 9, variants: [0] }] }, `${base}.mappings[0].material`],
      [{ names: ['a'], left: [{ material: 2, variants: [1] }] }, `${base}.mappings[0].variants[0]`],
      [{ names: ['a'], left: [{ material: 2, variants: [-1] }] }, `${base}.mappings[0].variants[0]`],
      [{ names: ['a'], left: [{ material: 2, variants: [] }] }, `${base}.mappings[0].variants`],
      [{ names: ['a', 'b'], left: [{ material: 2, variants: [0, 1] }, { material: 3, variants: [1] }] }, `${base}.mappings[1].variants[0]`],
      [{ names: ['a'], left: [{ material: 2, variants: [0] }], edit: (j) => { delete leftExt(j)[VARIANTS_EXT].mappings[0].material; } }, `${base}.mappings[0].material`],
      [{ names: ['a'], left: [{ material: 2, variants: [0] }], edit: (j) => { leftExt(j)[VARIANTS_EXT].mappings = [5] as never; } }, `${base}.mappings[0]`],
      // No root variants: every index is out of range.
      [{ names: ['a'], left: [{ material: 2, variants: [0] }], edit: (j) => { delete j.extensions; } }, `${base}.mappings[0].variants[0]`],
    ];
    for (const [file, path] of cases) expect((await refusal(file)).path, path).toBe(path);
  });

  it('charges the per-variant table of each mapped primitive to the load budget', async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `v${i}`);
    const bytes = variantFileBytes({ names, left: [{ material: 2, variants: [0] }] });
    const error = await loadGltf(bytes, { maxBytes: 20_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(`meshes[0].primitives[0].extensions.${VARIANTS_EXT}`);
    expect((await loadGltf(bytes, { maxBytes: 60_000 })).variants).toHaveLength(3000);
  });
});
