import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { bakeToGlb } from '../../src/bake/glb.ts';
import { bakeToJson } from '../../src/bake/json.ts';
import { bakeToObj } from '../../src/bake/obj.ts';
import { posedPrimitives } from '../../src/bake/posed.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { InstancedMesh, Matrix4, Vector3 } from 'three';
import { buildInstancedQuad, translations } from '../support/instancing.ts';
import { loadThreeGltfBytes } from '../support/three-node.ts';

/**
 * The bake of an EXT_mesh_gpu_instancing node: every instance a posed primitive of its own
 * in the OBJ and GLB outputs (node world · instance TRS, as three.js's InstancedMesh places
 * it); the JSON, which holds skinned primitives only, is unchanged.
 */
const s = Math.SQRT1_2;
const bytes = buildInstancedQuad({
  halfSize: 0.5,
  node: { translation: [0, 0, -1] },
  attributes: {
    TRANSLATION: translations(10, 0, 0, 0, 20, 0),
    // Instance 1: 90° about z, so its +x corner goes to +y.
    ROTATION: { data: Float32Array.of(0, 0, 0, 1, 0, 0, s, s), type: 'VEC4' },
  },
  plainCopyAt: [0, 0, 3],
});
const model = await loadGltf(bytes);

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

  it('agrees with three.js r187 (GLTFLoader\'s InstancedMesh), also for quantized rotations and a rotated node', async () => {
    const quantized = buildInstancedQuad({
      node: { translation: [1, 2, 3], rotation: [0, Math.sin(0.3), 0, Math.cos(0.3)], scale: [2, 2, 2] },
      attributes: {
        TRANSLATION: translations(0, 0, 0, 4, 0, 0, 0, -4, 1),
        ROTATION: { data: Int16Array.of(0, 0, 0, 32767, 0, 0, 23170, 23170, 11796, -15728, 20971, 15728), type: 'VEC4', normalized: true },
        SCALE: { data: Int8Array.of(127, 127, 127, 64, 127, 32, 127, 100, 127), type: 'VEC3', normalized: true },
      },
    });
    for (const file of [bytes, quantized]) {
      const ours = await loadGltf(file);
      const posed = posedPrimitives(ours, bakeModel(ours)).filter((p) => p.instance >= 0);
      const gltf = await loadThreeGltfBytes(file);
      gltf.scene.updateMatrixWorld(true);
      const meshes: InstancedMesh[] = [];
      gltf.scene.traverse((o) => { if ((o as InstancedMesh).isInstancedMesh) meshes.push(o as InstancedMesh); });
      expect(meshes).toHaveLength(1);
      const mesh = meshes[0];
      expect(mesh.count).toBe(posed.length);
      const position = mesh.geometry.getAttribute('position');
      const m = new Matrix4(), v = new Vector3();
      let worst = 0;
      for (let k = 0; k < mesh.count; k++) {
        mesh.getMatrixAt(k, m);
        m.premultiply(mesh.matrixWorld);
        for (let i = 0; i < position.count; i++) {
          v.fromBufferAttribute(position, i).applyMatrix4(m);
          const p = posed[k].positions;
          worst = Math.max(worst, Math.hypot(v.x - p[i * 3], v.y - p[i * 3 + 1], v.z - p[i * 3 + 2]));
        }
      }
      // Float32 rounding for float data; three composes a dequantized quaternion as stored
      // (|q| within 1e-4 of 1) where we normalise it, so a little more for the quantized file.
      expect(worst).toBeLessThan(file === bytes ? 1e-6 : 1e-4);
    }
  });

  it('JSON: unchanged (skinned primitives only; an instanced node is rigid)', () => {
    expect(JSON.parse(bakeToJson(result)).primitives).toEqual([]);
  });
});
