import type { Hierarchy } from '../../gltf/model.ts';
import type { Pose } from '../pose.ts';

/**
 * How far a rotation's squared norm may be from 1 for its matrix to count as rigid. A unit
 * quaternion made in doubles (a sampled clip, the springs' own turn) is within ~4e-16; the
 * float32 rotations of a file that were never renormalised are ~1e-7 off and take the
 * general path. Within this, treating a frame as rigid moves a result by at most its depth ×
 * this, relative: rounding, far below the agreement with three-vrm the tests hold (1e-9).
 */
export const RIGID_TOLERANCE = 1e-13;

/**
 * Which spring joints stand in rigid frames this run (a rotation and a translation, no scale),
 * so the spring job may take its shortcuts for them: the parent's 3×3 inverse is its transpose,
 * a rest axis it turns keeps its unit length, and a tail a bone's length from the joint is that
 * length from it in the joint's rest frame. A joint is rigid when every node from its parent up
 * to the root has scale exactly 1, a (near-)unit rotation and no `matrix`; its own rest
 * transform is rigid (rest scale 1, unit rest rotation: fixed at construction); and it stands
 * at its rest translation (the rest frame's origin is the joint). The model's world placement
 * is the caller's to check.
 *
 * Sized at construction; `check` allocates nothing.
 */
export class RigidFrames {
  /** The slots on the paths from the joints to their roots (the joints included), ascending. */
  readonly slots: Int32Array;
  /** Per joint, after `check`: 1 when it is rigid this run. */
  readonly jointRigid: Uint8Array;
  /** Per joint: 1 when its rest scale is exactly 1 and its rest rotation of unit norm. */
  private readonly restRigid: Uint8Array;
  /** Per slot, during `check`: 1 when its model matrix is rigid. */
  private readonly slotRigid: Uint8Array;
  /** Per slot: 1 for a joint whose rest rotation is unit, so is any rotation the springs give it. */
  private readonly unitWhenApplied: Uint8Array;

  constructor(private readonly hierarchy: Hierarchy, private readonly jointSlots: Int32Array) {
    const h = hierarchy, onPath = new Uint8Array(h.count);
    for (const joint of jointSlots) {
      for (let s = joint; s >= 0 && onPath[s] === 0; s = h.parentSlot[s]) onPath[s] = 1;
    }
    const slots: number[] = [];
    for (let s = 0; s < h.count; s++) if (onPath[s] === 1) slots.push(s);
    this.slots = Int32Array.from(slots);
    this.jointRigid = new Uint8Array(jointSlots.length);
    this.slotRigid = new Uint8Array(h.count);
    this.restRigid = Uint8Array.from(jointSlots, (s) => (
      h.restScale[s * 3] === 1 && h.restScale[s * 3 + 1] === 1 && h.restScale[s * 3 + 2] === 1 &&
      isUnit(h.restRotation[s * 4], h.restRotation[s * 4 + 1], h.restRotation[s * 4 + 2], h.restRotation[s * 4 + 3]) ? 1 : 0));
    this.unitWhenApplied = new Uint8Array(h.count);
    jointSlots.forEach((s) => { if (isUnit(h.restRotation[s * 4], h.restRotation[s * 4 + 1], h.restRotation[s * 4 + 2], h.restRotation[s * 4 + 3])) this.unitWhenApplied[s] = 1; });
  }

  /**
   * Sets `jointRigid` for the pose as it stands (see the class). `applied`: the joints stand in
   * the rotations the springs gave them (rest · a unit turn), whose norm is known, not tested.
   */
  check(pose: Pose, applied: boolean): void {
    const R = pose.rotation, S = pose.scale, T = pose.translation, h = this.hierarchy;
    const useMatrix = h.useMatrix, parents = h.parentSlot, slots = this.slots, slotRigid = this.slotRigid, known = this.unitWhenApplied;
    // Parents first (slots ascend), so each node's answer includes every node above it.
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i], t = s * 3, r = s * 4, p = parents[s];
      slotRigid[s] = (p < 0 || slotRigid[p] === 1) && useMatrix[s] === 0 && S[t] === 1 && S[t + 1] === 1 && S[t + 2] === 1 &&
        ((applied && known[s] === 1) || isUnit(R[r], R[r + 1], R[r + 2], R[r + 3])) ? 1 : 0;
    }
    const joints = this.jointSlots, rest = h.restTranslation, restRigid = this.restRigid, jointRigid = this.jointRigid;
    for (let j = 0; j < joints.length; j++) {
      const s = joints[j], t = s * 3, p = parents[s];
      jointRigid[j] = restRigid[j] === 1 && (p < 0 || slotRigid[p] === 1) &&
        T[t] === rest[t] && T[t + 1] === rest[t + 1] && T[t + 2] === rest[t + 2] ? 1 : 0;
    }
  }
}

/** Whether the quaternion's squared norm is within RIGID_TOLERANCE of 1 (NaN is not). */
function isUnit(x: number, y: number, z: number, w: number): boolean {
  return Math.abs(x * x + y * y + z * z + w * w - 1) <= RIGID_TOLERANCE;
}
