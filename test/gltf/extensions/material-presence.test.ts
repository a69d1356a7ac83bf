import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { MATERIAL_EXTENSIONS } from '../../../src/gltf/extensions/material-extensions.ts';
import { usesLazyMaterialExtensions } from '../../../src/gltf/extensions/material-presence.ts';
import { LAZY_MATERIAL_EXTENSIONS } from '../../../src/gltf/extensions/names.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';
import { assetPath } from '../../support/assets.ts';

/**
 * The less common material extensions' readers (material-extensions.ts) are imported only for a
 * file whose materials use one (material-presence.ts decides; load.ts awaits them before reading
 * the materials). Checked in a fresh module graph each time (vi.resetModules), where the registry
 * has not loaded them yet.
 */
describe('usesLazyMaterialExtensions', () => {
  it('is true when a material has one of the lazily read extensions, listed in extensionsUsed or not', () => {
    for (const name of LAZY_MATERIAL_EXTENSIONS) {
      expect(usesLazyMaterialExtensions({ materials: [{}, { extensions: { [name]: {} } }] }), name).toBe(true);
      expect(usesLazyMaterialExtensions({ extensionsUsed: [name], materials: [{ extensions: { KHR_materials_unlit: {}, [name]: {} } }] }), name).toBe(true);
    }
  });

  it('is false for plain materials, eagerly read ones, odd JSON, and the name used elsewhere than in a material', () => {
    const cases: JsonObject[] = [
      {}, { materials: 3 }, { materials: [null, 1, 'x', { extensions: [] }, { extensions: null }] },
      { materials: [{ extensions: { KHR_materials_unlit: {}, KHR_materials_emissive_strength: {}, KHR_materials_ior: {}, KHR_texture_transform: {} } }] },
      { extensionsUsed: ['KHR_materials_clearcoat'], materials: [{}] },
      { materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0, extensions: { KHR_materials_clearcoat: {} } } } }] },
    ];
    for (const root of cases) expect(usesLazyMaterialExtensions(root), JSON.stringify(root)).toBe(false);
  });

  it('names.ts lists exactly the extensions material-extensions.ts reads, in its order', () => {
    expect(MATERIAL_EXTENSIONS.map((e) => e.name)).toEqual(LAZY_MATERIAL_EXTENSIONS);
    for (const e of MATERIAL_EXTENSIONS) expect(e.readMaterial, e.name).toBeTypeOf('function');
  });
});

describe('the lazily read material extensions load with the first file that uses one', () => {
  it('the Fox does not load them; a clearcoat file, with extensionsUsed forgetting it, does and reads it', async () => {
    vi.resetModules();
    const registry = await import('../../../src/gltf/extensions/registry.ts');
    const { loadMaterialFile } = await import('../../support/material-files.ts');
    const { loadGltf } = await import('../../../src/gltf/load.ts');
    await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))));
    // Named (so extensionsRequired accepts it), no reader yet.
    expect(registry.findExtension('KHR_materials_clearcoat')).toEqual({ name: 'KHR_materials_clearcoat' });
    const model = await loadMaterialFile({ materials: [{ extensions: { KHR_materials_clearcoat: { clearcoatFactor: 0.5 } } }] });
    expect(model.materials[0].clearcoat?.factor).toBe(0.5);
    expect(model.warnings).toEqual([]);
    expect(registry.findExtension('KHR_materials_clearcoat')?.readMaterial).toBeTypeOf('function');
  });
});

describe('a model shape waits for them, so a forecast never reads MToon or clearcoat as plain PBR', () => {
  it('in a fresh module graph: no shape read before they load; loadGltf and a streamed GLB (EarlyShape) tell it once they have, with the extension read', async () => {
    vi.resetModules();
    const { materialFileBytes } = await import('../../support/material-files.ts');
    const { loadGltf } = await import('../../../src/gltf/load.ts');
    const { parseGlb } = await import('../../../src/gltf/glb.ts');
    const { readModelShape } = await import('../../../src/gltf/model-shape.ts');
    const { EarlyShape } = await import('../../../src/element/loading/early-shape.ts');
    type Shape = NonNullable<ReturnType<typeof readModelShape>>;
    const bytes = materialFileBytes({ materials: [{ extensions: { KHR_materials_clearcoat: { clearcoatFactor: 0.5 } } }] });
    const root = parseGlb(bytes).json as JsonObject;
    // Read now, the clearcoat material would forecast as plain PBR: a pipeline compiled for nothing.
    expect(readModelShape(root)).toBeUndefined();

    const early: Shape[] = [];
    const streamed = new EarlyShape((shape) => early.push(shape));
    streamed.add(bytes);
    expect(streamed.delivered).toBe(true); // it will tell: the load does not ask loadGltf again
    expect(early).toEqual([]);

    const told: Shape[] = [];
    const model = await loadGltf(bytes, { onShape: (shape) => told.push(shape) });
    expect(model.materials[0].clearcoat?.factor).toBe(0.5);
    for (const shapes of [told, early]) {
      expect(shapes).toHaveLength(1);
      expect(shapes[0].materials[0].clearcoat?.factor).toBe(0.5);
    }
    // Once they are in, the shape is read at once.
    expect(readModelShape(root)?.materials[0].clearcoat?.factor).toBe(0.5);
  });
});
