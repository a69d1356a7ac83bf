import type { Hierarchy } from '../gltf/model.ts';
import { mulConjQuat, mulQuat, normalizeQuat, quatFromTo, rotateVec, rotationOfMatrix, scaleRotation } from '../math/quat.ts';
import { isInSubtree } from './mask.ts';
import type { Pose } from './pose.ts';

// Scratch for run(): module-level so the per-frame call allocates nothing.
const q = new Float64Array(4 * 6); // 0 start model R, 4 mid model R, 8 hinge, 12 aim, 16 twist, 20 temp
const v = new Float64Array(3 * 8); // 0 ab, 3 bc, 6 at, 9 n, 12 bc', 15 c1 − a, 18 b2 − a, 21 temp
const k = new Float64Array(2);
const Q_START = 0, Q_MID = 4, Q_HINGE = 8, Q_AIM = 12, Q_TWIST = 16, Q_TEMP = 20;
const V_AB = 0, V_BC = 3, V_AT = 6, V_N = 9, V_BC1 = 12, V_AC1 = 15, V_AB2 = 18, V_TEMP = 21;

/**
 * Analytic two-bone IK (ozz-animation's IKTwoBoneJob, adapted): bends a start → mid → end
 * chain (upper arm → forearm → hand, thigh → shin → foot) so the end joint reaches
 * `target`, with the mid joint (elbow, knee) pointing toward `pole`.
 *
 * Runs after blending, on the model-space matrices of the current pose, and writes only the
 * start and mid joints' *local rotations* back into `pose`, so local → model stays the one
 * source of truth: run `localToModel` again afterwards. Bone lengths never change.
 *
 * Steps, all in model space with a, b, c the joint positions:
 *  1. Target distance d = |target − a|, optionally softened (ozz's soften: past
 *     `soften · (|ab| + |bc|)` the chain falls behind the target smoothly instead of snapping
 *     straight), and clamped to what the chain can reach.
 *  2. Bend the mid joint about its hinge axis n until |c − a| = d. n is `midAxis` (in the
 *     mid joint's local frame) when given, else the current bend plane's normal ab × bc,
 *     else — a straight chain — pole × ab, which bends the end away from the pole so the
 *     mid joint ends up on the pole side. Bending is a positive rotation about n.
 *  3. Turn the start joint by the shortest arc that puts the end on the line a → target.
 *  4. Twist the chain about that line until the mid joint lies in the half-plane of the
 *     pole: `pole` is a model-space *direction* (as in ozz), e.g. forward for a knee.
 *     Skipped when the chain is straight or the pole is parallel to the line.
 * Unreachable targets leave the chain fully extended along a → target; targets closer than
 * ||ab| − |bc|| fold it as far as it goes.
 *
 * Corrections are conjugated into each joint's frame by its model rotation, which assumes
 * no non-uniform scale above the chain. The start and mid joints must not be `matrix` nodes
 * (their local rotation would be ignored).
 */
export class TwoBoneIKJob {
  /** 0 leaves the pose exactly as it is; in between, corrections are slerped from identity. */
  weight = 1;
  /** Fraction of the full chain length from which the reach is softened; 1 disables softening. */
  soften = 1;
  /** Optional hinge axis of the mid joint in its local frame (e.g. 1 0 0 for the built-in elbows). */
  midAxis: Float64Array | null = null;
  /** Output: true when the end joint was put on the target (reachable, unsoftened, weight 1). */
  reached = false;

  constructor(
    readonly hierarchy: Hierarchy,
    /** Read and written: local rotations of the start and mid joints. */
    readonly pose: Pose,
    /** `localToModel(hierarchy, pose)` of the pose as it is before this job. */
    readonly models: Float64Array,
    readonly startSlot: number,
    readonly midSlot: number,
    readonly endSlot: number,
    /** Model-space point the end joint should reach (x y z). */
    readonly target: Float64Array,
    /** Model-space direction the mid joint should point toward (x y z). */
    readonly pole: Float64Array,
  ) {}

  /**
   * Checks the three slots (in the hierarchy, each a descendant of the one before; start and mid T/R/S
   * nodes), the pose, matrices, target and pole, and weight and soften in [0, 1]; throws a RangeError naming
   * the rule broken. `run` calls it first.
   */
  validate(): void {
    const h = this.hierarchy;
    const { startSlot, midSlot, endSlot } = this;
    checkSlot(h, startSlot, 'startSlot');
    checkSlot(h, midSlot, 'midSlot');
    checkSlot(h, endSlot, 'endSlot');
    if (midSlot === startSlot || !isInSubtree(h, midSlot, startSlot)) throw new RangeError(`TwoBoneIKJob: midSlot ${midSlot} is not a descendant of startSlot ${startSlot}`);
    if (endSlot === midSlot || !isInSubtree(h, endSlot, midSlot)) throw new RangeError(`TwoBoneIKJob: endSlot ${endSlot} is not a descendant of midSlot ${midSlot}`);
    if (h.useMatrix[startSlot] || h.useMatrix[midSlot]) throw new RangeError('TwoBoneIKJob: the start and mid joints must be TRS nodes, not fixed matrices');
    if (this.models.length < h.count * 16) throw new RangeError(`TwoBoneIKJob: models holds ${this.models.length / 16} matrices, hierarchy has ${h.count}`);
    if (this.pose.rotation.length !== h.count * 4) throw new RangeError('TwoBoneIKJob: pose is of a different skeleton');
    if (this.target.length < 3 || this.pole.length < 3) throw new RangeError('TwoBoneIKJob: target and pole need 3 components');
    if (!(this.weight >= 0 && this.weight <= 1)) throw new RangeError(`TwoBoneIKJob: weight ${this.weight} is not in [0, 1]`);
    if (!(this.soften >= 0 && this.soften <= 1)) throw new RangeError(`TwoBoneIKJob: soften ${this.soften} is not in [0, 1]`);
    const m = this.midAxis;
    if (m !== null && !(m.length >= 3 && m[0] * m[0] + m[1] * m[1] + m[2] * m[2] > 0)) throw new RangeError('TwoBoneIKJob: midAxis must be a non-zero 3-vector');
  }

  /**
   * Rewrites the start and mid joints' local rotations in `pose` so the end joint reaches toward `target`,
   * bending toward `pole`; `reached` says whether it got there.
   */
  run(): void {
    this.validate();
    this.reached = false;
    const weight = this.weight;
    if (weight === 0) return;
    const M = this.models, target = this.target, pole = this.pole;
    const ao = this.startSlot * 16 + 12, bo = this.midSlot * 16 + 12, co = this.endSlot * 16 + 12;
    const ax = M[ao], ay = M[ao + 1], az = M[ao + 2];
    v[V_AB] = M[bo] - ax; v[V_AB + 1] = M[bo + 1] - ay; v[V_AB + 2] = M[bo + 2] - az;
    v[V_BC] = M[co] - M[bo]; v[V_BC + 1] = M[co + 1] - M[bo + 1]; v[V_BC + 2] = M[co + 2] - M[bo + 2];
    v[V_AT] = target[0] - ax; v[V_AT + 1] = target[1] - ay; v[V_AT + 2] = target[2] - az;
    // Lengths inline: a helper returning a double would box it whenever V8 does not inline the call.
    const lab = Math.sqrt(v[V_AB] * v[V_AB] + v[V_AB + 1] * v[V_AB + 1] + v[V_AB + 2] * v[V_AB + 2]);
    const lbc = Math.sqrt(v[V_BC] * v[V_BC] + v[V_BC + 1] * v[V_BC + 1] + v[V_BC + 2] * v[V_BC + 2]);
    const dt = Math.sqrt(v[V_AT] * v[V_AT] + v[V_AT + 1] * v[V_AT + 1] + v[V_AT + 2] * v[V_AT + 2]);
    const poleLen = Math.sqrt(pole[0] * pole[0] + pole[1] * pole[1] + pole[2] * pole[2]);
    if (lab === 0 || lbc === 0) return; // a zero-length bone has no direction to turn
    rotationOfMatrix(M, this.startSlot * 16, q, Q_START);
    rotationOfMatrix(M, this.midSlot * 16, q, Q_MID);

    // 1. Reach, softened as ozz does: past da = soften · chain, approach the chain length
    //    along 1 − 3⁴ / (α + 3)⁴, which leaves the target with slope 1 and never exceeds it.
    const chain = lab + lbc;
    const da = chain * this.soften, ds = chain - da;
    let d = dt;
    if (dt > da && ds > 0) {
      const op = 3 + (dt - da) / ds;
      const op2 = op * op;
      d = da + ds - ds * (81 / (op2 * op2));
    }
    const shortest = Math.abs(lab - lbc);
    this.reached = d === dt && dt <= chain && dt >= shortest && weight === 1;

    // 2. Hinge axis n and bend.
    const midAxis = this.midAxis;
    if (midAxis !== null) {
      rotateVec(q, Q_MID, midAxis, 0, v, V_N);
    } else {
      cross(v, V_AB, v, V_BC, v, V_N);
      if (v[V_N] * v[V_N] + v[V_N + 1] * v[V_N + 1] + v[V_N + 2] * v[V_N + 2] <= 1e-18 * lab * lab * lbc * lbc) {
        cross(pole, 0, v, V_AB, v, V_N);
        if (v[V_N] * v[V_N] + v[V_N + 1] * v[V_N + 1] + v[V_N + 2] * v[V_N + 2] <= 1e-18 * lab * lab * poleLen * poleLen) anyPerpendicular(v, V_AB, v, V_N);
      }
    }
    normalize(v, V_N);
    const nx = v[V_N], ny = v[V_N + 1], nz = v[V_N + 2];
    // Split bc (v) and ab + v∥ (w) into parts along n and across it; only the across parts turn.
    const bcx = v[V_BC], bcy = v[V_BC + 1], bcz = v[V_BC + 2];
    const vn = bcx * nx + bcy * ny + bcz * nz;
    const vpx = bcx - vn * nx, vpy = bcy - vn * ny, vpz = bcz - vn * nz;
    const wx = v[V_AB] + vn * nx, wy = v[V_AB + 1] + vn * ny, wz = v[V_AB + 2] + vn * nz;
    const wn = wx * nx + wy * ny + wz * nz;
    const wpx = wx - wn * nx, wpy = wy - wn * ny, wpz = wz - wn * nz;
    const lvp = Math.sqrt(vpx * vpx + vpy * vpy + vpz * vpz), lwp = Math.sqrt(wpx * wpx + wpy * wpy + wpz * wpz);
    let bend = 0;
    if (lvp > 1e-12 * lbc && lwp > 1e-12 * chain) {
      // |c − a|² = wn² + lwp² + lvp² + 2·lwp·lvp·cos γ, γ the angle from w⊥ to v⊥ about n.
      let cosTarget = (d * d - wn * wn - lwp * lwp - lvp * lvp) / (2 * lwp * lvp);
      cosTarget = cosTarget > 1 ? 1 : cosTarget < -1 ? -1 : cosTarget;
      const cx = wpy * vpz - wpz * vpy, cy = wpz * vpx - wpx * vpz, cz = wpx * vpy - wpy * vpx;
      const current = Math.atan2(cx * nx + cy * ny + cz * nz, wpx * vpx + wpy * vpy + wpz * vpz);
      bend = Math.acos(cosTarget) - current;
    }
    const sh = Math.sin(bend / 2);
    q[Q_HINGE] = nx * sh; q[Q_HINGE + 1] = ny * sh; q[Q_HINGE + 2] = nz * sh; q[Q_HINGE + 3] = Math.cos(bend / 2);

    // 3. Aim: the bent chain's end direction onto a → target.
    rotateVec(q, Q_HINGE, v, V_BC, v, V_BC1);
    v[V_AC1] = v[V_AB] + v[V_BC1]; v[V_AC1 + 1] = v[V_AB + 1] + v[V_BC1 + 1]; v[V_AC1 + 2] = v[V_AB + 2] + v[V_BC1 + 2];
    if (dt > 0) quatFromTo(v, V_AC1, v, V_AT, q, Q_AIM);
    else { q[Q_AIM] = 0; q[Q_AIM + 1] = 0; q[Q_AIM + 2] = 0; q[Q_AIM + 3] = 1; }

    // 4. Twist about a → target so the mid joint leans toward the pole.
    q[Q_TWIST] = 0; q[Q_TWIST + 1] = 0; q[Q_TWIST + 2] = 0; q[Q_TWIST + 3] = 1;
    if (dt > 0) {
      rotateVec(q, Q_AIM, v, V_AB, v, V_AB2);
      const ux = v[V_AT] / dt, uy = v[V_AT + 1] / dt, uz = v[V_AT + 2] / dt;
      const mb = v[V_AB2] * ux + v[V_AB2 + 1] * uy + v[V_AB2 + 2] * uz;
      const bx = v[V_AB2] - mb * ux, by = v[V_AB2 + 1] - mb * uy, bz = v[V_AB2 + 2] - mb * uz;
      const mp = pole[0] * ux + pole[1] * uy + pole[2] * uz;
      const px = pole[0] - mp * ux, py = pole[1] - mp * uy, pz = pole[2] - mp * uz;
      const lb = Math.sqrt(bx * bx + by * by + bz * bz), lp = Math.sqrt(px * px + py * py + pz * pz);
      if (lb > 1e-9 * lab && lp > 1e-9 * poleLen) {
        const cx = by * pz - bz * py, cy = bz * px - bx * pz, cz = bx * py - by * px;
        const twist = Math.atan2(cx * ux + cy * uy + cz * uz, bx * px + by * py + bz * pz);
        const st = Math.sin(twist / 2);
        q[Q_TWIST] = ux * st; q[Q_TWIST + 1] = uy * st; q[Q_TWIST + 2] = uz * st; q[Q_TWIST + 3] = Math.cos(twist / 2);
      }
    }
    mulQuat(q, Q_TWIST, q, Q_AIM, q, Q_AIM); // whole start correction, model space

    if (weight < 1) {
      k[0] = weight;
      scaleRotation(q, Q_AIM, k, 0, q, Q_AIM);
      scaleRotation(q, Q_HINGE, k, 0, q, Q_HINGE);
    }
    applyCorrection(this.pose.rotation, this.startSlot * 4, q, Q_START, Q_AIM);
    applyCorrection(this.pose.rotation, this.midSlot * 4, q, Q_MID, Q_HINGE);
  }
}

/**
 * local ← local · (G⁻¹ · C · G): a model-space correction C of a joint whose model rotation
 * is G, moved into the joint's own frame so that its new model rotation is C · G.
 */
function applyCorrection(rotation: Float64Array, r: number, s: Float64Array, g: number, c: number): void {
  mulConjQuat(s, g, s, c, s, Q_TEMP);
  mulQuat(s, Q_TEMP, s, g, s, Q_TEMP);
  mulQuat(rotation, r, s, Q_TEMP, rotation, r);
  normalizeQuat(rotation, r, rotation, r);
}

function checkSlot(h: Hierarchy, slot: number, name: string): void {
  if (!Number.isInteger(slot) || slot < 0 || slot >= h.count) throw new RangeError(`TwoBoneIKJob: ${name} ${slot} is not in [0, ${h.count})`);
}

function normalize(a: Float64Array, o: number): void {
  const il = 1 / Math.sqrt(a[o] * a[o] + a[o + 1] * a[o + 1] + a[o + 2] * a[o + 2]);
  a[o] *= il; a[o + 1] *= il; a[o + 2] *= il;
}

function cross(a: Float64Array, ao: number, b: Float64Array, bo: number, dst: Float64Array, o: number): void {
  const x = a[ao + 1] * b[bo + 2] - a[ao + 2] * b[bo + 1];
  const y = a[ao + 2] * b[bo] - a[ao] * b[bo + 2];
  const z = a[ao] * b[bo + 1] - a[ao + 1] * b[bo];
  dst[o] = x; dst[o + 1] = y; dst[o + 2] = z;
}

/** Some unit vector perpendicular to a (crossed with the axis a leans on least). */
function anyPerpendicular(a: Float64Array, ao: number, dst: Float64Array, o: number): void {
  const x = Math.abs(a[ao]), y = Math.abs(a[ao + 1]), z = Math.abs(a[ao + 2]);
  v[V_TEMP] = x <= y && x <= z ? 1 : 0;
  v[V_TEMP + 1] = v[V_TEMP] === 0 && y <= z ? 1 : 0;
  v[V_TEMP + 2] = v[V_TEMP] === 0 && v[V_TEMP + 1] === 0 ? 1 : 0;
  cross(a, ao, v, V_TEMP, dst, o);
}
