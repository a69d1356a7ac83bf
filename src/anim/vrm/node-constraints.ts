import type { Hierarchy } from '../../gltf/model.ts';
import type { VrmNodeConstraint } from '../../gltf/vrm-model.ts';
import { mulConjQuat, mulQuat, quatFromTo, rotateVec, rotationOfMatrix, slerpQuat } from '../../math/quat.ts';
import { localToModel } from '../local-to-model.ts';
import type { Pose } from '../pose.ts';
import { subtreeEnd } from './subtree.ts';

const ROLL = 0, AIM = 1, ROTATION = 2;

/**
 * VRMC_node_constraint as a pose step: each constraint, in the order the loader sorted them
 * (sources first), rewrites its node's local rotation, blended from the node's rest rotation
 * by `weight`, and the node matrices below it are recomputed so later constraints and the
 * spring bones see it. The formulas are three-vrm 3.x's:
 *
 * - rotation: rest · (source rest⁻¹ · source);
 * - roll: the source's rotation since rest, seen in the destination's rest frame, reduced to
 *   its twist about the roll axis (the swing that moves the axis is taken out);
 * - aim: the rest rotation turned so the aim axis points from the node to the source,
 *   measured in the parent's current world orientation.
 *
 * Runs after the look-at and expressions and before the spring bones (three-vrm's order).
 * `run` allocates nothing.
 */
export class NodeConstraintJob {
  private readonly kind: Uint8Array;
  private readonly slot: Int32Array;
  private readonly end: Int32Array;
  private readonly parentSlot: Int32Array;
  private readonly sourceSlot: Int32Array;
  private readonly axis: Float64Array;
  private readonly weight: Float64Array;
  /** Per constraint, 4 each: destination rest, source rest. */
  private readonly restDst: Float64Array;
  private readonly restSrc: Float64Array;

  constructor(
    readonly hierarchy: Hierarchy,
    readonly constraints: readonly VrmNodeConstraint[],
    readonly pose: Pose,
    readonly nodeMatrices: Float64Array,
  ) {
    const h = hierarchy, n = constraints.length;
    this.kind = Uint8Array.from(constraints, (c) => (c.type === 'roll' ? ROLL : c.type === 'aim' ? AIM : ROTATION));
    this.slot = Int32Array.from(constraints, (c) => h.slotOf[c.node]);
    this.end = Int32Array.from(this.slot, (s) => subtreeEnd(h, s));
    this.parentSlot = Int32Array.from(this.slot, (s) => h.parentSlot[s]);
    this.sourceSlot = Int32Array.from(constraints, (c) => h.slotOf[c.source]);
    this.axis = Float64Array.from(constraints.flatMap((c) => c.axis));
    this.weight = Float64Array.from(constraints, (c) => c.weight);
    this.restDst = new Float64Array(n * 4);
    this.restSrc = new Float64Array(n * 4);
    for (let i = 0; i < n; i++) {
      this.restDst.set(h.restRotation.subarray(this.slot[i] * 4, this.slot[i] * 4 + 4), i * 4);
      this.restSrc.set(h.restRotation.subarray(this.sourceSlot[i] * 4, this.sourceSlot[i] * 4 + 4), i * 4);
    }
  }

  /**
   * Checks that no constraint rotates a node posed by a matrix; throws a RangeError naming the constraint's
   * JSON path.
   */
  validate(): void {
    for (let i = 0; i < this.slot.length; i++) {
      if (this.hierarchy.useMatrix[this.slot[i]]) throw new RangeError(`NodeConstraintJob: ${this.constraints[i].path} rotates a node posed by a matrix`);
    }
  }

  /** Applies every constraint, in order, to the local rotations in `pose`. */
  run(): void {
    const R = this.pose.rotation;
    for (let i = 0; i < this.slot.length; i++) {
      const kind = this.kind[i], dst = i * 4;
      if (kind === ROTATION) {
        // target = dstRest · srcRest⁻¹ · src
        mulConjQuat(this.restSrc, dst, R, this.sourceSlot[i] * 4, q, 0);
        mulQuat(this.restDst, dst, q, 0, q, 4);
      } else if (kind === ROLL) {
        // delta = dstRest⁻¹ · src · srcRest⁻¹ · dstRest; target = dstRest · fromTo(delta·axis, axis) · delta
        mulConjQuat(this.restSrc, dst, this.restDst, dst, q, 0);
        mulQuat(R, this.sourceSlot[i] * 4, q, 0, q, 0);
        mulConjQuat(this.restDst, dst, q, 0, q, 8);
        rotateVec(q, 8, this.axis, i * 3, v, 0);
        quatFromTo(v, 0, this.axis, i * 3, q, 0);
        mulQuat(q, 0, q, 8, q, 0);
        mulQuat(this.restDst, dst, q, 0, q, 4);
      } else {
        this.aimTarget(i);
      }
      weightArg[0] = this.weight[i];
      slerpQuat(this.restDst, dst, q, 4, weightArg, 0, R, this.slot[i] * 4);
      localToModel(this.hierarchy, this.pose, this.nodeMatrices, this.slot[i], this.end[i]);
    }
  }

  /** Aim: target (in q[4]) = P⁻¹ · fromTo(a0, a1) · P · dstRest, P the parent's world rotation. */
  private aimTarget(i: number): void {
    const M = this.nodeMatrices, p = this.parentSlot[i], dst = i * 4;
    if (p >= 0) rotationOfMatrix(M, p * 16, q, 8);
    else { q[8] = 0; q[9] = 0; q[10] = 0; q[11] = 1; }
    rotateVec(this.restDst, dst, this.axis, i * 3, v, 0);
    rotateVec(q, 8, v, 0, v, 0);
    const s = this.sourceSlot[i] * 16, d = this.slot[i] * 16;
    // The node's own position does not depend on its rotation: its matrix is current.
    w[0] = M[s + 12] - M[d + 12]; w[1] = M[s + 13] - M[d + 13]; w[2] = M[s + 14] - M[d + 14];
    quatFromTo(v, 0, w, 0, q, 0);
    mulQuat(q, 0, q, 8, q, 0);
    mulConjQuat(q, 8, q, 0, q, 0);
    mulQuat(q, 0, this.restDst, dst, q, 4);
  }
}

const q = new Float64Array(12);
const v = new Float64Array(3);
const w = new Float64Array(3);
const weightArg = new Float64Array(1);
