import type { WarnFn } from './errors.ts';
import type { Hierarchy } from './model.ts';

/**
 * Ancestry queries on the parent-first node order in O(1): the hierarchy is laid out
 * depth-first, so every subtree is one contiguous run of slots, `[slot, end[slot])`.
 * Nothing here walks parent chains, so a deep chain of nodes costs nothing per query.
 */
export class NodeTree {
  /** Slot → one past the last slot of its subtree. */
  readonly end: Int32Array;
  /** Slot → slot of the root of its tree. */
  readonly root: Int32Array;

  constructor(readonly h: Hierarchy) {
    const n = h.count;
    const end = new Int32Array(n);
    const root = new Int32Array(n);
    for (let s = 0; s < n; s++) {
      end[s] = s + 1;
      root[s] = h.parentSlot[s] < 0 ? s : root[h.parentSlot[s]];
    }
    for (let s = n - 1; s >= 0; s--) {
      const p = h.parentSlot[s];
      if (p >= 0 && end[s] > end[p]) end[p] = end[s];
    }
    this.end = end;
    this.root = root;
  }

  /** Whether node `a` is `b` or one of its ancestors (glTF node indices). */
  isAncestorOrSelf(a: number, b: number): boolean {
    const sa = this.h.slotOf[a], sb = this.h.slotOf[b];
    return sa <= sb && sb < this.end[sa];
  }
}

export interface SkinJointTree {
  /** Per joint, the index (in `joints`) of its nearest ancestor that is also a joint, or -1. */
  readonly jointParents: Int32Array;
  /** Joint indices sorted parent-first (by slot; a node listed twice gives two equal slots). */
  readonly jointsParentFirst: Int32Array;
}

/**
 * A skin's joints with their own parent links, found with one sweep over the joints in
 * slot order (a joint's nearest joint ancestor is the innermost open subtree on the
 * stack), so the cost is O(J log J) whatever the depth of the hierarchy.
 *
 * glTF-Validator calls joints without one common root (SKIN_NO_COMMON_ROOT) and a
 * `skeleton` that is not that root or an ancestor of it (SKIN_SKELETON_INVALID) errors,
 * but neither needs guessing to draw: the palette is built from each joint's own world
 * matrix, and `skeleton` is only a hint (three.js r187 ignores it). Both are reported
 * through `warn`; the joints of each separate tree then have their own root joint(s).
 */
export function skinJointTree(tree: NodeTree, joints: Int32Array, skeleton: number, path: string, warn: WarnFn): SkinJointTree {
  const h = tree.h;
  const count = joints.length;
  const jointsParentFirst = new Int32Array(count);
  for (let i = 0; i < count; i++) jointsParentFirst[i] = i;
  jointsParentFirst.sort((a, b) => h.slotOf[joints[a]] - h.slotOf[joints[b]]);

  const first = jointsParentFirst[0];
  const treeRoot = tree.root[h.slotOf[joints[first]]];
  for (let i = 0; i < count; i++) {
    if (tree.root[h.slotOf[joints[i]]] !== treeRoot) {
      warn(
        `${path}.joints[${i}]`,
        `nodes[${joints[i]}] has no common root with nodes[${joints[first]}] (they are in different node trees); each joint is posed by its own node hierarchy`,
      );
      break;
    }
  }
  if (skeleton >= 0) {
    for (let i = 0; i < count; i++) {
      if (!tree.isAncestorOrSelf(skeleton, joints[i])) {
        warn(
          `${path}.skeleton`,
          `nodes[${skeleton}] is not the common root of the joints or an ancestor of it (joints[${i}], nodes[${joints[i]}], is outside its subtree); skeleton is ignored, as three.js does`,
        );
        break;
      }
    }
  }

  const jointParents = new Int32Array(count).fill(-1);
  const open = new Int32Array(count);
  let depth = 0;
  for (let k = 0; k < count; k++) {
    const i = jointsParentFirst[k];
    const slot = h.slotOf[joints[i]];
    while (depth > 0 && slot >= tree.end[h.slotOf[joints[open[depth - 1]]]]) depth--;
    // A node listed twice (a warning in skins.ts): the second entry gets its twin's parent.
    if (depth > 0 && h.slotOf[joints[open[depth - 1]]] === slot) {
      jointParents[i] = jointParents[open[depth - 1]];
      continue;
    }
    if (depth > 0) jointParents[i] = open[depth - 1];
    open[depth++] = i;
  }
  return { jointParents, jointsParentFirst };
}
