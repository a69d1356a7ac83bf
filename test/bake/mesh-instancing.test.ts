import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { bakeToGlb } from '../../src/bake/glb.ts';
import { bakeToJson } from '../../src/bake/json.ts';
import { bakeToObj } from '../../src/bake/obj.ts';
import { posedPrimitives } from '../../src/bake/posed.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { buildInstancedQuad, translations } from '../support/instancing.ts';

/**
 * The bake of an EXT_mesh_gpu_instancing node: every instance a posed primitive of its own
 * in the OBJ and GLB outputs (node world · instance TRS, as three.js's InstancedMesh places
 * it); the JSON, which holds skinned primitives only, is unchanged.
 */
const s = Math.SQRT1_2;
const model = await loadGltf(buildInstancedQuad({
  halfSize: 0.5,
  node: { translation: [0, 0, -1] },
  attributes: {
    TRANSLATION: translations(10, 0, 0, 0, 20, 0),
    // Instance 1: 90° about z, so its +x corner goes to +y.
    ROTATION: { data: Float32Array.of(0, 0, 0, 1, 0, 0, s, s), type: 'VEC4' },
  },
  plainCopyAt: [0, 0, 3],
}));

describe('bake of EXT_mesh_gpu_instancing nodes', () => {
  const result = bakeModel(model);

  it('poses one primitive per instance, through node world · instance', () => {
    const posed = posedPrimitives(model, result);
    expect(posed.map((p) => [p.node, p.instance])).toEqual([[0, 0], [0, 1], [1, -1]]);
    // Vertex 1 is (0.5, −0.5, 0) in the mesh.
    const v1 = (k: number) => Array.from(posed[k].positions.subarray(3, 6)).map((x) => Number(x.toFixed(9)) + 0);
    expect(v1(0)).toEqual([10.5, -0.5, -1]);
    expect(v1(1)).toEqual([0.5, 20.5, -1]);
    expect(v1(2)).toEqual([0.5, -0.5, 3]);
    expect(Array.from(posed[1].normals!.subarray(0, 3)).map((x) => Number(x.toFixed(9)) + 0)).toEqual([0, 0, 1]);
  });

  it('OBJ: one group per instance; GLB: every instance loads back as posed', async () => {
    const obj = bakeToObj(model, result);
    expect(obj.match(/^o .*$/gm)).toEqual(['o node0_mesh0_primitive0_instance0', 'o node0_mesh0_primitive0_instance1', 'o node1_mesh0_primitive0']);
    const back = await loadGltf(bakeToGlb(model, result));
    const positions = back.meshes.flatMap((m) => m.primitives.map((p) => Array.from(p.positions.subarray(3, 6)).map((x) => Number(x.toFixed(5)) + 0)));
    expect(positions).toEqual([[10.5, -0.5, -1], [0.5, 20.5, -1], [0.5, -0.5, 3]]);
    expect(back.meshNodes.every((mn) => mn.instances === undefined)).toBe(true);
  });

  it('JSON: unchanged (skinned primitives only; an instanced node is rigid)', () => {
    expect(JSON.parse(bakeToJson(result)).primitives).toEqual([]);
  });
});
