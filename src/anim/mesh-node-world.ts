import type { Model } from '../gltf/model.ts';
import { multiplyMat4 } from '../math/trs.ts';

/**
 * dst ← the world matrix mesh node `meshNode` of `model` is drawn with, from a pose's node
 * matrices: its node's, times instance matrix `copy` for an EXT_mesh_gpu_instancing node (the
 * vertex stage's node world · instance). The one place the bake's posed primitives, the CPU
 * bounds and the ray casts take it from. Returns `dst`; allocates nothing.
 */
export function meshNodeWorld(model: Model, nodeMatrices: Float64Array, meshNode: number, copy: number, dst: Float64Array): Float64Array {
  const mn = model.meshNodes[meshNode];
  const o = model.hierarchy.slotOf[mn.node] * 16;
  if (mn.instances) return multiplyMat4(nodeMatrices, mn.instances, dst, o, copy * 16, 0);
  for (let c = 0; c < 16; c++) dst[c] = nodeMatrices[o + c];
  return dst;
}
