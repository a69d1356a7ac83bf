import type { Hierarchy } from '../../gltf/model.ts';
import type { Pose } from '../pose.ts';

/**
 * What lets the caller's localToModel leave out the nodes the spring bones rewrite (each joint
 * and the nodes it carries: `updateLists`' slots), so they are not computed twice a frame. After
 * a run they hold the job's last matrices, which are this frame's exactly (the same inputs
 * through the same arithmetic) while every input is as it was: the outside parents' matrices and
 * the nodes' local T/S (and R of a carried node), compared with copies by `unchanged`. A joint
 * the pose gave another rotation is recomputed by the job's snapshot, as before. When anything
 * differs, the caller computes the spring nodes too (`insideRuns`) and the copies are refreshed
 * (not every frame while they keep changing).
 *
 * Usable only for a joint order that is parents-first (a joint after the joint that owns its
 * parent): in another order the job's snapshot could recompute a parent after its child. The
 * caller then computes every node, as before.
 */
export class SpringStartCache {
  /** Whether the joint order allows leaving the spring nodes to the job. */
  readonly usable: boolean;
  /** Runs of slots no spring joint moves, [first, end) pairs: all the caller computes while `unchanged`. */
  readonly outsideRuns: Int32Array;
  /** The other runs: the spring nodes, which the caller computes too when not `unchanged`. */
  readonly insideRuns: Int32Array;
  /** The copies hold the inputs of the matrices in the node matrices (false after a run that did not take them). */
  valid = false;
  /** Per joint in update order: its parent slot where no spring node is (else -1), and that matrix's 12 values when copied. */
  private readonly outsideParent: Int32Array;
  private readonly parentCopy: Float64Array;
  /** Per slot: T and S (6), and R (4) for a carried node, when copied. */
  private readonly localCopy: Float64Array;
  private readonly isJoint: Uint8Array;
  /** Frames until the next copy, and the wait after the next miss. */
  private wait = 0;
  private backoff = 1;
  /** Every spring node's slot. */
  private readonly ownedSlots: Int32Array;

  constructor(
    h: Hierarchy,
    private readonly pose: Pose,
    order: Int32Array,
    jointSlot: Int32Array,
    updateRuns: Int32Array,
  ) {
    const owned = new Uint8Array(h.count);
    this.isJoint = new Uint8Array(h.count);
    for (const s of jointSlot) this.isJoint[s] = 1;
    for (let i = 0; i < updateRuns.length; i += 2) for (let s = updateRuns[i]; s < updateRuns[i + 1]; s++) owned[s] = 1;
    this.outsideRuns = runsOf(owned, 0);
    // Owner of each slot: the nearest joint at or above it; a joint's parent's owner must come first.
    const owner = new Int32Array(h.count).fill(-1);
    for (let s = 0; s < h.count; s++) owner[s] = this.isJoint[s] ? s : h.parentSlot[s] >= 0 ? owner[h.parentSlot[s]] : -1;
    const seen = new Uint8Array(h.count);
    let parentsFirst = true;
    this.outsideParent = new Int32Array(order.length).fill(-1);
    for (let k = 0; k < order.length; k++) {
      const s = jointSlot[order[k]], p = h.parentSlot[s];
      if (p >= 0 && owner[p] >= 0 && !seen[owner[p]]) parentsFirst = false;
      if (p >= 0 && !owned[p]) this.outsideParent[k] = p;
      seen[s] = 1;
    }
    this.usable = parentsFirst;
    this.parentCopy = new Float64Array(order.length * 12);
    this.ownedSlots = Int32Array.from(owned.keys()).filter((s) => owned[s] === 1);
    this.insideRuns = runsOf(owned, 1);
    this.localCopy = new Float64Array(this.ownedSlots.length * 10);
  }

  /**
   * Whether every input of the spring nodes other than the joints' own rotations is as copied
   * (then the node matrices hold those nodes' matrices from the job's last run: the caller may
   * leave them out). Stops at the first difference; when not, copies them all for the next frame.
   */
  unchanged(M: Float64Array): boolean {
    if (this.valid && this.same(M)) {
      this.backoff = 1;
      return true;
    }
    // A pose that keeps changing (a clip moving the head) would pay for a copy every frame: after
    // each miss the copy waits 1, 2, 4 … 64 frames.
    this.valid = false;
    if (this.wait > 0) {
      this.wait--;
      return false;
    }
    this.copy(M);
    this.valid = true;
    this.wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_COPY_WAIT);
    return false;
  }

  private same(M: Float64Array): boolean {
    const parents = this.outsideParent, c = this.parentCopy;
    for (let k = 0; k < parents.length; k++) {
      const p = parents[k];
      if (p < 0) continue;
      const o = k * 12, q = p * 16;
      if (M[q] !== c[o] || M[q + 1] !== c[o + 1] || M[q + 2] !== c[o + 2] || M[q + 4] !== c[o + 3] || M[q + 5] !== c[o + 4] ||
        M[q + 6] !== c[o + 5] || M[q + 8] !== c[o + 6] || M[q + 9] !== c[o + 7] || M[q + 10] !== c[o + 8] || M[q + 12] !== c[o + 9] ||
        M[q + 13] !== c[o + 10] || M[q + 14] !== c[o + 11]) return false;
    }
    const T = this.pose.translation, R = this.pose.rotation, S = this.pose.scale, L = this.localCopy, slots = this.ownedSlots, joint = this.isJoint;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i], t = s * 3, l = i * 10;
      if (T[t] !== L[l] || T[t + 1] !== L[l + 1] || T[t + 2] !== L[l + 2] || S[t] !== L[l + 3] || S[t + 1] !== L[l + 4] || S[t + 2] !== L[l + 5]) return false;
      if (joint[s] === 1) continue;
      const r = s * 4;
      if (R[r] !== L[l + 6] || R[r + 1] !== L[l + 7] || R[r + 2] !== L[l + 8] || R[r + 3] !== L[l + 9]) return false;
    }
    return true;
  }

  private copy(M: Float64Array): void {
    const parents = this.outsideParent, c = this.parentCopy;
    for (let k = 0; k < parents.length; k++) {
      const p = parents[k];
      if (p < 0) continue;
      const o = k * 12, q = p * 16;
      c[o] = M[q]; c[o + 1] = M[q + 1]; c[o + 2] = M[q + 2]; c[o + 3] = M[q + 4]; c[o + 4] = M[q + 5]; c[o + 5] = M[q + 6];
      c[o + 6] = M[q + 8]; c[o + 7] = M[q + 9]; c[o + 8] = M[q + 10]; c[o + 9] = M[q + 12]; c[o + 10] = M[q + 13]; c[o + 11] = M[q + 14];
    }
    const T = this.pose.translation, R = this.pose.rotation, S = this.pose.scale, L = this.localCopy, slots = this.ownedSlots;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i], t = s * 3, r = s * 4, l = i * 10;
      L[l] = T[t]; L[l + 1] = T[t + 1]; L[l + 2] = T[t + 2]; L[l + 3] = S[t]; L[l + 4] = S[t + 1]; L[l + 5] = S[t + 2];
      L[l + 6] = R[r]; L[l + 7] = R[r + 1]; L[l + 8] = R[r + 2]; L[l + 9] = R[r + 3];
    }
  }
}

/** Most frames between copies while the spring nodes' inputs keep changing. */
const MAX_COPY_WAIT = 64;

/** Runs of consecutive slots whose flag is `value`, [first, end) pairs. */
function runsOf(flags: Uint8Array, value: number): Int32Array {
  const runs: number[] = [];
  for (let s = 0; s < flags.length; s++) {
    if (flags[s] !== value) continue;
    if (runs.length > 0 && runs[runs.length - 1] === s) runs[runs.length - 1]++;
    else runs.push(s, s + 1);
  }
  return Int32Array.from(runs);
}
