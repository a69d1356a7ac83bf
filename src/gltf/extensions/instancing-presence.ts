/**
 * Whether a file has a node EXT_mesh_gpu_instancing's reader (ext-mesh-gpu-instancing.ts) must
 * see, so that load.ts imports it only then: a node whose `extensions` has the extension, or is
 * not an object (which the reader reports). Decided by what the JSON holds, not `extensionsUsed`.
 */
import { isObject } from '../json.ts';
import { EXT_MESH_GPU_INSTANCING } from './names.ts';

/** True when a node of `nodesJson` has EXT_mesh_gpu_instancing or `extensions` that are not an object. */
export function hasInstancedNodes(nodesJson: readonly unknown[]): boolean {
  return nodesJson.some((n) => isObject(n) && n.extensions !== undefined && (!isObject(n.extensions) || n.extensions[EXT_MESH_GPU_INSTANCING] !== undefined));
}
