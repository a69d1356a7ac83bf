import { meshNodeWorld } from '../anim/mesh-node-world.ts';
import { invertMat4 } from '../math/trs.ts';
import type { MeshNode, Model, Primitive } from '../gltf/model.ts';
import { morphForBake, type BakedPrimitive, type BakeResult } from './bake.ts';

/** One primitive of the posed scene in world space, skinned or rigid. */
export interface PosedPrimitive {
  readonly node: number;
  readonly mesh: number;
  readonly primitive: number;
  /** EXT_mesh_gpu_instancing: which instance of the node this is; -1 for a node drawn once. */
  readonly instance: number;
  readonly source: Primitive;
  readonly positions: Float64Array;
  readonly normals: Float64Array | undefined;
  readonly tangents: Float64Array | undefined;
}

/**
 * Every mesh primitive of the scene, posed and in world space: the bake's skinned
 * primitives as they are, rigid ones morphed at the pose's weights and transformed by
 * their node's world matrix (normals by its inverse-transpose). Used by the OBJ and GLB writers.
 * An EXT_mesh_gpu_instancing node gives one posed primitive per primitive and instance,
 * through node world · instance matrix, as three.js's InstancedMesh draws them (the bake
 * JSON, which holds skinned primitives only, is unchanged: instanced nodes are rigid).
 */
export function posedPrimitives(model: Model, result: BakeResult): PosedPrimitive[] {
  const out: PosedPrimitive[] = [];
  const baked = new Map(result.primitives.map((p) => [`${p.node}/${p.primitive}`, p]));
  model.meshNodes.forEach((mn, i) => {
    const instances = mn.instances ? mn.instances.length / 16 : 1;
    for (let k = 0; k < instances; k++) {
      const m = meshNodeWorld(model, result.nodeMatrices, i, k, new Float64Array(16));
      out.push(...posedMeshNode(model, result, baked, mn, m, mn.instances ? k : -1));
    }
  });
  return out;
}

/** The primitives of mesh node `mn` posed through world matrix `m` (one instance of it when `instance` ≥ 0). */
function posedMeshNode(model: Model, result: BakeResult, baked: ReadonlyMap<string, BakedPrimitive>, mn: MeshNode, m: Float64Array, instance: number): PosedPrimitive[] {
  const out: PosedPrimitive[] = [];
  const inv = new Float64Array(16);
  const haveInverse = invertMat4(m, inv);
  model.meshes[mn.mesh].primitives.forEach((prim, p) => {
    const skinned = baked.get(`${mn.node}/${p}`);
    if (skinned) {
      out.push({ node: mn.node, mesh: mn.mesh, primitive: p, instance, source: prim, positions: skinned.positions, normals: skinned.normals, tangents: skinned.tangents });
      return;
    }
    const n = prim.vertexCount;
    const source = morphForBake(model, result, mn.node, prim);
    const positions = new Float64Array(n * 3);
    for (let v = 0; v < n; v++) {
      const x = source.positions[v * 3], y = source.positions[v * 3 + 1], z = source.positions[v * 3 + 2];
      positions[v * 3] = m[0] * x + m[4] * y + m[8] * z + m[12];
      positions[v * 3 + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
      positions[v * 3 + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    }
    const direction = (src: Float32Array, stride: number, normal: boolean): Float64Array => {
      const res = new Float64Array(n * stride);
      for (let v = 0; v < n; v++) {
        const x = src[v * stride], y = src[v * stride + 1], z = src[v * stride + 2];
        let rx: number, ry: number, rz: number;
        if (normal && haveInverse) {
          // Inverse-transpose: row i of the inverse dotted with n.
          rx = inv[0] * x + inv[1] * y + inv[2] * z;
          ry = inv[4] * x + inv[5] * y + inv[6] * z;
          rz = inv[8] * x + inv[9] * y + inv[10] * z;
        } else {
          rx = m[0] * x + m[4] * y + m[8] * z;
          ry = m[1] * x + m[5] * y + m[9] * z;
          rz = m[2] * x + m[6] * y + m[10] * z;
        }
        const il = 1 / (Math.hypot(rx, ry, rz) || 1);
        res[v * stride] = rx * il; res[v * stride + 1] = ry * il; res[v * stride + 2] = rz * il;
        if (stride === 4) res[v * 4 + 3] = src[v * 4 + 3];
      }
      return res;
    };
    out.push({
      node: mn.node, mesh: mn.mesh, primitive: p, instance, source: prim, positions,
      normals: source.normals ? direction(source.normals, 3, true) : undefined,
      tangents: source.tangents ? direction(source.tangents, 4, false) : undefined,
    });
  });
  return out;
}
