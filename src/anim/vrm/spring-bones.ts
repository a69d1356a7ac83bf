import type { Hierarchy } from '../../gltf/model.ts';
import { ColliderShape, type VrmSpringBones } from '../../gltf/vrm-model.ts';
import { mulQuat } from '../../math/quat.ts';
import { composeTRS, isIdentityMat4 } from '../../math/trs.ts';
import { localToModel } from '../local-to-model.ts';
import { ColliderCull } from './collider-cull.ts';
import type { Pose } from '../pose.ts';

/**
 * VRM spring bones (VRMC_springBone, VRM 0.x secondary animation) as a job: after the pose's
 * node matrices are computed and before the palettes, `run` moves each joint's tail point by
 * Verlet integration (inertia × (1 − drag), stiffness back toward the rest direction, gravity),
 * keeps it at the bone's length, pushes it out of (or into) the colliders, and rotates the
 * joint toward it; then recomputes the node matrices below the joint. The arithmetic is
 * three-vrm 3.x's (VRMSpringBoneJoint), in the same order, in doubles, in the same joint order
 * (gltf/extensions/vrm-spring-builder.ts), so the two agree to rounding.
 *
 * Space: the simulation runs in world space, `worldFromModel · nodeMatrices` (identity by
 * default: model space), so moving the model through `worldFromModel` swings the hair; a
 * spring with a `center` node keeps its inertia in that node's space instead. `reset` puts
 * every tail back at rest in the current pose (after a teleport).
 *
 * Per-instance state is the tails (current and previous, 6 doubles per joint); `run` allocates
 * nothing (doubles move between its steps through fields and module scratch arrays, never as
 * arguments: V8 boxes a double passed to a call it does not inline). `dt <= 0` applies the
 * current tails without stepping, as a paused frame must still draw the hair where it is.
 */
export class SpringBoneJob {
  /** Seconds to step by (fields, not arguments: V8 boxes doubles passed to calls it does not inline). */
  dt = 0;
  /** World matrix of the model (16, column-major): what `nodeMatrices` are relative to. */
  readonly worldFromModel = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

  /** Current and previous tail positions, 3 per joint, in the spring's center space (world without one). */
  readonly currentTail: Float64Array;
  readonly prevTail: Float64Array;
  /** The rotation each joint was last given (4 per joint): where the frame begins, as in three-vrm. */
  readonly appliedRotation: Float64Array;
  /** World position of each joint's tail node as the frame began (3 per joint; see `snapshotTails`). */
  private readonly startTail: Float64Array;
  private readonly tailSlot: Int32Array;

  private readonly slot: Int32Array;
  private readonly parentSlot: Int32Array;
  private readonly centerSlot: Int32Array;
  private readonly boneAxis: Float64Array;
  /** The bone axis in the parent's space at rest (initial local matrix applied, normalised). */
  private readonly restAxis: Float64Array;
  private readonly restRotation: Float64Array;
  /** Rest local matrices (16 per joint) and their inverses. */
  private readonly restLocal: Float64Array;
  private readonly restLocalInverse: Float64Array;
  /**
   * After the joint at order position k, the slots to recompute (its own first, then the nodes it
   * carries) as runs of consecutive slots: `updateRuns[2i] … updateRuns[2i + 1]` (end exclusive)
   * for i from `updateStart[k]` to `updateStart[k + 1]`.
   */
  private readonly updateStart: Int32Array;
  private readonly updateRuns: Int32Array;
  private readonly colliderSlot: Int32Array;
  /** 1 for a collider whose node a joint moves (at or below a joint): recomputed when its node is; the others once per run. */
  private readonly colliderMoves: Uint8Array;
  /**
   * Per collider, in world space, 4 each: the centre and radius of a sphere the collider cannot
   * push beyond (a sphere's own; a capsule's around its middle, radius plus half its length;
   * infinite for planes and inside shapes), side by side for the reach test every joint–collider
   * pair takes. `colliderStamp` says when it was computed.
   */
  private readonly colliderSphere: Float64Array;
  /** Per collider (3 each), world space: its centre (a capsule's start), and its capsule axis or plane normal. */
  private readonly colliderOrigin: Float64Array;
  private readonly colliderAxis: Float64Array;
  private readonly colliderStamp: Float64Array;
  /** Per collider: sphere, capsule, plane, inside sphere or inside capsule (the `KIND_*` constants). */
  private readonly colliderKind: Uint8Array;
  /** 1 for a joint with a collider a joint moves in its list (placed before its collisions). */
  private readonly movingColliders: Uint8Array;
  /**
   * 1 for a joint whose whole matrix is read before its step (a 0.x chain end, whose tail is an
   * offset along its axes; a collider or a `center` on its node): recomputed as three-vrm does.
   * The others need only their position, which their rotation does not change.
   */
  private readonly wholeMatrix: Uint8Array;
  /** Which colliders each joint may touch, kept over frames (exact: see ColliderCull). */
  private readonly cull: ColliderCull;
  /** The inverse of `worldFromModel` for the current run. */
  private readonly modelFromWorld = new Float64Array(16);
  /** `version` when each slot's matrix was last rewritten by this job (compared with `colliderStamp`). */
  private readonly slotStamp: Float64Array;
  /** Counts matrix rewrites and collider computations; `runStart` is its value when the current run began. */
  private version = 0;
  private runStart = 0;
  private needsReset = true;

  constructor(
    readonly hierarchy: Hierarchy,
    readonly springs: VrmSpringBones,
    readonly pose: Pose,
    /** Model-space node matrices, 16 per slot: read, and rewritten below every joint. */
    readonly nodeMatrices: Float64Array,
  ) {
    const n = springs.jointCount, h = hierarchy;
    this.currentTail = new Float64Array(n * 3);
    this.prevTail = new Float64Array(n * 3);
    this.appliedRotation = new Float64Array(n * 4);
    this.startTail = new Float64Array(n * 3);
    this.tailSlot = Int32Array.from(springs.tailNode, (node) => (node < 0 ? -1 : h.slotOf[node]));
    this.slot = Int32Array.from(springs.jointNode, (node) => h.slotOf[node]);
    this.parentSlot = Int32Array.from(this.slot, (s) => h.parentSlot[s]);
    this.centerSlot = Int32Array.from(springs.center, (node) => (node < 0 ? -1 : h.slotOf[node]));
    this.boneAxis = new Float64Array(n * 3);
    this.restAxis = new Float64Array(n * 3);
    this.restRotation = new Float64Array(n * 4);
    this.restLocal = new Float64Array(n * 16);
    this.restLocalInverse = new Float64Array(n * 16);
    for (let j = 0; j < n; j++) {
      const s = this.slot[j];
      const t = springs.tailOffset;
      const len = Math.hypot(t[j * 3], t[j * 3 + 1], t[j * 3 + 2]);
      // three.js normalises a zero vector to zero.
      const k = len > 0 ? 1 / len : 0;
      this.boneAxis[j * 3] = t[j * 3] * k; this.boneAxis[j * 3 + 1] = t[j * 3 + 1] * k; this.boneAxis[j * 3 + 2] = t[j * 3 + 2] * k;
      this.restRotation.set(h.restRotation.subarray(s * 4, s * 4 + 4), j * 4);
      composeTRS(h.restTranslation, h.restRotation, h.restScale, this.restLocal, s * 3, s * 4, s * 3, j * 16);
      invertAffine(this.restLocal, j * 16, this.restLocalInverse, j * 16);
      transformDirection(this.restLocal, j * 16, this.boneAxis, j * 3, this.restAxis, j * 3);
    }
    const { updateStart, updateRuns } = updateLists(h, springs, this.slot);
    this.updateStart = updateStart;
    this.updateRuns = updateRuns;
    this.colliderSlot = Int32Array.from(springs.colliderNode, (node) => h.slotOf[node]);
    const moved = new Uint8Array(h.count);
    for (const s of this.slot) moved[s] = 1;
    for (let s = 0; s < h.count; s++) if (h.parentSlot[s] >= 0 && moved[h.parentSlot[s]]) moved[s] = 1;
    this.colliderMoves = Uint8Array.from(this.colliderSlot, (s) => moved[s]);
    this.colliderSphere = new Float64Array(springs.colliderCount * 4);
    this.colliderOrigin = new Float64Array(springs.colliderCount * 3);
    this.colliderAxis = new Float64Array(springs.colliderCount * 3);
    this.colliderStamp = new Float64Array(springs.colliderCount);
    this.colliderKind = Uint8Array.from(springs.colliderShape, (shape, c) => colliderKind(shape, springs.colliderInside[c] === 1));
    this.movingColliders = new Uint8Array(n);
    for (let j = 0; j < n; j++) {
      for (let i = springs.jointColliderStart[j]; i < springs.jointColliderStart[j + 1]; i++) if (this.colliderMoves[springs.jointColliders[i]] === 1) this.movingColliders[j] = 1;
    }
    this.slotStamp = new Float64Array(h.count);
    this.cull = new ColliderCull(springs.colliderCount, springs.jointColliderStart, springs.jointColliders,
      Uint8Array.from(this.colliderKind, (kind, c) => (this.colliderMoves[c] === 1 || kind === KIND_PLANE || kind >= KIND_INSIDE_SPHERE ? 1 : 0)));
    const readWhole = new Uint8Array(h.count);
    for (const s of this.colliderSlot) readWhole[s] = 1;
    for (const s of this.centerSlot) if (s >= 0) readWhole[s] = 1;
    this.wholeMatrix = Uint8Array.from(this.slot, (s, j) => (this.tailSlot[j] < 0 || readWhole[s] ? 1 : 0));
  }

  /** Puts every tail back at rest, in the pose and world the next `run` finds (after a teleport). */
  reset(): void {
    this.needsReset = true;
  }

  /**
   * Checks that the node matrices and the pose are of this hierarchy, every spring joint a T/R/S node and
   * `worldFromModel` finite; throws a RangeError naming the rule broken.
   */
  validate(): void {
    const { hierarchy: h, springs } = this;
    if (this.nodeMatrices.length < h.count * 16) throw new RangeError(`SpringBoneJob: nodeMatrices holds ${this.nodeMatrices.length / 16} matrices, the hierarchy has ${h.count}`);
    if (this.pose.rotation.length !== h.count * 4) throw new RangeError('SpringBoneJob: the pose is not of this hierarchy');
    for (let j = 0; j < springs.jointCount; j++) {
      if (this.slot[j] < 0 || h.useMatrix[this.slot[j]]) throw new RangeError(`SpringBoneJob: joint ${j}'s node ${springs.jointNode[j]} is posed by a matrix, not T/R/S`);
    }
    if (!this.worldFromModel.every(Number.isFinite)) throw new RangeError('SpringBoneJob: worldFromModel is not finite');
  }

  /** Steps every joint by `dt` seconds (or only applies the tails when `dt <= 0`) and updates the node matrices below them. */
  run(): void {
    const dt = this.dt;
    const identity = isIdentityMat4(this.worldFromModel);
    identityWorld[0] = identity ? 1 : 0;
    if (!identity) invertAffine(this.worldFromModel, 0, this.modelFromWorld, 0);
    this.runStart = ++this.version;
    if (this.needsReset) {
      this.needsReset = false;
      this.resetPass();
    }
    if (dt > 0) this.snapshotTails();
    // Colliders no joint moves: placed once for the whole run.
    for (let c = 0; c < this.colliderMoves.length; c++) if (this.colliderMoves[c] === 0) this.colliderWorld(c);
    if (dt > 0) this.cull.beginRun(this.colliderSphere, this.worldFromModel);
    const order = this.springs.order, whole = this.wholeMatrix;
    for (let k = 0; k < order.length; k++) {
      const j = order[k];
      if (whole[j] === 1) {
        // The joint's own matrix from its (already updated) parent, as three-vrm updates it first.
        this.updateSlot(this.slot[j]);
        this.worldOf(this.slot[j], jointWorld);
      } else {
        this.jointPosition(j);
      }
      if (dt > 0) this.stepJoint(j);
      this.applyJoint(j);
      this.updateAfter(k);
    }
  }

  /**
   * three-vrm's `reset`: joint by joint in update order, the joint back in its rest rotation and
   * its tail at rest under its parent's current matrix.
   */
  private resetPass(): void {
    this.cull.forget();
    const order = this.springs.order, t = this.springs.tailOffset, R = this.pose.rotation;
    for (let k = 0; k < order.length; k++) {
      const j = order[k];
      const r = this.slot[j] * 4;
      R[r] = this.restRotation[j * 4]; R[r + 1] = this.restRotation[j * 4 + 1];
      R[r + 2] = this.restRotation[j * 4 + 2]; R[r + 3] = this.restRotation[j * 4 + 3];
      for (let i = 0; i < 4; i++) this.appliedRotation[j * 4 + i] = this.restRotation[j * 4 + i];
      this.updateAfter(k);
      this.worldOf(this.slot[j], jointWorld);
      transformPoint(jointWorld, 0, t, j * 3, tail, 0);
      this.toCenter(j, tail, 0, this.currentTail, j * 3);
      const c = this.currentTail, p = this.prevTail, o = j * 3;
      p[o] = c[o]; p[o + 1] = c[o + 1]; p[o + 2] = c[o + 2];
    }
  }

  /**
   * three-vrm measures a joint's length to its tail node's world position as it stood when the
   * frame began: the joints still in the rotations the last frame gave them, the rest of the
   * tree where this frame's pose puts it (its tail is only moved after the joint, and a chain's
   * next joint only at its own turn). So does this job, so both integrate the same lengths.
   */
  private snapshotTails(): void {
    const order = this.springs.order, R = this.pose.rotation, A = this.appliedRotation;
    const stamps = this.slotStamp, start = ++this.version;
    for (let k = 0; k < order.length; k++) {
      const j = order[k];
      const r = this.slot[j] * 4, a = j * 4, p = this.parentSlot[j];
      // A joint the pose left in the rotation it was given, under a parent not rewritten here,
      // already stands as the frame began in the node matrices (the usual frame: no clip moves
      // the hair, or a fixed step after the last).
      if (R[r] === A[a] && R[r + 1] === A[a + 1] && R[r + 2] === A[a + 2] && R[r + 3] === A[a + 3] && (p < 0 || stamps[p] <= start)) continue;
      R[r] = A[a]; R[r + 1] = A[a + 1]; R[r + 2] = A[a + 2]; R[r + 3] = A[a + 3];
      this.updateAfter(k);
    }
    for (let j = 0; j < this.tailSlot.length; j++) {
      const ts = this.tailSlot[j];
      if (ts < 0) continue;
      this.positionOf(ts, colliderMatrix);
      this.startTail[j * 3] = colliderMatrix[12]; this.startTail[j * 3 + 1] = colliderMatrix[13]; this.startTail[j * 3 + 2] = colliderMatrix[14];
    }
  }

  /** Recomputes one slot's model matrix from its parent's and the pose, and stamps it. */
  private updateSlot(slot: number): void {
    localToModel(this.hierarchy, this.pose, this.nodeMatrices, slot, slot + 1);
    this.slotStamp[slot] = ++this.version;
  }

  /** Recomputes and stamps the slots the joint at order position k moves (it first). */
  private updateAfter(k: number): void {
    const runs = this.updateRuns;
    for (let i = this.updateStart[k]; i < this.updateStart[k + 1]; i++) {
      const first = runs[2 * i], end = runs[2 * i + 1];
      localToModel(this.hierarchy, this.pose, this.nodeMatrices, first, end);
      const v = ++this.version;
      for (let s = first; s < end; s++) this.slotStamp[s] = v;
    }
  }

  /** `dst` = world matrix of `slot` (W · nodeMatrices), W alone for -1. */
  private worldOf(slot: number, dst: Float64Array): void {
    const W = this.worldFromModel;
    if (slot < 0) {
      for (let i = 0; i < 16; i++) dst[i] = W[i];
    } else if (identityWorld[0] === 1) {
      const M = this.nodeMatrices, o = slot * 16;
      for (let i = 0; i < 16; i++) dst[i] = M[o + i];
    } else {
      multiplyAffine(W, 0, this.nodeMatrices, slot * 16, dst);
    }
  }

  /** `dst[12..14]` = world position of `slot` (the translation of W · nodeMatrices), all `worldOf` computes of it. */
  private positionOf(slot: number, dst: Float64Array): void {
    const W = this.worldFromModel, M = this.nodeMatrices, o = slot * 16;
    const x = M[o + 12], y = M[o + 13], z = M[o + 14];
    dst[12] = W[0] * x + W[4] * y + W[8] * z + W[12];
    dst[13] = W[1] * x + W[5] * y + W[9] * z + W[13];
    dst[14] = W[2] * x + W[6] * y + W[10] * z + W[14];
  }

  /**
   * `jointWorld[12..14]` = the joint's world position from its parent's current matrix and its
   * translation (its rotation does not move it): all a joint with no `wholeMatrix` reads of itself.
   */
  private jointPosition(j: number): void {
    const p = this.parentSlot[j], t = this.slot[j] * 3, T = this.pose.translation;
    const tx = T[t], ty = T[t + 1], tz = T[t + 2];
    let x = tx, y = ty, z = tz; // (a root node: its translation is its position)
    if (p >= 0) {
      const M = this.nodeMatrices, o = p * 16;
      x = M[o] * tx + M[o + 4] * ty + M[o + 8] * tz + M[o + 12];
      y = M[o + 1] * tx + M[o + 5] * ty + M[o + 9] * tz + M[o + 13];
      z = M[o + 2] * tx + M[o + 6] * ty + M[o + 10] * tz + M[o + 14];
    }
    const W = this.worldFromModel;
    jointWorld[12] = W[0] * x + W[4] * y + W[8] * z + W[12];
    jointWorld[13] = W[1] * x + W[5] * y + W[9] * z + W[13];
    jointWorld[14] = W[2] * x + W[6] * y + W[10] * z + W[14];
  }

  private stepJoint(j: number): void {
    const sp = this.springs, o = j * 3, dt = this.dt;
    const Jw = jointWorld;
    // Bone length in world units: to the tail node as the frame began (snapshotTails), or for a
    // 0.x chain end to its virtual tail under the joint's current matrix.
    let lx: number, ly: number, lz: number;
    if (this.tailSlot[j] >= 0) {
      lx = this.startTail[o] - Jw[12]; ly = this.startTail[o + 1] - Jw[13]; lz = this.startTail[o + 2] - Jw[14];
    } else {
      const t = sp.tailOffset;
      lx = Jw[0] * t[o] + Jw[4] * t[o + 1] + Jw[8] * t[o + 2];
      ly = Jw[1] * t[o] + Jw[5] * t[o + 1] + Jw[9] * t[o + 2];
      lz = Jw[2] * t[o] + Jw[6] * t[o + 1] + Jw[10] * t[o + 2];
    }
    const length = Math.sqrt(lx * lx + ly * ly + lz * lz);
    // The rest bone axis in world space: through the parent's model matrix, then W (never multiplied together).
    this.restAxisWorld(j);
    // Inertia in center space, then to world; stiffness and gravity in world space.
    const cur = this.currentTail, prev = this.prevTail, drag = 1 - sp.dragForce[j];
    tail[0] = cur[o] + (cur[o] - prev[o]) * drag;
    tail[1] = cur[o + 1] + (cur[o + 1] - prev[o + 1]) * drag;
    tail[2] = cur[o + 2] + (cur[o + 2] - prev[o + 2]) * drag;
    this.fromCenter(j, tail);
    const k = sp.stiffness[j] * dt, g = sp.gravityPower[j] * dt, gd = sp.gravityDir;
    tail[0] += axis[0] * k + gd[o] * g;
    tail[1] += axis[1] * k + gd[o + 1] * g;
    tail[2] += axis[2] * k + gd[o + 2] * g;
    // The joint's position and the bone length, for the length constraint (doubles pass through
    // typed arrays, not arguments: see the class comment).
    head[0] = Jw[12]; head[1] = Jw[13]; head[2] = Jw[14]; head[3] = length;
    constrainLength();
    this.collide(j);
    prev[o] = cur[o]; prev[o + 1] = cur[o + 1]; prev[o + 2] = cur[o + 2];
    this.toCenter(j, tail, 0, cur, o);
  }

  /** `axis` = normalize(W₃ₓ₃ · P₃ₓ₃ · restAxis), P the parent's model matrix (identity at a root). */
  private restAxisWorld(j: number): void {
    const ra = this.restAxis, o = j * 3, p = this.parentSlot[j];
    let x = ra[o], y = ra[o + 1], z = ra[o + 2];
    if (p >= 0) {
      const M = this.nodeMatrices, m = p * 16;
      const mx = M[m] * x + M[m + 4] * y + M[m + 8] * z;
      const my = M[m + 1] * x + M[m + 5] * y + M[m + 9] * z;
      const mz = M[m + 2] * x + M[m + 6] * y + M[m + 10] * z;
      x = mx; y = my; z = mz;
    }
    const W = this.worldFromModel;
    const wx = W[0] * x + W[4] * y + W[8] * z;
    const wy = W[1] * x + W[5] * y + W[9] * z;
    const wz = W[2] * x + W[6] * y + W[10] * z;
    const len = Math.sqrt(wx * wx + wy * wy + wz * wz);
    const k = len > 0 ? 1 / len : 0;
    axis[0] = wx * k; axis[1] = wy * k; axis[2] = wz * k;
  }

  /** Rotates the joint so its tail points at the current tail (three-vrm's last step), from its rest rotation. */
  private applyJoint(j: number): void {
    const o = j * 3;
    tail[0] = this.currentTail[o]; tail[1] = this.currentTail[o + 1]; tail[2] = this.currentTail[o + 2];
    this.fromCenter(j, tail);
    // The tail in the joint's rest frame under its current parent: (W · parent · restLocal)⁻¹ · tail,
    // one factor at a time (W⁻¹ is made once per run; the parent's is solved, not built).
    if (identityWorld[0] === 0) transformPoint(this.modelFromWorld, 0, tail, 0, tail, 0);
    const p = this.parentSlot[j];
    if (p >= 0) solveAffine(this.nodeMatrices, p * 16, tail, axis);
    else { axis[0] = tail[0]; axis[1] = tail[1]; axis[2] = tail[2]; }
    transformPoint(this.restLocalInverse, j * 16, axis, 0, axis, 0);
    unitQuatFromTo(this.boneAxis, o, axis, turn);
    mulQuat(this.restRotation, j * 4, turn, 0, this.appliedRotation, j * 4);
    const R = this.pose.rotation, A = this.appliedRotation, r = this.slot[j] * 4;
    R[r] = A[j * 4]; R[r + 1] = A[j * 4 + 1]; R[r + 2] = A[j * 4 + 2]; R[r + 3] = A[j * 4 + 3];
  }

  /**
   * Pushes `tail` out of (or into) each of the joint's colliders in list order, back to the bone
   * length after each push. One tight loop over locals: the colliders a joint moves are placed
   * first (nothing here moves a node), and a miss is found from squared distances, no root.
   */
  private collide(j: number): void {
    const sp = this.springs;
    const first = sp.jointColliderStart[j], end = sp.jointColliderStart[j + 1];
    const list = sp.jointColliders;
    if (this.movingColliders[j] === 1) {
      for (let i = first; i < end; i++) if (this.colliderMoves[list[i]] === 1) this.colliderWorld(list[i]);
    }
    const S = this.colliderSphere, co = this.colliderOrigin, ca = this.colliderAxis, kinds = this.colliderKind, radii = sp.colliderRadius;
    const hit = sp.hitRadius[j];
    const px = head[0], py = head[1], pz = head[2], length = head[3], bound = hit + length;
    head[4] = bound;
    // The colliders this joint may touch, from the set kept over frames, or the whole list.
    const cull = this.cull;
    const kept = cull.candidates(j, head, this.worldFromModel);
    let bits = kept ? cull.found : 0, i = first - 1;
    let tx = tail[0], ty = tail[1], tz = tail[2];
    for (;;) {
      if (kept) {
        if (bits === 0) break;
        const low = bits & -bits;
        bits ^= low;
        i = first + 31 - Math.clz32(low);
      } else if (++i >= end) break;
      const c = list[i], q = c * 4;
      // Too far to touch: the tail stays within the bone's length of the joint, so a collider whose
      // reach (radius, capsule length, hit radius) ends further away cannot push it. Exact, not a guess.
      const ex = px - S[q], ey = py - S[q + 1], ez = pz - S[q + 2], reach = S[q + 3] + bound;
      if (ex * ex + ey * ey + ez * ez > reach * reach) continue;
      const kind = kinds[c], o = c * 3;
      let dx = tx - co[o], dy = ty - co[o + 1], dz = tz - co[o + 2];
      let distance: number;
      if (kind === KIND_PLANE) {
        const nx = ca[o], ny = ca[o + 1], nz = ca[o + 2];
        distance = dx * nx + dy * ny + dz * nz - hit;
        if (!(distance < 0)) continue;
        dx = nx; dy = ny; dz = nz;
      } else {
        if (kind === KIND_CAPSULE || kind === KIND_INSIDE_CAPSULE) {
          const bx = ca[o], by = ca[o + 1], bz = ca[o + 2];
          const dot = bx * dx + by * dy + bz * dz;
          const lengthSq = bx * bx + by * by + bz * bz;
          if (dot <= 0) {
            // Nearest to the start: as a sphere there.
          } else if (lengthSq <= dot) {
            dx -= bx; dy -= by; dz -= bz;
          } else {
            const f = dot / lengthSq;
            dx -= bx * f; dy -= by * f; dz -= bz * f;
          }
        }
        const dSq = dx * dx + dy * dy + dz * dz;
        const r = radii[c];
        const inside = kind >= KIND_INSIDE_SPHERE;
        // Clear of the surface (compared squared; the root only for a push). A tail exactly at
        // the centre has no direction to be pushed along (three.js would make NaN).
        if (dSq === 0) continue;
        if (inside) {
          const limit = r - hit;
          if (limit >= 0 && dSq <= limit * limit) continue;
        } else {
          const limit = r + hit;
          if (dSq >= limit * limit) continue;
        }
        const d = Math.sqrt(dSq);
        distance = inside ? r - hit - d : d - hit - r;
        if (!(distance < 0)) continue;
        const f = inside ? -1 / d : 1 / d;
        dx *= f; dy *= f; dz *= f;
      }
      tx -= dx * distance; ty -= dy * distance; tz -= dz * distance;
      // Back to the bone length from the joint (three.js normalises a zero vector to zero).
      const lx = tx - px, ly = ty - py, lz = tz - pz;
      const l = Math.sqrt(lx * lx + ly * ly + lz * lz);
      const k = l > 0 ? length / l : 0;
      tx = px + lx * k; ty = py + ly * k; tz = pz + lz * k;
    }
    tail[0] = tx; tail[1] = ty; tail[2] = tz;
    if (!kept) cull.built(j, head, S, this.worldFromModel);
  }

  /** World centre and axis/normal of collider `c`, recomputed only when its node moved since. */
  private colliderWorld(c: number): void {
    const slot = this.colliderSlot[c];
    const stamp = this.colliderStamp[c];
    if (stamp > this.runStart && stamp > this.slotStamp[slot]) return;
    this.colliderStamp[c] = ++this.version;
    this.worldOf(slot, colliderMatrix);
    const sp = this.springs, o = c * 3, q = c * 4, S = this.colliderSphere, origin = this.colliderOrigin;
    transformPoint(colliderMatrix, 0, sp.colliderOffset, o, origin, o);
    S[q] = origin[o]; S[q + 1] = origin[o + 1]; S[q + 2] = origin[o + 2];
    const kind = this.colliderKind[c];
    // Planes and inside shapes reach everywhere; a sphere its radius; a capsule its radius beyond its segment.
    S[q + 3] = sp.colliderRadius[c];
    // (Two stores, not a conditional expression: a phi of the constant Infinity and a double boxes it.)
    if (kind === KIND_PLANE || kind >= KIND_INSIDE_SPHERE) S[q + 3] = Infinity;
    if (kind === KIND_CAPSULE || kind === KIND_INSIDE_CAPSULE) {
      const off = sp.colliderOffset, tl = sp.colliderTail, m = colliderMatrix;
      const lx = tl[o] - off[o], ly = tl[o + 1] - off[o + 1], lz = tl[o + 2] - off[o + 2];
      const ax = m[0] * lx + m[4] * ly + m[8] * lz;
      const ay = m[1] * lx + m[5] * ly + m[9] * lz;
      const az = m[2] * lx + m[6] * ly + m[10] * lz;
      this.colliderAxis[o] = ax; this.colliderAxis[o + 1] = ay; this.colliderAxis[o + 2] = az;
      if (kind === KIND_CAPSULE) {
        S[q] += ax * 0.5; S[q + 1] += ay * 0.5; S[q + 2] += az * 0.5;
        S[q + 3] += 0.5 * Math.sqrt(ax * ax + ay * ay + az * az);
      }
    } else if (kind === KIND_PLANE) {
      normalDirection(colliderMatrix, sp.colliderTail, o, this.colliderAxis, o);
    }
  }

  /** `v` (3 at 0) from the joint's center space to world, in place. */
  private fromCenter(j: number, v: Float64Array): void {
    const cs = this.centerSlot[j];
    if (cs < 0) return;
    this.worldOf(cs, centerMatrix);
    transformPoint(centerMatrix, 0, v, 0, v, 0);
  }

  /** `v` (world) into the joint's center space, written to `dst` at `o`. */
  private toCenter(j: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
    const cs = this.centerSlot[j];
    if (cs < 0) {
      dst[o] = v[vo]; dst[o + 1] = v[vo + 1]; dst[o + 2] = v[vo + 2];
      return;
    }
    this.worldOf(cs, centerMatrix);
    invertAffine(centerMatrix, 0, centerInverse, 0);
    transformPoint(centerInverse, 0, v, vo, dst, o);
  }
}

// Scratch shared by every job (JavaScript runs one job at a time).
const identityWorld = new Uint8Array(1);
const jointWorld = new Float64Array(16);
const centerMatrix = new Float64Array(16);
const centerInverse = new Float64Array(16);
const colliderMatrix = new Float64Array(16);
const tail = new Float64Array(3);
/** The joint's world position (0..2), its bone length (3) and its bound, hit radius + length (4), while it steps. */
const head = new Float64Array(5);
const axis = new Float64Array(3);
const turn = new Float64Array(4);

const KIND_SPHERE = 0;
const KIND_CAPSULE = 1;
const KIND_PLANE = 2;
/** The inside kinds come last: `kind >= KIND_INSIDE_SPHERE` is "inside". */
const KIND_INSIDE_SPHERE = 3;
const KIND_INSIDE_CAPSULE = 4;

function colliderKind(shape: number, inside: boolean): number {
  if (shape === ColliderShape.PLANE) return KIND_PLANE;
  if (shape === ColliderShape.CAPSULE) return inside ? KIND_INSIDE_CAPSULE : KIND_CAPSULE;
  return inside ? KIND_INSIDE_SPHERE : KIND_SPHERE;
}

/** Moves `tail` to the bone length `head[3]` from the joint at `head[0..2]`, along its direction (three.js normalises a zero vector to zero). */
function constrainLength(): void {
  const px = head[0], py = head[1], pz = head[2];
  const dx = tail[0] - px, dy = tail[1] - py, dz = tail[2] - pz;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const k = d > 0 ? head[3] / d : 0;
  tail[0] = px + dx * k; tail[1] = py + dy * k; tail[2] = pz + dz * k;
}

/**
 * dst (4) = the shortest rotation taking unit vector u (3 at `uo`) to the direction of v (3 at 0,
 * any length): (u × v, |u||v| + u · v) normalised, as `quatFromTo` gives for v normalised first
 * but without dividing v by its length; a zero vector gives identity.
 */
function unitQuatFromTo(u: Float64Array, uo: number, v: Float64Array, dst: Float64Array): void {
  const ux = u[uo], uy = u[uo + 1], uz = u[uo + 2], vx = v[0], vy = v[1], vz = v[2];
  const length = Math.sqrt(vx * vx + vy * vy + vz * vz);
  if ((ux === 0 && uy === 0 && uz === 0) || !(length > 0)) {
    dst[0] = 0; dst[1] = 0; dst[2] = 0; dst[3] = 1;
    return;
  }
  let x = uy * vz - uz * vy, y = uz * vx - ux * vz, z = ux * vy - uy * vx;
  let w = length + (ux * vx + uy * vy + uz * vz);
  if (w < 1e-12 * length) {
    // Opposite: any perpendicular axis, the one least aligned with u for accuracy.
    const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
    if (ax <= ay && ax <= az) { x = 0; y = -uz; z = uy; } else if (ay <= az) { x = -uz; y = 0; z = ux; } else { x = -uy; y = ux; z = 0; }
    w = 0;
  }
  const il = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  dst[0] = x * il; dst[1] = y * il; dst[2] = z * il; dst[3] = w * il;
}

/** dst = a · b for affine matrices (bottom rows 0 0 0 1), 16 at the offsets; dst may alias neither. */
function multiplyAffine(a: Float64Array, ao: number, b: Float64Array, bo: number, dst: Float64Array): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + c * 4], b1 = b[bo + c * 4 + 1], b2 = b[bo + c * 4 + 2];
    const w = c === 3 ? 1 : 0;
    dst[c * 4] = a[ao] * b0 + a[ao + 4] * b1 + a[ao + 8] * b2 + a[ao + 12] * w;
    dst[c * 4 + 1] = a[ao + 1] * b0 + a[ao + 5] * b1 + a[ao + 9] * b2 + a[ao + 13] * w;
    dst[c * 4 + 2] = a[ao + 2] * b0 + a[ao + 6] * b1 + a[ao + 10] * b2 + a[ao + 14] * w;
    dst[c * 4 + 3] = w;
  }
}

/** dst (3 at `o`) = m · (v, 1); dst may alias v. */
function transformPoint(m: Float64Array, mo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  dst[o] = m[mo] * x + m[mo + 4] * y + m[mo + 8] * z + m[mo + 12];
  dst[o + 1] = m[mo + 1] * x + m[mo + 5] * y + m[mo + 9] * z + m[mo + 13];
  dst[o + 2] = m[mo + 2] * x + m[mo + 6] * y + m[mo + 10] * z + m[mo + 14];
}

/** dst = normalize(m₃ₓ₃ · v) (three.js's `transformDirection`; a zero result stays zero). */
function transformDirection(m: Float64Array, mo: number, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  const rx = m[mo] * x + m[mo + 4] * y + m[mo + 8] * z;
  const ry = m[mo + 1] * x + m[mo + 5] * y + m[mo + 9] * z;
  const rz = m[mo + 2] * x + m[mo + 6] * y + m[mo + 10] * z;
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  const k = len > 0 ? 1 / len : 0;
  dst[o] = rx * k; dst[o + 1] = ry * k; dst[o + 2] = rz * k;
}

/** dst = normalize(inverse-transpose(m₃ₓ₃) · v): a plane normal carried by `m`. */
function normalDirection(m: Float64Array, v: Float64Array, vo: number, dst: Float64Array, o: number): void {
  const a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
  // Cofactors: inverse-transpose up to 1/det, whose sign is kept.
  const c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const c10 = c * h - b * i, c11 = a * i - c * g, c12 = b * g - a * h;
  const c20 = b * f - c * e, c21 = c * d - a * f, c22 = a * e - b * d;
  const det = a * c00 + b * c01 + c * c02;
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  let rx = c00 * x + c10 * y + c20 * z;
  let ry = c01 * x + c11 * y + c21 * z;
  let rz = c02 * x + c12 * y + c22 * z;
  if (det < 0) { rx = -rx; ry = -ry; rz = -rz; }
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  const k = len > 0 ? 1 / len : 0;
  dst[o] = rx * k; dst[o + 1] = ry * k; dst[o + 2] = rz * k;
}

/**
 * dst (3) = m⁻¹ · v for an affine matrix m (16 at `mo`), by its adjugate, without building the
 * inverse; a singular 3×3 gives zeros, as `invertAffine` does. dst may not alias v.
 */
function solveAffine(m: Float64Array, mo: number, v: Float64Array, dst: Float64Array): void {
  const a = m[mo], b = m[mo + 1], c = m[mo + 2], d = m[mo + 4], e = m[mo + 5], f = m[mo + 6], g = m[mo + 8], h = m[mo + 9], i = m[mo + 10];
  const c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const det = a * c00 + b * c01 + c * c02;
  const k = det !== 0 ? 1 / det : 0;
  const x = v[0] - m[mo + 12], y = v[1] - m[mo + 13], z = v[2] - m[mo + 14];
  dst[0] = (c00 * x + c01 * y + c02 * z) * k;
  dst[1] = ((c * h - b * i) * x + (a * i - c * g) * y + (b * g - a * h) * z) * k;
  dst[2] = ((b * f - c * e) * x + (c * d - a * f) * y + (a * e - b * d) * z) * k;
}

/** dst = m⁻¹ for an affine matrix (16 at the offsets); a singular 3×3 gives zeros. dst may not alias m. */
function invertAffine(m: Float64Array, mo: number, dst: Float64Array, o: number): void {
  const a = m[mo], b = m[mo + 1], c = m[mo + 2], d = m[mo + 4], e = m[mo + 5], f = m[mo + 6], g = m[mo + 8], h = m[mo + 9], i = m[mo + 10];
  const c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const det = a * c00 + b * c01 + c * c02;
  const k = det !== 0 ? 1 / det : 0;
  const r00 = c00 * k, r01 = (c * h - b * i) * k, r02 = (b * f - c * e) * k;
  const r10 = c01 * k, r11 = (a * i - c * g) * k, r12 = (c * d - a * f) * k;
  const r20 = c02 * k, r21 = (b * g - a * h) * k, r22 = (a * e - b * d) * k;
  const tx = m[mo + 12], ty = m[mo + 13], tz = m[mo + 14];
  dst[o] = r00; dst[o + 1] = r01; dst[o + 2] = r02; dst[o + 3] = 0;
  dst[o + 4] = r10; dst[o + 5] = r11; dst[o + 6] = r12; dst[o + 7] = 0;
  dst[o + 8] = r20; dst[o + 9] = r21; dst[o + 10] = r22; dst[o + 11] = 0;
  dst[o + 12] = -(r00 * tx + r10 * ty + r20 * tz);
  dst[o + 13] = -(r01 * tx + r11 * ty + r21 * tz);
  dst[o + 14] = -(r02 * tx + r12 * ty + r22 * tz);
  dst[o + 15] = 1;
}

/**
 * Per joint in update order, the slots to recompute after it: the joint itself, then every
 * descendant not below another joint (those are recomputed after their own joint), in slot
 * order — three-vrm's `traverseChildrenUntilConditionMet`.
 */
function updateLists(h: Hierarchy, springs: VrmSpringBones, slot: Int32Array): { updateStart: Int32Array; updateRuns: Int32Array } {
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
