import type { Hierarchy } from '../gltf/model.ts';
import { mulConjQuat, mulQuat, quatFromTo, rotateVec, rotationAngle, rotationOfMatrix, scaleRotation } from '../math/quat.ts';
import type { Pose } from './pose.ts';

// Scratch for run(): module-level so the per-frame call allocates nothing.
const q = new Float64Array(4 * 3); // 0 model R, 4 aimed model R, 8 correction
const m = new Float64Array(16);
const v = new Float64Array(3 * 4); // 0 current forward, 3 to target, 6 current up
const k = new Float64Array(2);

/**
 * Aim / look-at constraint (ozz-animation's IKAimJob, adapted): turns one joint — a head,
 * eyes, a turret — so its local `forward` axis points at a model-space `target`, with its
 * local `up` axis leaning toward the model-space `pole` direction. Like `TwoBoneIKJob` it
 * runs after blending on the current model matrices and writes the joint's local rotation
 * back into `pose`; run `localToModel` afterwards.
 *
 * The aimed orientation is the frame whose forward is target − joint and whose up is the
 * pole's part across that line. When the pole is zero or parallel to the line, the joint
 * turns by the shortest arc from where it looks now instead (its roll is kept).
 * `weight` slerps the correction from identity; `limit` then caps the correction's angle,
 * so the joint never turns more than `limit` radians away from the animated pose.
 */
export class AimJob {
  /** 0 leaves the pose exactly as it is. */
  weight = 1;
  /** Largest rotation in radians the constraint may add; Infinity for none. */
  limit = Infinity;
  /** Output: the angle in radians of the correction that was applied. */
  angle = 0;

  constructor(
    readonly hierarchy: Hierarchy,
    /** Read and written: the local rotation of `slot`. */
    readonly pose: Pose,
    /** `localToModel(hierarchy, pose)` of the pose as it is before this job. */
    readonly models: Float64Array,
    readonly slot: number,
    /** Model-space point to look at (x y z). */
    readonly target: Float64Array,
    /** The joint's looking axis in its local frame (glTF's front is +Z). */
    readonly forward: Float64Array = Float64Array.of(0, 0, 1),
    /** The joint's up axis in its local frame; must not be parallel to `forward`. */
    readonly up: Float64Array = Float64Array.of(0, 1, 0),
    /** Model-space direction `up` should lean toward; zero keeps the animated roll. */
    readonly pole: Float64Array = Float64Array.of(0, 1, 0),
  ) {}

  /**
   * Checks the slot (in the hierarchy, a TRS node), the weight in [0, 1] and the limit ≥ 0; throws a
   * RangeError naming the rule broken. `run` calls it first.
   */
  validate(): void {
    const h = this.hierarchy, slot = this.slot;
    if (!Number.isInteger(slot) || slot < 0 || slot >= h.count) throw new RangeError(`AimJob: slot ${slot} is not in [0, ${h.count})`);
    if (h.useMatrix[slot]) throw new RangeError('AimJob: the joint must be a TRS node, not a fixed matrix');
    if (this.models.length < h.count * 16) throw new RangeError(`AimJob: models holds ${this.models.length / 16} matrices, hierarchy has ${h.count}`);
    if (this.pose.rotation.length !== h.count * 4) throw new RangeError('AimJob: pose is of a different skeleton');
    const f = this.forward, u = this.up;
    if (this.target.length < 3 || f.length < 3 || u.length < 3 || this.pole.length < 3) throw new RangeError('AimJob: target, forward, up and pole need 3 components');
    const cx = f[1] * u[2] - f[2] * u[1], cy = f[2] * u[0] - f[0] * u[2], cz = f[0] * u[1] - f[1] * u[0];
    if (!(cx * cx + cy * cy + cz * cz > 1e-12 * (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]))) {
      throw new RangeError('AimJob: forward and up must be non-zero and not parallel');
    }
    if (!(this.weight >= 0 && this.weight <= 1)) throw new RangeError(`AimJob: weight ${this.weight} is not in [0, 1]`);
    if (!(this.limit >= 0)) throw new RangeError(`AimJob: limit ${this.limit} must be ≥ 0 radians`);
  }

  /**
   * Turns the joint's local rotation in `pose` toward `target` (weighted, capped at `limit`); `angle` is then
   * the correction applied.
   */
  run(): void {
    this.validate();
    this.angle = 0;
    const weight = this.weight;
    if (weight === 0) return;
    const M = this.models, o = this.slot * 16, target = this.target;
    v[3] = target[0] - M[o + 12]; v[4] = target[1] - M[o + 13]; v[5] = target[2] - M[o + 14];
    const dist = Math.sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    if (dist === 0) return; // looking at itself: no direction
    rotationOfMatrix(M, o, q, 0);

    // Local frame (F, U, S) and aimed model frame (F', U', S'); the aimed rotation maps one onto the other.
    const f = this.forward, u = this.up, pole = this.pole;
    let fx = f[0], fy = f[1], fz = f[2];
    const fl = 1 / Math.sqrt(fx * fx + fy * fy + fz * fz);
    fx *= fl; fy *= fl; fz *= fl;
    const ud = u[0] * fx + u[1] * fy + u[2] * fz;
    let ux = u[0] - ud * fx, uy = u[1] - ud * fy, uz = u[2] - ud * fz;
    const ul = 1 / Math.sqrt(ux * ux + uy * uy + uz * uz);
    ux *= ul; uy *= ul; uz *= ul;
    const Fx = v[3] / dist, Fy = v[4] / dist, Fz = v[5] / dist;
    const pd = pole[0] * Fx + pole[1] * Fy + pole[2] * Fz;
    let Ux = pole[0] - pd * Fx, Uy = pole[1] - pd * Fy, Uz = pole[2] - pd * Fz;
    const Ul = Math.sqrt(Ux * Ux + Uy * Uy + Uz * Uz);
    const poleLen = Math.sqrt(pole[0] * pole[0] + pole[1] * pole[1] + pole[2] * pole[2]);
    if (Ul > 1e-9 * poleLen) {
      Ux /= Ul; Uy /= Ul; Uz /= Ul;
      const sx = fy * uz - fz * uy, sy = fz * ux - fx * uz, sz = fx * uy - fy * ux;
      const Sx = Fy * Uz - Fz * Uy, Sy = Fz * Ux - Fx * Uz, Sz = Fx * Uy - Fy * Ux;
      // R = F'Fᵀ + U'Uᵀ + S'Sᵀ, column-major (column c, row r at c * 4 + r).
      m[0] = Fx * fx + Ux * ux + Sx * sx; m[1] = Fy * fx + Uy * ux + Sy * sx; m[2] = Fz * fx + Uz * ux + Sz * sx;
      m[4] = Fx * fy + Ux * uy + Sx * sy; m[5] = Fy * fy + Uy * uy + Sy * sy; m[6] = Fz * fy + Uz * uy + Sz * sy;
      m[8] = Fx * fz + Ux * uz + Sx * sz; m[9] = Fy * fz + Uy * uz + Sy * sz; m[10] = Fz * fz + Uz * uz + Sz * sz;
      rotationOfMatrix(m, 0, q, 4);
      mulConjQuat(q, 0, q, 4, q, 8); // correction in the joint's frame: G⁻¹ · G'
    } else {
      // No usable pole: shortest arc from the current forward to the target, in model space.
      rotateVec(q, 0, f, 0, v, 0);
      quatFromTo(v, 0, v, 3, q, 4);
      mulConjQuat(q, 0, q, 4, q, 8);
      mulQuat(q, 8, q, 0, q, 8);
    }

    if (weight < 1) {
      k[0] = weight;
      scaleRotation(q, 8, k, 0, q, 8);
    }
    rotationAngle(q, 8, k, 1);
    if (k[1] > this.limit) {
      k[0] = this.limit / k[1];
      scaleRotation(q, 8, k, 0, q, 8);
      rotationAngle(q, 8, k, 1);
    }
    this.angle = k[1];
    const R = this.pose.rotation, r = this.slot * 4;
    mulQuat(R, r, q, 8, R, r);
    const il = 1 / Math.sqrt(R[r] * R[r] + R[r + 1] * R[r + 1] + R[r + 2] * R[r + 2] + R[r + 3] * R[r + 3]);
    R[r] *= il; R[r + 1] *= il; R[r + 2] *= il; R[r + 3] *= il;
  }
}
