import { ComponentType } from './constants.ts';
import { GltfError } from './errors.ts';
import { asObject, checkIndex, optArray, optIndex, optString } from './json.ts';
import type { Hierarchy, NodeInfo, Skin } from './model.ts';
import { listOf, type ReadContext } from './read-context.ts';
import { skinJointTree, type NodeTree } from './node-tree.ts';
import { setIdentity } from '../math/trs.ts';

/** The `skins` section: joints (with their parent-first order), inverse bind matrices, skeleton root. */
export function readSkins(ctx: ReadContext, nodes: readonly NodeInfo[], h: Hierarchy, tree: NodeTree): Skin[] {
  // Which skin last listed each node: one array for all skins, not one per skin.
  const listedBy = new Int32Array(nodes.length).fill(-1);
  return optArray(ctx.root, 'skins', '').map((s, si) => {
    const path = `skins[${si}]`;
    const skin = asObject(s, path);
    const jointList = optArray(skin, 'joints', path);
    if (jointList.length === 0) throw new GltfError(`${path}.joints`, 'a skin needs at least one joint');
    const count = jointList.length;
    ctx.budget.charge(count * 160, `${path}.joints`);
    const joints = Int32Array.from(jointList, (j, i) => checkIndex(j, `${path}.joints[${i}]`, nodes.length, 'nodes'));
    joints.forEach((j, i) => {
      // Joints must be unique (schema uniqueItems), but both entries simply
      // follow the node, each with its own inverse bind matrix (three.js r187 binds both).
      if (listedBy[j] === si) ctx.warn(`${path}.joints[${i}]`, `nodes[${j}] is listed twice; both entries follow it`);
      listedBy[j] = si;
    });
    const inverseBindMatrices = new Float64Array(count * 16);
    if (skin.inverseBindMatrices !== undefined) {
      const ipath = `${path}.inverseBindMatrices`;
      const data = ctx.accessor(skin.inverseBindMatrices, ipath);
      if (data.components !== 16 || data.componentType !== ComponentType.FLOAT) throw new GltfError(ipath, 'must be a FLOAT MAT4 accessor');
      if (data.count < count) throw new GltfError(ipath, `has ${data.count} matrices for ${count} joints`);
      for (let i = 0; i < count * 16; i++) {
        const v = data.array[i];
        if (!Number.isFinite(v)) throw new GltfError(ipath, `matrix ${Math.floor(i / 16)} has a non-finite element (${v})`);
        inverseBindMatrices[i] = v;
      }
    } else {
      for (let j = 0; j < count; j++) setIdentity(inverseBindMatrices, j * 16);
    }
    let inverseBindAffine = true;
    for (let j = 0; j < count; j++) {
      const o = j * 16;
      if (inverseBindMatrices[o + 3] !== 0 || inverseBindMatrices[o + 7] !== 0 || inverseBindMatrices[o + 11] !== 0 || inverseBindMatrices[o + 15] !== 1) inverseBindAffine = false;
    }
    const skeleton = optIndex(skin, 'skeleton', path, nodes.length, 'nodes');
    const { jointParents, jointsParentFirst } = skinJointTree(tree, joints, skeleton, path, (at, message) => ctx.warn(at, message));
    return {
      name: optString(skin, 'name', path),
      joints,
      jointSlots: joints.map((j) => h.slotOf[j]),
      jointParents, jointsParentFirst, inverseBindMatrices, inverseBindAffine, skeleton,
    };
  });
}

/** Like glTF-Validator's UNUSED_OBJECT hint: skins no mesh node uses. */
export function warnUnusedSkins(ctx: ReadContext, nodes: readonly NodeInfo[], skinCount: number): void {
  const skinUsed = new Uint8Array(skinCount);
  for (const node of nodes) if (node.skin >= 0) skinUsed[node.skin] = 1;
  const unusedSkins: number[] = [];
  for (let i = 0; i < skinCount; i++) if (!skinUsed[i]) unusedSkins.push(i);
  if (unusedSkins.length > 0) ctx.warn('skins', `${listOf(unusedSkins, 'skins')} not used by any mesh node; ignored`);
}
