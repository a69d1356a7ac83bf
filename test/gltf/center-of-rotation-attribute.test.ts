import { beforeAll, describe, expect, it } from 'vitest';
import { writeCentersGlb } from '../../src/bake/write-centers.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { centersOf } from '../../src/skin/centers-of-rotation/centers.ts';

/**
 * The loader's checks of `_CENTER_OF_ROTATION` (src/gltf/center-of-rotation-attribute.ts):
 * a copy of the twist cylinder written by `bake --write-centers`, then broken one way at a time.
 */
const PATH = 'meshes[0].primitives[0].attributes._CENTER_OF_ROTATION';
let sound: Uint8Array;

beforeAll(async () => {
  const bytes = buildBuiltinGlb('twist-cylinder');
  sound = (await writeCentersGlb(bytes, await loadGltf(bytes, { name: 'twist-cylinder' }))).glb;
});

/** The sound copy with its JSON (and BIN) changed by `edit`. */
function broken(edit: (json: Record<string, any>, bin: Uint8Array, accessor: Record<string, any>) => void): Uint8Array {
  const { json, bin } = parseGlb(sound);
  const copy = structuredClone(json) as Record<string, any>;
  const data = bin!.slice();
  edit(copy, data, copy.accessors[copy.meshes[0].primitives[0].attributes._CENTER_OF_ROTATION]);
  return encodeGlb(copy, data);
}

describe('_CENTER_OF_ROTATION in the loader', () => {
  it('a sound attribute gives the primitive its centres, without a warning', async () => {
    const model = await loadGltf(sound, { name: 'sound' });
    expect(model.warnings.filter((w) => w.path === PATH)).toEqual([]);
    const prim = model.meshes[0].primitives[0];
    expect(prim.centersOfRotation).toHaveLength(prim.vertexCount * 3);
    expect(centersOf(prim).source).toBe('file');
  });

  it.each([
    ['a VEC2 accessor', (_: unknown, __: unknown, a: Record<string, any>) => { a.type = 'VEC2'; }, /must be a VEC3 FLOAT accessor \(accessors\[\d+\] has 2 component\(s\) of componentType 5126\); ignored, the centres are computed instead/],
    ['an UNSIGNED_SHORT accessor', (_: unknown, __: unknown, a: Record<string, any>) => { a.componentType = 5123; delete a.min; delete a.max; }, /must be a VEC3 FLOAT accessor \(accessors\[\d+\] has 3 component\(s\) of componentType 5123\)/],
    ['one element short of POSITION', (_: unknown, __: unknown, a: Record<string, any>) => { a.count -= 1; }, /has 1484 elements but POSITION has 1485; ignored, the centres are computed instead/],
    ['a NaN', (json: Record<string, any>, bin: Uint8Array, a: Record<string, any>) => {
      const view = json.bufferViews[a.bufferView];
      new DataView(bin.buffer).setFloat32(view.byteOffset + 7 * 12 + 4, NaN, true);
      delete a.min; delete a.max;
    }, /has a non-finite value \(NaN\) at element 7; ignored, the centres are computed instead/],
  ] as const)('%s: a warning naming the attribute\'s path, and the centres are recomputed', async (_, edit, message) => {
    const model = await loadGltf(broken(edit), { name: 'broken' });
    const warnings = model.warnings.filter((w) => w.path === PATH);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(message);
    const prim = model.meshes[0].primitives[0];
    expect(prim.centersOfRotation).toBeUndefined();
    const recomputed = centersOf(prim);
    expect(recomputed.source).toBe('computed');
    expect(recomputed.centers).toEqual((await loadGltf(sound, { name: 'sound' })).meshes[0].primitives[0].centersOfRotation);
  });

  it('on a primitive without skinning attributes: a warning, ignored', async () => {
    const model = await loadGltf(broken((json) => {
      const attributes = json.meshes[0].primitives[0].attributes;
      delete attributes.JOINTS_0;
      delete attributes.WEIGHTS_0;
    }), { name: 'unskinned' });
    expect(model.warnings.find((w) => w.path === PATH)?.message).toMatch(/is on a primitive without JOINTS_0\/WEIGHTS_0.*; ignored/);
    expect(model.meshes[0].primitives[0].centersOfRotation).toBeUndefined();
  });

  it('an accessor index out of range is the loader\'s usual error, naming the attribute', async () => {
    await expect(loadGltf(broken((json) => { json.meshes[0].primitives[0].attributes._CENTER_OF_ROTATION = 999; }), { name: 'x' })).rejects.toThrow(new RegExp(`${PATH.replace(/[[\].]/g, '\\$&')}`));
  });
});
