import type { Hierarchy, Model } from '../gltf/model.ts';

/**
 * Per-joint weight masks: one Float32Array weight per hierarchy slot (every node, not only
 * skin joints, so a mask indexes a Pose directly). Blending and additive jobs multiply a
 * layer's weight by `mask[slot]`; a joint whose product is 0 is skipped entirely, which is
 * what keeps masked-out joints bit-for-bit unchanged.
 *
 * Built once at setup (these allocate); the per-frame jobs only read them.
 */

/** Slot of the node named `name`; throws listing nearby names when there is none. */
export function findSlot(model: Model, name: string): number {
  const h = model.hierarchy;
  for (let slot = 0; slot < h.count; slot++) if (model.nodes[h.order[slot]].name === name) return slot;
  const names = model.nodes.map((n) => n.name).filter((n): n is string => n !== undefined);
  throw new Error(`no node named ${JSON.stringify(name)}; the model has ${names.length} named nodes: ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', …' : ''}`);
}

/** True when `slot` is `ancestor` or one of its descendants. */
export function isInSubtree(h: Hierarchy, slot: number, ancestor: number): boolean {
  // Parents have smaller slots, so the walk up can stop once it passes the ancestor.
  for (let s = slot; s >= ancestor; s = h.parentSlot[s]) if (s === ancestor) return true;
  return false;
}

/** A mask with every slot set to `fill`. */
export function createMask(h: Hierarchy, fill = 0): Float32Array {
  return new Float32Array(h.count).fill(fill);
}

/**
 * Sets `weight` on `rootSlot` and all its descendants, leaving other slots as they are, so
 * masks compose: e.g. upper body 1, then both arms 0.5. One forward pass, because a parent's
 * slot always comes before its children's.
 */
export function setSubtreeWeight(h: Hierarchy, rootSlot: number, weight: number, mask: Float32Array): Float32Array {
  checkSlot(h, rootSlot, 'setSubtreeWeight');
  if (mask.length !== h.count) throw new RangeError(`setSubtreeWeight: mask has ${mask.length} weights, hierarchy has ${h.count} slots`);
  if (!(weight >= 0 && weight <= 1)) throw new RangeError(`setSubtreeWeight: weight ${weight} is not in [0, 1]`);
  const inside = new Uint8Array(h.count);
  inside[rootSlot] = 1;
  mask[rootSlot] = weight;
  for (let slot = rootSlot + 1; slot < h.count; slot++) {
    const p = h.parentSlot[slot];
    if (p >= 0 && inside[p]) {
      inside[slot] = 1;
      mask[slot] = weight;
    }
  }
  return mask;
}

/** 1 on `rootSlot` and its descendants, 0 everywhere else (e.g. "upper body" from the spine). */
export function subtreeMask(h: Hierarchy, rootSlot: number): Float32Array {
  return setSubtreeWeight(h, rootSlot, 1, createMask(h, 0));
}

function checkSlot(h: Hierarchy, slot: number, who: string): void {
  if (!Number.isInteger(slot) || slot < 0 || slot >= h.count) throw new RangeError(`${who}: slot ${slot} is not in [0, ${h.count})`);
}
