import type { Hierarchy } from '../../gltf/model.ts';
import type { Pose } from '../pose.ts';

/**
 * What lets the caller's localToModel leave out the nodes the spring bones rewrite (each joint
 * and the nodes it carries: `updateLists`' slots), so they are not computed twice a frame. The
 * springs read those nodes as the frame began (three-vrm's start-of-frame bone lengths), and
 * after a run they hold the job's last matrices. Those are the start-of-frame matrices exactly
 * (the same inputs through the same arithmetic) while every input of them is as it was: the
 * joint's rotation is the one it was given (the job checks it), its parent is a node above the
 * springs whose matrix is unchanged, or a spring node kept too, and the local T/S (and R of a
 * carried node) are unchanged. `matches` checks the last two against copies taken when the job
 * last computed the nodes; anything else is recomputed by the job, as the caller would have.
 *
 * Usable only for a joint order that is parents-first (a joint after the joint that owns its
 * parent): in another order a joint would be checked before its parent is recomputed. The
 * caller then computes every node, as before.
 */
export class SpringStartCache {
  /** Whether the joint order allows leaving the spring nodes to the job. */
  readonly usable: boolean;
  /** Runs of slots no spring joint moves, [first, end) pairs: all the caller computes. */
  readonly outsideRuns: Int32Array;
  /** The copies hold the inputs of the matrices in the node matrices (false after a run that did not take them). */
  valid = false;
  /** Per joint in update order: its parent slot where no spring node is (else -1), and that matrix's 12 values when copied. */
  private readonly outsideParent: Int32Array;
  private readonly parentCopy: Float64Array;
  /** Per slot: T and S (6), and R (4) for a carried node, when copied. */
  private readonly localCopy: Float64Array;
  private readonly isJoint: Uint8Array;

  constructor(
    h: Hierarchy,
    private readonly pose: Pose,
    order: Int32Array,
    jointSlot: Int32Array,
    private readonly updateStart: Int32Array,
    private readonly updateRuns: Int32Array,
  ) {
    const owned = new Uint8Array(h.count);
    this.isJoint = new Uint8Array(h.count);
    for (const s of jointSlot) this.isJoint[s] = 1;
    for (let i = 0; i < updateRuns.length; i += 2) for (let s = updateRuns[i]; s < updateRuns[i + 1]; s++) owned[s] = 1;
    const runs: number[] = [];
    for (let s = 0; s < h.count; s++) {
      if (owned[s]) continue;
      if (runs.length > 0 && runs[runs.length - 1] === s) runs[runs.length - 1]++;
      else runs.push(s, s + 1);
    }
    this.outsideRuns = Int32Array.from(runs);
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
    this.localCopy = new Float64Array(h.count * 10);
  }

  /** Whether the inputs of joint k's nodes other than its own rotation are what was copied. */
  matches(k: number, M: Float64Array): boolean {
    if (!this.valid) return false;
    const p = this.outsideParent[k];
    if (p >= 0) {
      const c = this.parentCopy, o = k * 12, q = p * 16;
      for (let i = 0; i < 3; i++) {
        if (M[q + i] !== c[o + i] || M[q + 4 + i] !== c[o + 3 + i] || M[q + 8 + i] !== c[o + 6 + i] || M[q + 12 + i] !== c[o + 9 + i]) return false;
      }
    }
    const T = this.pose.translation, R = this.pose.rotation, S = this.pose.scale, L = this.localCopy, runs = this.updateRuns;
    for (let i = this.updateStart[k]; i < this.updateStart[k + 1]; i++) {
      for (let s = runs[2 * i]; s < runs[2 * i + 1]; s++) {
        const t = s * 3, l = s * 10;
        if (T[t] !== L[l] || T[t + 1] !== L[l + 1] || T[t + 2] !== L[l + 2] || S[t] !== L[l + 3] || S[t + 1] !== L[l + 4] || S[t + 2] !== L[l + 5]) return false;
        if (this.isJoint[s] === 1) continue;
        const r = s * 4;
        if (R[r] !== L[l + 6] || R[r + 1] !== L[l + 7] || R[r + 2] !== L[l + 8] || R[r + 3] !== L[l + 9]) return false;
      }
    }
    return true;
  }

  /** Copies joint k's inputs (after the job recomputed its nodes from them). */
  record(k: number, M: Float64Array): void {
    const p = this.outsideParent[k];
    if (p >= 0) {
      const c = this.parentCopy, o = k * 12, q = p * 16;
      for (let i = 0; i < 3; i++) {
        c[o + i] = M[q + i]; c[o + 3 + i] = M[q + 4 + i]; c[o + 6 + i] = M[q + 8 + i]; c[o + 9 + i] = M[q + 12 + i];
      }
    }
    const T = this.pose.translation, R = this.pose.rotation, S = this.pose.scale, L = this.localCopy, runs = this.updateRuns;
    for (let i = this.updateStart[k]; i < this.updateStart[k + 1]; i++) {
      for (let s = runs[2 * i]; s < runs[2 * i + 1]; s++) {
        const t = s * 3, l = s * 10, r = s * 4;
        L[l] = T[t]; L[l + 1] = T[t + 1]; L[l + 2] = T[t + 2]; L[l + 3] = S[t]; L[l + 4] = S[t + 1]; L[l + 5] = S[t + 2];
        L[l + 6] = R[r]; L[l + 7] = R[r + 1]; L[l + 8] = R[r + 2]; L[l + 9] = R[r + 3];
      }
    }
  }
}
