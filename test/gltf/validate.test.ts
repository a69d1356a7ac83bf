import { describe, expect, it } from 'vitest';
import { GltfError } from '../../src/gltf/errors.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { assetJson } from '../support/assets.ts';

/**
 * The semantic rules a renderer needs, beyond the schema. Errors follow glTF-Validator's
 * severities (named in each test); soft problems are repaired and reported in
 * `model.warnings`, as glTF-Validator reports warnings. Errors first, then repairs.
 *
 * SimpleSkin: nodes[0] the skinned mesh node, nodes[1] → nodes[2] the joints; accessors
 * 0 indices, 1 POSITION, 2 JOINTS_0, 3 WEIGHTS_0, 4 inverse binds, 5 key times, 6 rotations.
 */

const bytesOf = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

function simpleSkinWith(mutate: (j: Record<string, any>) => void): Uint8Array {
  const json = assetJson('SimpleSkin');
  mutate(json);
  return bytesOf(json);
}

/** Edits embedded buffer `index` of `json` through a DataView. */
function editBuffer(json: Record<string, any>, index: number, edit: (dv: DataView) => void): void {
  const [head, payload] = json.buffers[index].uri.split(',');
  const bytes = Buffer.from(payload, 'base64');
  edit(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  json.buffers[index].uri = `${head},${bytes.toString('base64')}`;
}

async function expectGltfError(bytes: Uint8Array, path: string, problem: RegExp): Promise<void> {
  const error = await loadGltf(bytes).then(() => undefined, (e: unknown) => e);
  expect(error, 'expected the load to fail').toBeInstanceOf(GltfError);
  expect((error as GltfError).path).toBe(path);
  expect((error as GltfError).problem).toMatch(problem);
}

describe('semantic errors (refused, as glTF-Validator reports errors)', () => {
  it('a node listed twice as a child (NODE_PARENT_OVERRIDE)', () =>
    expectGltfError(simpleSkinWith((j) => (j.nodes[1].children = [2, 2])), 'nodes[1].children[1]', /nodes\[2\] is listed twice/));

  it('a primitive with zero vertices', () =>
    expectGltfError(simpleSkinWith((j) => (j.accessors[1].count = 0)), 'accessors[1].count', /must be at least 1/));

  it('attributes of different counts, even ones the loader does not read (MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT)', () =>
    expectGltfError(simpleSkinWith((j) => {
      j.accessors.push({ bufferView: 1, componentType: 5126, count: 9, type: 'VEC2' });
      j.meshes[0].primitives[0].attributes.TEXCOORD_3 = 7;
    }), 'meshes[0].primitives[0].attributes.TEXCOORD_3', /has 9 elements but POSITION has 10/));

  it('negative weights', () =>
    expectGltfError(simpleSkinWith((j) => editBuffer(j, 1, (dv) => dv.setFloat32(160 + 4, -0.25, true))), 'meshes[0].primitives[0].attributes.WEIGHTS_0', /vertex 0 has weight -0.25/));

  it('non-finite weights, positions, inverse binds and keys', async () => {
    await expectGltfError(simpleSkinWith((j) => editBuffer(j, 1, (dv) => dv.setFloat32(160, Infinity, true))),
      'meshes[0].primitives[0].attributes.WEIGHTS_0', /accessors\[3\] has a non-finite value \(Infinity\) at element 0/);
    await expectGltfError(simpleSkinWith((j) => editBuffer(j, 0, (dv) => dv.setFloat32(48 + 12 * 4 + 4, NaN, true))),
      'meshes[0].primitives[0].attributes.POSITION', /accessors\[1\] has a non-finite value \(NaN\) at element 4/);
    await expectGltfError(simpleSkinWith((j) => editBuffer(j, 2, (dv) => dv.setFloat32(64 + 13 * 4, -Infinity, true))),
      'skins[0].inverseBindMatrices', /matrix 1 has a non-finite element \(-Infinity\)/);
    await expectGltfError(simpleSkinWith((j) => editBuffer(j, 3, (dv) => dv.setFloat32(48 + 16 * 3, NaN, true))),
      'animations[0].samplers[0].output', /accessors\[6\] has a non-finite value \(NaN\) at element 3/);
  });

  it('1e400 in JSON numbers (it parses to Infinity)', async () => {
    const text = new TextDecoder().decode(simpleSkinWith((j) => (j.nodes[2].translation = [0, 'INF', 0])));
    await expectGltfError(new TextEncoder().encode(text.replace('"INF"', '1e400')), 'nodes[2].translation[1]', /finite number, got Infinity/);
  });

  it('a rotation key that is a zero quaternion', () =>
    expectGltfError(simpleSkinWith((j) => editBuffer(j, 3, (dv) => {
      for (let c = 0; c < 4; c++) dv.setFloat32(48 + 16 * 2 + 4 * c, 0, true);
    })), 'animations[0].samplers[0].output', /rotation key 2 is a zero quaternion/));

  it('material numbers beyond a 32-bit float (what the GPU reads)', () =>
    expectGltfError(simpleSkinWith((j) => (j.materials = [{ alphaCutoff: 1e39 }])), 'materials[0].alphaCutoff', /1e\+39 does not fit a 32-bit float/));

});

describe('soft problems are repaired and reported in model.warnings', () => {
  it('unnormalised weights are renormalised', async () => {
    const model = await loadGltf(simpleSkinWith((j) => editBuffer(j, 1, (dv) => {
      dv.setFloat32(160, 0.5, true); // vertex 0: (1, 0, 0, 0) → (0.5, 0, 0, 0)
      for (let c = 0; c < 4; c++) dv.setFloat32(160 + 16 + 4 * c, 0, true); // vertex 1: all zero
    })));
    const w = model.meshes[0].primitives[0].weights!;
    expect(Array.from(w.subarray(0, 8))).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(model.warnings).toContainEqual({
      path: 'meshes[0].primitives[0].attributes.WEIGHTS_0',
      message: '2 vertices had weights not summing to 1 (worst off by 0.5000, 1 all zero); renormalised',
    });
  });

  it('missing normals are reported (the renderer derives flat normals)', async () => {
    const model = await loadGltf(bytesOf(assetJson('SimpleSkin')));
    expect(model.meshes[0].primitives[0].normals).toBeUndefined();
    expect(model.warnings).toContainEqual({ path: 'meshes[0].primitives', message: '1 of 1 primitive(s) have no NORMAL; flat normals are derived per face when drawn' });
  });

  it('non-unit node rotations and rotation keys are normalised', async () => {
    const model = await loadGltf(simpleSkinWith((j) => {
      j.nodes[2].rotation = [0, 0, 0, 2];
      editBuffer(j, 3, (dv) => dv.setFloat32(48 + 12, 3, true)); // key 0: (0, 0, 0, 1) → (0, 0, 0, 3)
    }));
    expect(Array.from(model.hierarchy.restRotation.subarray(model.hierarchy.slotOf[2] * 4, model.hierarchy.slotOf[2] * 4 + 4))).toEqual([0, 0, 0, 1]);
    expect(Array.from(model.animations[0].channels[0].sampler.values.subarray(0, 4))).toEqual([0, 0, 0, 1]);
    expect(model.warnings).toContainEqual({ path: 'nodes[2].rotation', message: 'quaternion length 2.0000 renormalised' });
    expect(model.warnings).toContainEqual({ path: 'animations[0].samplers[0].output', message: 'rotation keys are not unit quaternions (worst length 3.0000); renormalised' });
  });

  it('unused accessors and skins are reported and ignored', async () => {
    const model = await loadGltf(simpleSkinWith((j) => {
      j.accessors.push({ bufferView: 1, componentType: 5126, count: 1, type: 'VEC3' });
      j.skins.push({ joints: [1] });
    }));
    expect(model.skins).toHaveLength(2);
    expect(model.warnings).toContainEqual({ path: 'accessors', message: 'accessors[7] is never used; ignored' });
    expect(model.warnings).toContainEqual({ path: 'skins', message: 'skins[1] is not used by any mesh node; ignored' });
  });

  it('a skinned mesh on a node without a skin, and a skin on a mesh without joints, are drawn rigid', async () => {
    const noSkin = await loadGltf(simpleSkinWith((j) => delete j.nodes[0].skin));
    expect(noSkin.meshNodes[0].skin).toBe(-1);
    expect(noSkin.warnings).toContainEqual({ path: 'nodes[0].mesh', message: 'meshes[0] has JOINTS_0/WEIGHTS_0 but the node has no skin; drawn rigid' });
    const noJoints = await loadGltf(simpleSkinWith((j) => {
      delete j.meshes[0].primitives[0].attributes.JOINTS_0;
      delete j.meshes[0].primitives[0].attributes.WEIGHTS_0;
    }));
    expect(noJoints.meshNodes[0].skin).toBe(-1);
    expect(noJoints.warnings).toContainEqual({ path: 'nodes[0].skin', message: 'node has a skin but its mesh has no JOINTS_0/WEIGHTS_0; drawn rigid' });
  });

  it('a triangle list whose index count is not a multiple of 3 drops the rest', async () => {
    const model = await loadGltf(simpleSkinWith((j) => (j.accessors[0].count = 23)));
    expect(model.warnings).toContainEqual({ path: 'meshes[0].primitives[0].indices', message: '23 indices is not a whole number of triangles; the last 2 are ignored' });
  });

  it('material factors outside the schema\'s ranges are clamped (VALUE_NOT_IN_RANGE)', async () => {
    const model = await loadGltf(simpleSkinWith((j) => {
      j.materials = [{ pbrMetallicRoughness: { baseColorFactor: [1.5, 0, 0, 1], metallicFactor: -1 }, alphaCutoff: -0.5, emissiveFactor: [0, 2, 0] }];
      j.meshes[0].primitives[0].material = 0;
    }));
    const m = model.materials[0];
    expect(m.baseColorFactor).toEqual([1, 0, 0, 1]);
    expect([m.metallicFactor, m.alphaCutoff, m.emissiveFactor[1]]).toEqual([0, 0, 1]);
    expect(model.warnings).toContainEqual({ path: 'materials[0].pbrMetallicRoughness.baseColorFactor[0]', message: '1.5 is outside [0, 1]; clamped to 1' });
    expect(model.warnings).toContainEqual({ path: 'materials[0].alphaCutoff', message: '-0.5 is outside [0, Infinity]; clamped to 0' });
  });

  it('morph meshes without default weights get zeros, one per target', async () => {
    const json = assetJson('SimpleMorph');
    delete json.meshes[0].weights;
    const model = await loadGltf(bytesOf(json));
    expect(Array.from(model.meshes[0].weights)).toEqual([0, 0]);
    expect(Array.from(model.nodes[0].weights)).toEqual([0, 0]);
  });

  it('joints listed children-first still get their parent links', async () => {
    const model = await loadGltf(simpleSkinWith((j) => (j.skins[0].joints = [2, 1])));
    expect(Array.from(model.skins[0].jointParents)).toEqual([1, -1]);
    expect(Array.from(model.skins[0].jointsParentFirst)).toEqual([1, 0]);
  });
});
