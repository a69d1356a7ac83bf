import type { Hierarchy } from '../../gltf/model.ts';
import type { VrmSpringBones } from '../../gltf/vrm-model.ts';

/**
 * Per joint in update order, the slots to recompute after it: the joint itself, then every
 * descendant not below another joint (those are recomputed after their own joint), in slot
 * order — three-vrm's `traverseChildrenUntilConditionMet`.
 */
export function updateLists(h: Hierarchy, springs: VrmSpringBones, slot: Int32Array): { updateStart: Int32Array; updateRuns: Int32Array } {
  const isJoint = new Uint8Array(h.count);
  for (const s of slot) isJoint[s] = 1;
  // Owner of each slot: the nearest joint at or above it (slots are parent-first).
  const owner = new Int32Array(h.count).fill(-1);
  for (let s = 0; s < h.count; s++) {
    const p = h.parentSlot[s];
    owner[s] = isJoint[s] ? s : p >= 0 ? owner[p] : -1;
  }
  const bySlot = new Map<number, number[]>();
  for (let s = 0; s < h.count; s++) {
    if (owner[s] < 0 || isJoint[s]) continue;
    const list = bySlot.get(owner[s]);
    if (list) list.push(s);
    else bySlot.set(owner[s], [s]);
  }
  const starts: number[] = [0];
  const runs: number[] = [];
  for (let k = 0; k < springs.order.length; k++) {
    const s = slot[springs.order[k]];
    const slots = [s, ...(bySlot.get(s) ?? [])];
    // A node that is the head of several joints gets its owned nodes after the first only.
    bySlot.delete(s);
    // Consecutive slots (parents before children already) in one run.
    for (let i = 0; i < slots.length; i++) {
      if (i > 0 && slots[i] === runs[runs.length - 1]) runs[runs.length - 1]++;
      else runs.push(slots[i], slots[i] + 1);
    }
    starts.push(runs.length / 2);
  }
  return { updateStart: Int32Array.from(starts), updateRuns: Int32Array.from(runs) };
}

/** `updateLists`' runs with each joint's own slot (the first slot of its first run) taken out. */
export function carriedLists(updateStart: Int32Array, updateRuns: Int32Array): { carryStart: Int32Array; carryRuns: Int32Array } {
  const starts: number[] = [0];
  const runs: number[] = [];
  for (let k = 0; k + 1 < updateStart.length; k++) {
    for (let i = updateStart[k]; i < updateStart[k + 1]; i++) {
      const first = updateRuns[2 * i] + (i === updateStart[k] ? 1 : 0), end = updateRuns[2 * i + 1];
      if (first < end) runs.push(first, end);
    }
    starts.push(runs.length / 2);
  }
  return { carryStart: Int32Array.from(starts), carryRuns: Int32Array.from(runs) };
}
