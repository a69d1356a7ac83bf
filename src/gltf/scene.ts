import { GltfError } from './errors.ts';
import type { readMeshInstances } from './extensions/ext-mesh-gpu-instancing.ts';
import { asObject, checkIndex, optArray, optIndex } from './json.ts';
import type { Mesh, MeshNode, NodeInfo, Skin } from './model.ts';
import type { ReadContext } from './read-context.ts';

/** The scene shown (`scene`, else the first; every root when the file has none) and which nodes it reaches. */
export function readScene(ctx: ReadContext, nodes: readonly NodeInfo[]): { scene: number; sceneRoots: Int32Array; inScene: Uint8Array } {
  const scenes = optArray(ctx.root, 'scenes', '');
  const inScene = new Uint8Array(nodes.length);
  let roots: number[];
  let scene = -1;
  if (scenes.length === 0) {
    roots = [];
    for (let n = 0; n < nodes.length; n++) if (nodes[n].parent < 0) roots.push(n);
  } else {
    scene = optIndex(ctx.root, 'scene', '', scenes.length, 'scenes');
    if (scene < 0) scene = 0;
    const path = `scenes[${scene}]`;
    const obj = asObject(scenes[scene], path);
    roots = [];
    optArray(obj, 'nodes', path).forEach((v, i) => {
      const r = checkIndex(v, `${path}.nodes[${i}]`, nodes.length, 'nodes');
      if (nodes[r].parent >= 0) throw new GltfError(`${path}.nodes[${i}]`, `nodes[${r}] is not a root node (its parent is nodes[${nodes[r].parent}])`);
      // A schema error (uniqueItems), but drawing the node once is what three.js r187 does.
      if (inScene[r]) {
        ctx.warn(`${path}.nodes[${i}]`, `nodes[${r}] is listed twice; drawn once`);
        return;
      }
      inScene[r] = 1;
      roots.push(r);
    });
  }
  const stack = [...roots];
  while (stack.length > 0) {
    const n = stack.pop()!;
    inScene[n] = 1;
    for (const c of nodes[n].children) stack.push(c);
  }
  return { scene, sceneRoots: Int32Array.from(roots), inScene };
}

/**
 * Every node of the scene that has a mesh, with the skin rules that need the scene. `readInstances`
 * is EXT_mesh_gpu_instancing's reader, which load.ts imports only for a file with an instanced node
 * (instancing-presence.ts); without it no node has instances.
 */
export function readMeshNodes(
  ctx: ReadContext, nodes: readonly NodeInfo[], meshes: readonly Mesh[], skins: readonly Skin[], scene: number, inScene: Uint8Array,
  readInstances?: typeof readMeshInstances,
): MeshNode[] {
  // Per mesh, computed once: node count × primitive count could be large.
  const maxJoint = meshes.map((m) => m.primitives.reduce((best, p, pi) => (p.maxJoint > best.value ? { value: p.maxJoint, primitive: pi } : best), { value: -1, primitive: -1 }));
  const jointOutsideScene = new Int32Array(skins.length).fill(-2);
  const meshNodes: MeshNode[] = [];
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n];
    // A mesh without primitives (meshes.ts warns) draws nothing: its node stays a plain node.
    if (!inScene[n] || node.mesh < 0 || meshes[node.mesh].primitives.length === 0) continue;
    let skin = node.skin;
    const worst = maxJoint[node.mesh];
    const instances = readInstances?.(ctx, n, meshes[node.mesh], skin >= 0 && worst.value >= 0);
    if (instances?.dropsSkin) {
      skin = -1;
    } else if (skin >= 0) {
      if (worst.value < 0) {
        ctx.warn(`nodes[${n}].skin`, 'node has a skin but its mesh has no JOINTS_0/WEIGHTS_0; drawn rigid');
        skin = -1;
      } else {
        const joints = skins[skin].joints;
        if (worst.value >= joints.length) {
          throw new GltfError(
            `meshes[${node.mesh}].primitives[${worst.primitive}].attributes.JOINTS_0`,
            `joint index ${worst.value} is out of range for skins[${skin}] (used by nodes[${n}]) with ${joints.length} joints`,
          );
        }
        if (jointOutsideScene[skin] === -2) {
          jointOutsideScene[skin] = joints.findIndex((j) => !inScene[j]);
          const outside = jointOutsideScene[skin];
          // glTF-Validator NODE_SKIN_NO_SCENE is an error, but nothing needs guessing: every
          // node has a world matrix from its own hierarchy, in the scene or not (three.js draws it too).
          if (outside >= 0) {
            ctx.warn(
              `nodes[${n}].skin`,
              `skins[${skin}].joints[${outside}] (nodes[${joints[outside]}]) is not in ${scene >= 0 ? `scenes[${scene}]` : 'the scene'}, which shows this skinned mesh; the joint is posed by its own node hierarchy`,
            );
          }
        }
      }
    } else if (worst.value >= 0) {
      ctx.warn(`nodes[${n}].mesh`, `meshes[${node.mesh}] has JOINTS_0/WEIGHTS_0 but the node has no skin; drawn rigid`);
    }
    meshNodes.push(instances ? { node: n, mesh: node.mesh, skin, instances: instances.matrices } : { node: n, mesh: node.mesh, skin });
  }
  return meshNodes;
}
