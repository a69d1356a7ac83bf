import type { Hierarchy } from '../../gltf/model.ts';
import { ColliderShape, type VrmSpringBones } from '../../gltf/vrm-model.ts';
import { composeTRS, isIdentityMat4 } from '../../math/trs.ts';
import { localToModel } from '../local-to-model.ts';
import { ColliderCull } from './collider-cull.ts';
import { invertAffine, isTranslationOnly, multiplyAffine, normalDirection, transformDirection, transformPoint } from './spring-affine.ts';
import { SpringStartCache } from './spring-start-cache.ts';
import { carriedLists, updateLists } from './spring-update-lists.ts';
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
  /** The same without the joint's own slot (the nodes it carries), as `carryStart`/`carryRuns`. */
  private readonly carryStart: Int32Array;
  private readonly carryRuns: Int32Array;
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
  /**
   * Set for a frame by a caller that checked the spring nodes' inputs (`startCache.unchanged`)
   * and left those nodes out of its localToModel if so (VrmRuntime.updateNodeMatrices).
   * @internal
   */
  springNodesChecked = false;
  /**
   * Copies of the spring nodes' inputs, for VrmRuntime.updateNodeMatrices.
   * @internal
   */
  readonly startCache: SpringStartCache;

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
    const { carryStart, carryRuns } = carriedLists(updateStart, updateRuns);
    this.carryStart = carryStart;
    this.carryRuns = carryRuns;
    this.startCache = new SpringStartCache(h, pose, springs.order, this.slot, updateRuns);
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
    worldPlacement[0] = identity ? PLACED_IDENTITY : isTranslationOnly(this.worldFromModel) ? PLACED_TRANSLATION : PLACED_AFFINE;
    if (identity) this.modelFromWorld.set(this.worldFromModel);
    else invertAffine(this.worldFromModel, 0, this.modelFromWorld, 0);
    this.runStart = ++this.version;
    if (this.needsReset) {
      this.needsReset = false;
      this.resetPass();
    }
    // A frame whose caller did not check the spring nodes' inputs (a full localToModel) leaves the copies behind.
    if (!this.springNodesChecked) this.startCache.valid = false;
    if (dt > 0) this.snapshotTails();
    // Colliders no joint moves: placed once for the whole run.
    for (let c = 0; c < this.colliderMoves.length; c++) if (this.colliderMoves[c] === 0) this.colliderWorld(c);
    if (dt > 0) this.cull.beginRun(this.colliderSphere, this.worldFromModel);
    this.stepJoints(dt);
  }

  /**
   * The joints in update order, each in one pass over locals (V8 keeps doubles in registers
   * within a function, and boxes them across calls it does not inline): the parent's model matrix
   * read once; the joint's world position from it (its whole matrix only where something reads
   * it); the Verlet step and the collisions (dt > 0); the rotation toward the tail; and the
   * joint's model matrix written straight from its parent's and the new rotation, then the
   * nodes it carries. Only the rare cases (a `center`, a collider a joint moves, a 0.x chain
   * end) call out.
   */
  private stepJoints(dt: number): void {
    const W = this.worldFromModel, V = this.modelFromWorld;
    const w0 = W[0], w1 = W[1], w2 = W[2], w4 = W[4], w5 = W[5], w6 = W[6], w8 = W[8], w9 = W[9], w10 = W[10], w12 = W[12], w13 = W[13], w14 = W[14];
    const v0 = V[0], v1 = V[1], v2 = V[2], v4 = V[4], v5 = V[5], v6 = V[6], v8 = V[8], v9 = V[9], v10 = V[10], v12 = V[12], v13 = V[13], v14 = V[14];
    // A model placed by a translation alone (the usual case): W's and W⁻¹'s 3×3 products are the
    // vector itself, bit for bit, so they are skipped.
    const translationOnly = worldPlacement[0] !== PLACED_AFFINE;
    const M = this.nodeMatrices, R = this.pose.rotation, T = this.pose.translation, S = this.pose.scale;
    const sp = this.springs, order = sp.order, slots = this.slot, parents = this.parentSlot, whole = this.wholeMatrix;
    const tailSlot = this.tailSlot, startTail = this.startTail, cur = this.currentTail, prev = this.prevTail, applied = this.appliedRotation;
    const restAxis = this.restAxis, boneAxis = this.boneAxis, restRotation = this.restRotation, restInverse = this.restLocalInverse;
    const tailOffset = sp.tailOffset, stiffness = sp.stiffness, gravityPower = sp.gravityPower, gravityDir = sp.gravityDir, dragForce = sp.dragForce;
    const centers = this.centerSlot, stamps = this.slotStamp, carryStart = this.carryStart, carryRuns = this.carryRuns;
    const colliderStart = sp.jointColliderStart, list = sp.jointColliders, hitRadius = sp.hitRadius, radii = sp.colliderRadius;
    const movingColliders = this.movingColliders, colliderMoves = this.colliderMoves, cull = this.cull;
    const spheres = this.colliderSphere, origins = this.colliderOrigin, axes = this.colliderAxis, kinds = this.colliderKind;
    for (let k = 0; k < order.length; k++) {
      const j = order[k], s = slots[j], p = parents[j], o = j * 3;
      // The parent's model matrix (3×4, pCR = column C, row R; identity at a root).
      let p00 = 1, p01 = 0, p02 = 0, p10 = 0, p11 = 1, p12 = 0, p20 = 0, p21 = 0, p22 = 1, p30 = 0, p31 = 0, p32 = 0;
      if (p >= 0) {
        const q = p * 16;
        p00 = M[q]; p01 = M[q + 1]; p02 = M[q + 2]; p10 = M[q + 4]; p11 = M[q + 5]; p12 = M[q + 6];
        p20 = M[q + 8]; p21 = M[q + 9]; p22 = M[q + 10]; p30 = M[q + 12]; p31 = M[q + 13]; p32 = M[q + 14];
      }
      // The joint's world position: from its parent and its translation (its rotation does not
      // move it), or its whole matrix recomputed first where it is read (as three-vrm updates it).
      let jx: number, jy: number, jz: number;
      if (whole[j] === 1) {
        this.updateSlot(s);
        this.worldOf(s, jointWorld);
        jx = jointWorld[12]; jy = jointWorld[13]; jz = jointWorld[14];
      } else {
        const t = s * 3, lx = T[t], ly = T[t + 1], lz = T[t + 2];
        const x = p00 * lx + p10 * ly + p20 * lz + p30;
        const y = p01 * lx + p11 * ly + p21 * lz + p31;
        const z = p02 * lx + p12 * ly + p22 * lz + p32;
        if (translationOnly) {
          jx = x + w12; jy = y + w13; jz = z + w14;
        } else {
          jx = w0 * x + w4 * y + w8 * z + w12;
          jy = w1 * x + w5 * y + w9 * z + w13;
          jz = w2 * x + w6 * y + w10 * z + w14;
        }
      }
      // The tail in world space: stepped (dt > 0), or where it stands.
      let tx: number, ty: number, tz: number;
      const center = centers[j];
      if (dt > 0) {
        // Bone length in world units: to the tail node as the frame began (snapshotTails), or for a
        // 0.x chain end to its virtual tail under the joint's current matrix.
        let lx: number, ly: number, lz: number;
        if (tailSlot[j] >= 0) {
          lx = startTail[o] - jx; ly = startTail[o + 1] - jy; lz = startTail[o + 2] - jz;
        } else {
          const J = jointWorld, ox = tailOffset[o], oy = tailOffset[o + 1], oz = tailOffset[o + 2];
          lx = J[0] * ox + J[4] * oy + J[8] * oz;
          ly = J[1] * ox + J[5] * oy + J[9] * oz;
          lz = J[2] * ox + J[6] * oy + J[10] * oz;
        }
        const length = Math.sqrt(lx * lx + ly * ly + lz * lz);
        // The rest bone axis in world space: through the parent's model matrix, then W (never multiplied together).
        const rx = restAxis[o], ry = restAxis[o + 1], rz = restAxis[o + 2];
        const mx = p00 * rx + p10 * ry + p20 * rz, my = p01 * rx + p11 * ry + p21 * rz, mz = p02 * rx + p12 * ry + p22 * rz;
        let ax = mx, ay = my, az = mz;
        if (!translationOnly) {
          ax = w0 * mx + w4 * my + w8 * mz; ay = w1 * mx + w5 * my + w9 * mz; az = w2 * mx + w6 * my + w10 * mz;
        }
        const axisLength = Math.sqrt(ax * ax + ay * ay + az * az);
        const ak = axisLength > 0 ? 1 / axisLength : 0;
        // Inertia in center space, then to world; stiffness and gravity in world space.
        const drag = 1 - dragForce[j];
        tx = cur[o] + (cur[o] - prev[o]) * drag;
        ty = cur[o + 1] + (cur[o + 1] - prev[o + 1]) * drag;
        tz = cur[o + 2] + (cur[o + 2] - prev[o + 2]) * drag;
        if (center >= 0) {
          tail[0] = tx; tail[1] = ty; tail[2] = tz;
          this.fromCenter(j, tail);
          tx = tail[0]; ty = tail[1]; tz = tail[2];
        }
        const sk = stiffness[j] * dt, g = gravityPower[j] * dt;
        tx += ax * ak * sk + gravityDir[o] * g;
        ty += ay * ak * sk + gravityDir[o + 1] * g;
        tz += az * ak * sk + gravityDir[o + 2] * g;
        // Back to the bone length from the joint (three.js normalises a zero vector to zero).
        {
          const dx = tx - jx, dy = ty - jy, dz = tz - jz;
          const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
          const f = d > 0 ? length / d : 0;
          tx = jx + dx * f; ty = jy + dy * f; tz = jz + dz * f;
        }
        // Collisions: pushed out of (or into) each collider in list order, back to the bone length after each push.
        const first = colliderStart[j], end = colliderStart[j + 1];
        if (first < end) {
          if (movingColliders[j] === 1) {
            for (let i = first; i < end; i++) if (colliderMoves[list[i]] === 1) this.colliderWorld(list[i]);
          }
          const hit = hitRadius[j], bound = hit + length;
          head[0] = jx; head[1] = jy; head[2] = jz; head[3] = length; head[4] = bound;
          // The colliders this joint may touch: the set kept over frames, one built now (all that
          // are left out are beyond its reach, as for a kept set), or the whole list (over 32).
          const kept = cull.candidates(j, head, W) || cull.built(j, head, spheres, W);
          let bits = kept ? cull.found : 0, i = first - 1;
          for (;;) {
            if (kept) {
              if (bits === 0) break;
              const low = bits & -bits;
              bits ^= low;
              i = first + 31 - Math.clz32(low);
            } else if (++i >= end) break;
            const c = list[i], q = c * 4;
            // Too far to touch: the tail (where it stands now, after the pushes before) lies outside the
            // sphere the collider cannot push beyond (its radius, half a capsule's length) grown by the
            // hit radius. The shape's own test would find no push either (for a sphere it is that
            // test): exact, not a guess, and most candidates stop here.
            const ex = tx - spheres[q], ey = ty - spheres[q + 1], ez = tz - spheres[q + 2], reach = spheres[q + 3] + hit;
            if (ex * ex + ey * ey + ez * ez > reach * reach) continue;
            const kind = kinds[c], co = c * 3;
            let dx = tx - origins[co], dy = ty - origins[co + 1], dz = tz - origins[co + 2];
            let distance: number;
            if (kind === KIND_PLANE) {
              const nx = axes[co], ny = axes[co + 1], nz = axes[co + 2];
              distance = dx * nx + dy * ny + dz * nz - hit;
              if (!(distance < 0)) continue;
              dx = nx; dy = ny; dz = nz;
            } else {
              if (kind === KIND_CAPSULE || kind === KIND_INSIDE_CAPSULE) {
                const bx = axes[co], by = axes[co + 1], bz = axes[co + 2];
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
            const lx2 = tx - jx, ly2 = ty - jy, lz2 = tz - jz;
            const l = Math.sqrt(lx2 * lx2 + ly2 * ly2 + lz2 * lz2);
            const f = l > 0 ? length / l : 0;
            tx = jx + lx2 * f; ty = jy + ly2 * f; tz = jz + lz2 * f;
          }
        }
        prev[o] = cur[o]; prev[o + 1] = cur[o + 1]; prev[o + 2] = cur[o + 2];
        if (center >= 0) {
          tail[0] = tx; tail[1] = ty; tail[2] = tz;
          this.toCenter(j, tail, 0, cur, o);
        } else {
          cur[o] = tx; cur[o + 1] = ty; cur[o + 2] = tz;
        }
      } else {
        tx = cur[o]; ty = cur[o + 1]; tz = cur[o + 2];
        if (center >= 0) {
          tail[0] = tx; tail[1] = ty; tail[2] = tz;
          this.fromCenter(j, tail);
          tx = tail[0]; ty = tail[1]; tz = tail[2];
        }
      }
      // The rotation toward the tail (three-vrm's last step), from the rest rotation: the tail in the
      // joint's rest frame under its current parent, (W · parent · restLocal)⁻¹ · tail, one factor at
      // a time (W⁻¹ made once per run; the parent's by its adjugate, never built).
      let mx = tx + v12, my = ty + v13, mz = tz + v14;
      if (!translationOnly) {
        mx = v0 * tx + v4 * ty + v8 * tz + v12; my = v1 * tx + v5 * ty + v9 * tz + v13; mz = v2 * tx + v6 * ty + v10 * tz + v14;
      }
      const c00 = p11 * p22 - p12 * p21, c01 = p12 * p20 - p10 * p22, c02 = p10 * p21 - p11 * p20;
      const det = p00 * c00 + p01 * c01 + p02 * c02;
      const kd = det !== 0 ? 1 / det : 0;
      const bx = mx - p30, by = my - p31, bz = mz - p32;
      const ux = (c00 * bx + c01 * by + c02 * bz) * kd;
      const uy = ((p02 * p21 - p01 * p22) * bx + (p00 * p22 - p02 * p20) * by + (p01 * p20 - p00 * p21) * bz) * kd;
      const uz = ((p01 * p12 - p02 * p11) * bx + (p02 * p10 - p00 * p12) * by + (p00 * p11 - p01 * p10) * bz) * kd;
      const L = restInverse, lo = j * 16;
      const vx = L[lo] * ux + L[lo + 4] * uy + L[lo + 8] * uz + L[lo + 12];
      const vy = L[lo + 1] * ux + L[lo + 5] * uy + L[lo + 9] * uz + L[lo + 13];
      const vz = L[lo + 2] * ux + L[lo + 6] * uy + L[lo + 10] * uz + L[lo + 14];
      // The shortest rotation from the bone axis (unit) to v (any length): (u × v, |v| + u · v)
      // normalised; a zero vector gives identity; opposite vectors turn about the axis least aligned with u.
      const ex = boneAxis[o], ey = boneAxis[o + 1], ez = boneAxis[o + 2];
      const vLength = Math.sqrt(vx * vx + vy * vy + vz * vz);
      let qx = 0, qy = 0, qz = 0, qw = 1;
      if (!(ex === 0 && ey === 0 && ez === 0) && vLength > 0) {
        qx = ey * vz - ez * vy; qy = ez * vx - ex * vz; qz = ex * vy - ey * vx;
        qw = vLength + (ex * vx + ey * vy + ez * vz);
        if (qw < 1e-12 * vLength) {
          const aex = Math.abs(ex), aey = Math.abs(ey), aez = Math.abs(ez);
          if (aex <= aey && aex <= aez) { qx = 0; qy = -ez; qz = ey; } else if (aey <= aez) { qx = -ez; qy = 0; qz = ex; } else { qx = -ey; qy = ex; qz = 0; }
          qw = 0;
        }
        const il = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
        qx *= il; qy *= il; qz *= il; qw *= il;
      }
      // restRotation · turn, to the applied rotation and the pose.
      const a4 = j * 4, rr0 = restRotation[a4], rr1 = restRotation[a4 + 1], rr2 = restRotation[a4 + 2], rr3 = restRotation[a4 + 3];
      const x = rr3 * qx + rr0 * qw + rr1 * qz - rr2 * qy;
      const y = rr3 * qy - rr0 * qz + rr1 * qw + rr2 * qx;
      const z = rr3 * qz + rr0 * qy - rr1 * qx + rr2 * qw;
      const w = rr3 * qw - rr0 * qx - rr1 * qy - rr2 * qz;
      applied[a4] = x; applied[a4 + 1] = y; applied[a4 + 2] = z; applied[a4 + 3] = w;
      const r4 = s * 4;
      R[r4] = x; R[r4 + 1] = y; R[r4 + 2] = z; R[r4 + 3] = w;
      // The joint's model matrix: parent · T·R·S, written directly (localToModel's arithmetic).
      {
        const t = s * 3, sx = S[t], sy = S[t + 1], sz = S[t + 2];
        const x2 = x + x, y2 = y + y, z2 = z + z;
        const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
        const wx = w * x2, wy = w * y2, wz = w * z2;
        const l00 = (1 - (yy + zz)) * sx, l01 = (xy + wz) * sx, l02 = (xz - wy) * sx;
        const l10 = (xy - wz) * sy, l11 = (1 - (xx + zz)) * sy, l12 = (yz + wx) * sy;
        const l20 = (xz + wy) * sz, l21 = (yz - wx) * sz, l22 = (1 - (xx + yy)) * sz;
        const l30 = T[t], l31 = T[t + 1], l32 = T[t + 2];
        const m = s * 16;
        if (p >= 0) {
          M[m] = p00 * l00 + p10 * l01 + p20 * l02;
          M[m + 1] = p01 * l00 + p11 * l01 + p21 * l02;
          M[m + 2] = p02 * l00 + p12 * l01 + p22 * l02;
          M[m + 4] = p00 * l10 + p10 * l11 + p20 * l12;
          M[m + 5] = p01 * l10 + p11 * l11 + p21 * l12;
          M[m + 6] = p02 * l10 + p12 * l11 + p22 * l12;
          M[m + 8] = p00 * l20 + p10 * l21 + p20 * l22;
          M[m + 9] = p01 * l20 + p11 * l21 + p21 * l22;
          M[m + 10] = p02 * l20 + p12 * l21 + p22 * l22;
          M[m + 12] = p00 * l30 + p10 * l31 + p20 * l32 + p30;
          M[m + 13] = p01 * l30 + p11 * l31 + p21 * l32 + p31;
          M[m + 14] = p02 * l30 + p12 * l31 + p22 * l32 + p32;
        } else {
          M[m] = l00; M[m + 1] = l01; M[m + 2] = l02;
          M[m + 4] = l10; M[m + 5] = l11; M[m + 6] = l12;
          M[m + 8] = l20; M[m + 9] = l21; M[m + 10] = l22;
          M[m + 12] = l30; M[m + 13] = l31; M[m + 14] = l32;
        }
        M[m + 3] = 0; M[m + 7] = 0; M[m + 11] = 0; M[m + 15] = 1;
        stamps[s] = ++this.version;
      }
      // The nodes the joint carries (none for a chain's inner joint).
      for (let i = carryStart[k]; i < carryStart[k + 1]; i++) {
        const firstSlot = carryRuns[2 * i], endSlot = carryRuns[2 * i + 1];
        localToModel(this.hierarchy, this.pose, M, firstSlot, endSlot);
        const v = ++this.version;
        for (let c = firstSlot; c < endSlot; c++) stamps[c] = v;
      }
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
      // the hair, or a fixed step after the last; or a frame whose caller left them out, see
      // SpringStartCache).
      if (R[r] === A[a] && R[r + 1] === A[a + 1] && R[r + 2] === A[a + 2] && R[r + 3] === A[a + 3] && (p < 0 || stamps[p] <= start)) continue;
      R[r] = A[a]; R[r + 1] = A[a + 1]; R[r + 2] = A[a + 2]; R[r + 3] = A[a + 3];
      this.updateAfter(k);
    }
    // The tail nodes' world positions (the translation of W · nodeMatrices, all of it read).
    const W = this.worldFromModel, M = this.nodeMatrices, tails = this.tailSlot, dst = this.startTail;
    const w0 = W[0], w1 = W[1], w2 = W[2], w4 = W[4], w5 = W[5], w6 = W[6], w8 = W[8], w9 = W[9], w10 = W[10], w12 = W[12], w13 = W[13], w14 = W[14];
    const translationOnly = worldPlacement[0] !== PLACED_AFFINE;
    for (let j = 0; j < tails.length; j++) {
      const ts = tails[j];
      if (ts < 0) continue;
      const m = ts * 16, x = M[m + 12], y = M[m + 13], z = M[m + 14], o = j * 3;
      if (translationOnly) {
        // W's 3×3 product skipped as in stepJoints: the same sums, bit for bit.
        dst[o] = x + w12; dst[o + 1] = y + w13; dst[o + 2] = z + w14;
        continue;
      }
      dst[o] = w0 * x + w4 * y + w8 * z + w12;
      dst[o + 1] = w1 * x + w5 * y + w9 * z + w13;
      dst[o + 2] = w2 * x + w6 * y + w10 * z + w14;
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
    } else if (worldPlacement[0] !== PLACED_AFFINE) {
      // W · M for a W that only translates: M moved, bit for bit what the product gives (1·x + 0·y + 0·z + t = x + t).
      const M = this.nodeMatrices, o = slot * 16;
      for (let i = 0; i < 16; i++) dst[i] = M[o + i];
      if (worldPlacement[0] === PLACED_TRANSLATION) {
        dst[12] = M[o + 12] + W[12]; dst[13] = M[o + 13] + W[13]; dst[14] = M[o + 14] + W[14];
      }
    } else {
      multiplyAffine(W, 0, this.nodeMatrices, slot * 16, dst);
    }
  }

  /** World centre and axis/normal of collider `c`, recomputed only when its node moved since. */
  private colliderWorld(c: number): void {
    const slot = this.colliderSlot[c];
    const stamp = this.colliderStamp[c];
    if (stamp > this.runStart && stamp > this.slotStamp[slot]) return;
    this.colliderStamp[c] = ++this.version;
    const sp = this.springs, o = c * 3, q = c * 4, S = this.colliderSphere, origin = this.colliderOrigin;
    const kind = this.colliderKind[c];
    let m: Float64Array = colliderMatrix, mo = 0;
    if (worldPlacement[0] === PLACED_AFFINE || kind === KIND_PLANE) {
      this.worldOf(slot, colliderMatrix);
      transformPoint(colliderMatrix, 0, sp.colliderOffset, o, origin, o);
    } else {
      // W only translates: the node's own 3×3, its translation moved, summed as transformPoint sums W · M (bit for bit).
      const M = this.nodeMatrices, W = this.worldFromModel, off = sp.colliderOffset;
      m = M; mo = slot * 16;
      const x = off[o], y = off[o + 1], z = off[o + 2];
      origin[o] = M[mo] * x + M[mo + 4] * y + M[mo + 8] * z + (M[mo + 12] + W[12]);
      origin[o + 1] = M[mo + 1] * x + M[mo + 5] * y + M[mo + 9] * z + (M[mo + 13] + W[13]);
      origin[o + 2] = M[mo + 2] * x + M[mo + 6] * y + M[mo + 10] * z + (M[mo + 14] + W[14]);
    }
    S[q] = origin[o]; S[q + 1] = origin[o + 1]; S[q + 2] = origin[o + 2];
    // Planes and inside shapes reach everywhere; a sphere its radius; a capsule its radius beyond its segment.
    S[q + 3] = sp.colliderRadius[c];
    // (Two stores, not a conditional expression: a phi of the constant Infinity and a double boxes it.)
    if (kind === KIND_PLANE || kind >= KIND_INSIDE_SPHERE) S[q + 3] = Infinity;
    if (kind === KIND_CAPSULE || kind === KIND_INSIDE_CAPSULE) {
      const off = sp.colliderOffset, tl = sp.colliderTail;
      const lx = tl[o] - off[o], ly = tl[o + 1] - off[o + 1], lz = tl[o + 2] - off[o + 2];
      const ax = m[mo] * lx + m[mo + 4] * ly + m[mo + 8] * lz;
      const ay = m[mo + 1] * lx + m[mo + 5] * ly + m[mo + 9] * lz;
      const az = m[mo + 2] * lx + m[mo + 6] * ly + m[mo + 10] * lz;
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
/** How the current run's `worldFromModel` places the model: PLACED_IDENTITY, PLACED_TRANSLATION or PLACED_AFFINE. */
const worldPlacement = new Uint8Array(1);
const PLACED_IDENTITY = 0;
const PLACED_TRANSLATION = 1;
const PLACED_AFFINE = 2;
const jointWorld = new Float64Array(16);
const centerMatrix = new Float64Array(16);
const centerInverse = new Float64Array(16);
const colliderMatrix = new Float64Array(16);
const tail = new Float64Array(3);
/** The joint's world position (0..2), its bone length (3) and its bound, hit radius + length (4), while it steps. */
const head = new Float64Array(5);

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
