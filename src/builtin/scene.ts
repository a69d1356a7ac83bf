import type { GltfBuilder } from '../gltf/builder.ts';
import type { Rig } from './rig.ts';

export interface SkinnedSceneOptions {
  /** Name of the scene root node (and prefix of the mesh node and skin names). */
  name: string;
  mesh: number;
  /** Inverse bind matrices to write instead of the rig's (a model baked in another orientation). */
  inverseBindMatrices?: Float32Array;
}

/**
 * Writes the node layout shared by every built-in model:
 *
 *     scene → <name> ─┬─ skeleton root joint → … joints
 *                     └─ <name>Mesh (mesh + skin)
 *
 * The skinned mesh node is a sibling of the skeleton root, the layout most
 * exporters produce: glTF ignores a skinned node's own transform, and keeping
 * it out of the joint hierarchy means no joint transform can leak into it.
 * Returns the node index of each joint, in rig order, for animation targets.
 */
export function writeSkinnedScene(b: GltfBuilder, rig: Rig, opts: SkinnedSceneOptions): number[] {
  const root = b.addNode({ name: opts.name });
  const jointNodes = rig.writeNodes(b);
  const skin = b.addSkin({
    name: `${opts.name}Skin`,
    joints: jointNodes,
    skeleton: jointNodes[0],
    inverseBindMatrices: b.addAccessor(opts.inverseBindMatrices ?? rig.inverseBindMatrices(), 'MAT4'),
  });
  const meshNode = b.addNode({ name: `${opts.name}Mesh`, mesh: opts.mesh, skin });
  b.json.nodes[root].children = [jointNodes[0], meshNode];
  b.addScene({ name: 'Scene', nodes: [root] });
  return jointNodes;
}
