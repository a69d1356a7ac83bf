import type { Hierarchy } from '../../gltf/model.ts';

/**
 * One past the last slot of `slot`'s subtree. Slots are in depth-first order (nodes.ts), so a
 * subtree is the contiguous run of slots after its root whose parents lie inside it; the
 * first slot whose parent comes before the root ends it. A pose step that rewrites one node's
 * local transform recomputes `localToModel` over [slot, subtreeEnd).
 */
export function subtreeEnd(h: Hierarchy, slot: number): number {
  let end = slot + 1;
  while (end < h.count && h.parentSlot[end] >= slot) end++;
  return end;
}
