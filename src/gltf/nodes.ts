import { GltfError } from './errors.ts';
import { asObject, checkIndex, float32Array, optArray, optIndex, optNumbers, optString, type JsonObject } from './json.ts';
import type { Hierarchy, Mesh, NodeInfo } from './model.ts';
import { QUAT_LENGTH_WARN, type ReadContext } from './read-context.ts';
import { composeTRS, decomposeTRS } from '../math/trs.ts';
import { normalizeQuat } from '../math/quat.ts';

/** A `matrix` whose last row is further than this from 0 0 0 1 is not an affine transform. */
const MATRIX_AFFINE_EPSILON = 1e-6;

/** The `nodes` section: parent links (one parent each), mesh, skin and morph weights per node. */
export function readNodes(ctx: ReadContext, nodesJson: readonly unknown[], skinCount: number, meshes: readonly Mesh[]): NodeInfo[] {
  const count = nodesJson.length;
  ctx.budget.charge(count * 64, 'nodes');
  const parent = new Int32Array(count).fill(-1);
  const childLists: number[][] = [];
  for (let n = 0; n < count; n++) {
    const path = `nodes[${n}]`;
    const node = asObject(nodesJson[n], path);
    const children = optArray(node, 'children', path) as number[];
    for (let i = 0; i < children.length; i++) {
      const c = children[i];
      // The common case without building a path string (a file may have 100,000 nodes).
      if (!(Number.isInteger(c) && c >= 0 && c < count)) checkIndex(c, `${path}.children[${i}]`, count, 'nodes');
      if (c === n) throw new GltfError(`${path}.children[${i}]`, 'a node cannot be its own child');
      if (parent[c] === n) throw new GltfError(`${path}.children[${i}]`, `nodes[${c}] is listed twice`);
      if (parent[c] >= 0) {
        throw new GltfError(`${path}.children[${i}]`, `nodes[${c}] already has parent nodes[${parent[c]}] (a node may have only one parent)`);
      }
      parent[c] = n;
    }
    childLists.push(children);
  }
  const out: NodeInfo[] = [];
  for (let n = 0; n < count; n++) {
    const path = `nodes[${n}]`;
    const node = nodesJson[n] as JsonObject;
    const mesh = optIndex(node, 'mesh', path, meshes.length, 'meshes');
    const skin = optIndex(node, 'skin', path, skinCount, 'skins');
    if (skin >= 0 && mesh < 0) ctx.warn(`${path}.skin`, 'skin on a node without a mesh is ignored');
    const w = node.weights;
    let weights: Float32Array = mesh >= 0 ? meshes[mesh].weights : new Float32Array(0);
    if (w !== undefined) {
      const list = optNumbers(node, 'weights', path, Array.isArray(w) ? w.length : -1)!;
      // glTF-Validator NODE_WEIGHTS_INVALID is an error; three.js r187 copies the weights it has over the mesh's.
      if (mesh >= 0 && list.length !== meshes[mesh].weights.length) {
        const targets = meshes[mesh].weights.length;
        ctx.warn(`${path}.weights`, `has ${list.length} weights but meshes[${mesh}] has ${targets} morph targets; ${list.length > targets ? 'the extra weights are ignored' : "the mesh's weights fill the rest"}`);
        const fitted = float32Array(list.slice(0, targets), `${path}.weights`);
        weights = Float32Array.from(meshes[mesh].weights);
        weights.set(fitted);
      } else {
        weights = float32Array(list, `${path}.weights`);
      }
    }
    out.push({ name: optString(node, 'name', path), parent: parent[n], children: childLists[n], mesh, skin: mesh >= 0 ? skin : -1, weights });
  }
  return out;
}

/** The nodes in parent-first slots with their rest transforms (matrices decomposed, rotations normalised). */
export function buildHierarchy(ctx: ReadContext, nodesJson: readonly unknown[], nodes: readonly NodeInfo[]): Hierarchy {
  const count = nodes.length;
  ctx.budget.charge(count * 256, 'nodes');
  const order = new Int32Array(count);
  const slotOf = new Int32Array(count).fill(-1);
  const parentSlot = new Int32Array(count);
  let next = 0;
  // Depth-first from every root keeps subtrees contiguous; an explicit stack avoids
  // recursion limits on deep chains.
  const stack: number[] = [];
  for (let r = 0; r < count; r++) {
    if (nodes[r].parent >= 0) continue;
    stack.push(r);
    while (stack.length > 0) {
      const n = stack.pop()!;
      slotOf[n] = next;
      order[next] = n;
      parentSlot[next] = nodes[n].parent >= 0 ? slotOf[nodes[n].parent] : -1;
      next++;
      const children = nodes[n].children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  if (next < count) {
    const stuck = slotOf.indexOf(-1);
    throw new GltfError(`nodes[${stuck}]`, 'is part of a cycle in the node hierarchy');
  }

  const restTranslation = new Float64Array(count * 3);
  const restRotation = new Float64Array(count * 4);
  const restScale = new Float64Array(count * 3);
  const restMatrix = new Float64Array(count * 16);
  const useMatrix = new Uint8Array(count);
  const t = [0, 0, 0], r = [0, 0, 0, 1], s = [1, 1, 1];
  for (let slot = 0; slot < count; slot++) {
    const n = order[slot];
    const path = `nodes[${n}]`;
    const node = nodesJson[n] as JsonObject;
    const matrix = optNumbers(node, 'matrix', path, 16);
    if (matrix) {
      // Not allowed, but three.js r187 and the Khronos sample viewer both take the matrix.
      if (node.translation !== undefined || node.rotation !== undefined || node.scale !== undefined) {
        ctx.warn(`${path}.matrix`, 'a node may have either matrix or translation/rotation/scale, not both; the matrix is used');
      }
      // glTF-Validator NODE_MATRIX_NON_TRS is an error, but three.js r187 and the Khronos sample
      // viewer both decompose the matrix, which reads the upper 3×4 only: so do we.
      if (Math.abs(matrix[3]) > MATRIX_AFFINE_EPSILON || Math.abs(matrix[7]) > MATRIX_AFFINE_EPSILON ||
          Math.abs(matrix[11]) > MATRIX_AFFINE_EPSILON || Math.abs(matrix[15] - 1) > MATRIX_AFFINE_EPSILON) {
        ctx.warn(`${path}.matrix`, `last row is ${matrix[3]} ${matrix[7]} ${matrix[11]} ${matrix[15]}, not 0 0 0 1; it is ignored (read as 0 0 0 1)`);
      }
      restMatrix.set(matrix, slot * 16);
      const o = slot * 16;
      restMatrix[o + 3] = 0; restMatrix[o + 7] = 0; restMatrix[o + 11] = 0; restMatrix[o + 15] = 1;
      useMatrix[slot] = 1;
      decomposeTRS(matrix, t, r, s);
      if (!s.every(Number.isFinite)) throw new GltfError(`${path}.matrix`, 'is too large to decompose into translation/rotation/scale');
    } else {
      const tv = optNumbers(node, 'translation', path, 3) ?? [0, 0, 0];
      const rv = optNumbers(node, 'rotation', path, 4) ?? [0, 0, 0, 1];
      const sv = optNumbers(node, 'scale', path, 3) ?? [1, 1, 1];
      t[0] = tv[0]; t[1] = tv[1]; t[2] = tv[2];
      r[0] = rv[0]; r[1] = rv[1]; r[2] = rv[2]; r[3] = rv[3];
      const len = Math.hypot(r[0], r[1], r[2], r[3]);
      if (len === 0) {
        // three.js r187 composes a zero quaternion into a matrix with no rotation.
        ctx.warn(`${path}.rotation`, 'is a zero quaternion; no rotation is used');
        r[0] = 0; r[1] = 0; r[2] = 0; r[3] = 1;
      } else {
        if (Math.abs(len - 1) > QUAT_LENGTH_WARN) ctx.warn(`${path}.rotation`, `quaternion length ${len.toFixed(4)} renormalised`);
        normalizeQuat(r, 0, r, 0);
      }
      s[0] = sv[0]; s[1] = sv[1]; s[2] = sv[2];
      composeTRS(t, r, s, restMatrix, 0, 0, 0, slot * 16);
    }
    restTranslation.set(t, slot * 3);
    restRotation.set(r, slot * 4);
    restScale.set(s, slot * 3);
  }
  return { count, order, slotOf, parentSlot, restTranslation, restRotation, restScale, restMatrix, useMatrix };
}
