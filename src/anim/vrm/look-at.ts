import type { Hierarchy } from '../../gltf/model.ts';
import type { VrmLookAt, VrmRangeMap } from '../../gltf/vrm-model.ts';
import { mulConjQuat, mulQuat, rotateVec, rotationOfMatrix } from '../../math/quat.ts';
import { localToModel } from '../local-to-model.ts';
import type { Pose } from '../pose.ts';
import type { ExpressionJob } from './expressions.ts';
import { subtreeEnd } from './subtree.ts';

const DEG = Math.PI / 180;

/** angles[o] = range map of angles[i]: `outputScale · saturate(value / inputMaxValue)` (typed array in and out: no boxed doubles). */
function mapRange(m: VrmRangeMap, i: number, o: number): void {
  const x = angles[i] / m.inputMaxValue;
  angles[o] = m.outputScale * (x > 0 ? (x < 1 ? x : 1) : 0);
}


/**
 * VRM look-at as a pose step: a gaze given as yaw and pitch in degrees (yaw > 0 to the
 * model's left, pitch > 0 down, as VRMC_vrm defines them), or a target point it computes
 * them from, turns the eyes (type `bone`) or sets the lookUp/Down/Left/Right expressions
 * (type `expression`) through the file's range maps.
 *
 * Following three-vrm 3.x: the gaze is measured from the point `offsetFromHeadBone` in the
 * head's space, in the head's frame relative to its rest orientation, against the model's
 * front (+Z, −Z for VRM 0.x); an eye turns by the yaw-pitch rotation expressed in the model's
 * frame at rest, carried into its local space through its parent's rest orientation, so eyes
 * with any rest rotation turn the right way. One difference: three-vrm 3.5 uses the
 * vertical-down range map when bone-type eyes look up and the up map when they look down;
 * this job uses the maps the specification's table names (up for up, down for down).
 *
 * `enabled` is false until a target or an angle is set: then the eyes keep what the clip gives
 * them. `run` allocates nothing.
 */
export class LookAtJob {
  /** Degrees; set directly, or computed from `target` by `run` when `hasTarget`. */
  yaw = 0;
  pitch = 0;
  /** The point to look at, in world space (`worldFromModel` applied to the model's space). */
  readonly target = new Float64Array(3);
  hasTarget = false;
  /** When false the step does nothing. Setting `target`, `yaw` or `pitch` through `lookAt`/`setAngles` turns it on. */
  enabled = false;
  readonly worldFromModel: Float64Array;

  private readonly headSlot: number;
  private readonly eyeSlots: Int32Array;
  private readonly eyeEnds: Int32Array;
  /** Per eye: its rest local rotation and its parent's rest rotation in model space (4 each). */
  private readonly eyeRest: Float64Array;
  private readonly eyeParentRest: Float64Array;
  private readonly restHead = new Float64Array(4);
  /** Rotation taking the +Z front to the model's front (identity, or a half turn for 0.x). */
  private readonly front = new Float64Array(4);
  private readonly frontAzimuth: number;
  private readonly frontAltitude: number;
  /** Indices of lookUp, lookDown, lookLeft, lookRight in the expressions (-1 where absent). */
  private readonly lookExpressions: Int32Array;

  constructor(
    readonly hierarchy: Hierarchy,
    readonly settings: VrmLookAt,
    readonly pose: Pose,
    readonly nodeMatrices: Float64Array,
    /** Head, left eye and right eye nodes (glTF indices; -1 for an eye the avatar lacks). */
    nodes: { head: number; leftEye: number; rightEye: number },
    /** The expression job, for type `expression`. */
    readonly expressions: ExpressionJob | undefined,
    /** The model's rest node matrices (localToModel of the rest pose). */
    restMatrices: Float64Array,
    worldFromModel?: Float64Array,
  ) {
    const h = hierarchy;
    this.worldFromModel = worldFromModel ?? new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    this.headSlot = h.slotOf[nodes.head];
    this.eyeSlots = Int32Array.from([nodes.leftEye, nodes.rightEye], (n) => (n < 0 ? -1 : h.slotOf[n]));
    this.eyeEnds = Int32Array.from(this.eyeSlots, (s) => (s < 0 ? -1 : subtreeEnd(h, s)));
    this.eyeRest = new Float64Array(8);
    this.eyeParentRest = new Float64Array(8);
    for (let e = 0; e < 2; e++) {
      const s = this.eyeSlots[e];
      if (s < 0) continue;
      this.eyeRest.set(h.restRotation.subarray(s * 4, s * 4 + 4), e * 4);
      const p = h.parentSlot[s];
      if (p >= 0) rotationOfMatrix(restMatrices, p * 16, this.eyeParentRest, e * 4);
      else this.eyeParentRest[e * 4 + 3] = 1;
    }
    rotationOfMatrix(restMatrices, this.headSlot * 16, this.restHead, 0);
    this.lookExpressions = Int32Array.from(['lookUp', 'lookDown', 'lookLeft', 'lookRight'], (n) => expressions?.find(n) ?? -1);
    const f = settings.faceFront;
    this.frontAzimuth = Math.atan2(-f[2], f[0]);
    this.frontAltitude = Math.atan2(f[1], Math.sqrt(f[0] * f[0] + f[2] * f[2]));
    // three-vrm: identity for a +Z front, else Euler (0, π/2 + azimuth, altitude) in YZX order.
    const dz = f[2] - 1;
    if (f[0] * f[0] + f[1] * f[1] + dz * dz < 0.01) {
      this.front[3] = 1;
    } else {
      const hy = (Math.PI / 2 + this.frontAzimuth) / 2, hz = this.frontAltitude / 2;
      // q = qY · qZ (YZX: X first, then Z, then Y; X is 0).
      const cy = Math.cos(hy), sy = Math.sin(hy), cz = Math.cos(hz), sz = Math.sin(hz);
      this.front[0] = sy * sz; this.front[1] = sy * cz; this.front[2] = cy * sz; this.front[3] = cy * cz;
    }
  }

  /** Looks at a world-space point from now on. */
  lookAt(x: number, y: number, z: number): void {
    this.target[0] = x; this.target[1] = y; this.target[2] = z;
    this.hasTarget = true;
    this.enabled = true;
  }

  /** Sets the gaze angles (degrees) and stops following a target. */
  setAngles(yaw: number, pitch: number): void {
    this.yaw = yaw;
    this.pitch = pitch;
    this.hasTarget = false;
    this.enabled = true;
  }

  /**
   * The gaze from a rotation (x y z w, need not be unit) that turns the model's front toward it,
   * as a VRM animation's look-at track gives it: yaw and pitch are its YXZ Euler angles about Y and X
   * (three-vrm-animation's VRMLookAtQuaternionProxy). Stops following a target.
   */
  setGazeRotation(r: Float64Array): void {
    const l = Math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (!(l > 0)) return;
    const x = r[0] / l, y = r[1] / l, z = r[2] / l, w = r[3] / l;
    // Rotation matrix entries three.js's Euler.setFromRotationMatrix reads for order YXZ.
    const m13 = 2 * (x * z + w * y), m23 = 2 * (y * z - w * x), m33 = 1 - 2 * (x * x + y * y), m11 = 1 - 2 * (y * y + z * z), m31 = 2 * (x * z - w * y);
    const ex = Math.asin(-(m23 < -1 ? -1 : m23 > 1 ? 1 : m23));
    const ey = Math.abs(m23) < 0.9999999 ? Math.atan2(m13, m33) : Math.atan2(-m31, m11);
    this.yaw = ey / DEG;
    this.pitch = ex / DEG;
    this.hasTarget = false;
    this.enabled = true;
  }

  /**
   * Checks the head node, the target (finite) and that an expression-type look-at has its expressions; throws
   * a RangeError naming the rule broken.
   */
  validate(): void {
    if (this.headSlot < 0) throw new RangeError('LookAtJob: the head node is not in the hierarchy');
    if (!this.target.every(Number.isFinite)) throw new RangeError('LookAtJob: the target is not finite');
    if (this.settings.type === 'expression' && !this.expressions) throw new RangeError('LookAtJob: an expression-type look-at needs the expressions');
    if (!Number.isFinite(this.yaw) || !Number.isFinite(this.pitch)) throw new RangeError('LookAtJob: yaw and pitch must be finite');
  }

  /**
   * Once enabled, turns the eyes toward the target (or the angles set): bone-type eyes in `pose`,
   * expression-type ones as the look-at expressions' weights.
   */
  run(): void {
    if (!this.enabled) return;
    if (this.hasTarget) this.aim();
    if (this.settings.type === 'bone') this.applyBones();
    else this.applyExpressions();
  }

  /** yaw and pitch toward `target` (three-vrm's VRMLookAt.lookAt). */
  private aim(): void {
    const W = this.worldFromModel, M = this.nodeMatrices, o = this.headSlot * 16;
    // The head's world matrix.
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 3; r++) head[c * 4 + r] = W[r] * M[o + c * 4] + W[4 + r] * M[o + c * 4 + 1] + W[8 + r] * M[o + c * 4 + 2] + (c === 3 ? W[12 + r] : 0);
      head[c * 4 + 3] = c === 3 ? 1 : 0;
    }
    rotationOfMatrix(head, 0, q, 0);
    // The head's rotation since rest, undone: rest · current⁻¹.
    q[4] = this.restHead[0]; q[5] = this.restHead[1]; q[6] = this.restHead[2]; q[7] = this.restHead[3];
    q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2];
    mulQuat(q, 4, q, 0, q, 8);
    const off = this.settings.offsetFromHeadBone;
    v[0] = this.target[0] - (head[0] * off[0] + head[4] * off[1] + head[8] * off[2] + head[12]);
    v[1] = this.target[1] - (head[1] * off[0] + head[5] * off[1] + head[9] * off[2] + head[13]);
    v[2] = this.target[2] - (head[2] * off[0] + head[6] * off[1] + head[10] * off[2] + head[14]);
    rotateVec(q, 8, v, 0, v, 0);
    const azimuth = Math.atan2(-v[2], v[0]);
    const altitude = Math.atan2(v[1], Math.sqrt(v[0] * v[0] + v[2] * v[2]));
    // Each wrapped to [−π, π] (three-vrm's sanitizeAngle).
    const yaw = azimuth - this.frontAzimuth, pitch = this.frontAltitude - altitude;
    this.yaw = (yaw - 2 * Math.PI * Math.round(yaw / 2 / Math.PI)) / DEG;
    this.pitch = (pitch - 2 * Math.PI * Math.round(pitch / 2 / Math.PI)) / DEG;
  }

  private applyBones(): void {
    const s = this.settings, yaw = this.yaw, pitch = this.pitch;
    // Pitch > 0 looks down (positive rotation about X turns +Z down), < 0 up.
    angles[0] = pitch < 0 ? -pitch : pitch;
    mapRange(pitch < 0 ? s.rangeMapVerticalUp : s.rangeMapVerticalDown, 0, 1);
    angles[2] = (pitch < 0 ? -angles[1] : angles[1]) * DEG;
    angles[0] = yaw < 0 ? -yaw : yaw;
    for (let e = 0; e < 2; e++) {
      const slot = this.eyeSlots[e];
      if (slot < 0) continue;
      // Yaw > 0 turns both eyes to the model's left: outward for the left eye, inward for the right.
      const outer = e === 0 ? yaw > 0 : yaw < 0;
      mapRange(outer ? s.rangeMapHorizontalOuter : s.rangeMapHorizontalInner, 0, 1);
      angles[3] = (yaw < 0 ? -angles[1] : angles[1]) * DEG;
      eulerYX(q, 0);
      // N = F · E · F⁻¹ in the model's frame; the eye's local rotation is P⁻¹ · N · P · rest.
      mulQuat(this.front, 0, q, 0, q, 4);
      conj(this.front, 0, q, 8);
      mulQuat(q, 4, q, 8, q, 0);
      mulQuat(q, 0, this.eyeParentRest, e * 4, q, 4);
      mulConjQuat(this.eyeParentRest, e * 4, q, 4, q, 0);
      mulQuat(q, 0, this.eyeRest, e * 4, this.pose.rotation, slot * 4);
      localToModel(this.hierarchy, this.pose, this.nodeMatrices, slot, this.eyeEnds[e]);
    }
  }

  /** lookUp/Down from pitch and lookLeft/Right from yaw, the other of each pair 0 (weights saturate at 1). */
  private applyExpressions(): void {
    const s = this.settings, yaw = this.yaw, pitch = this.pitch, w = this.expressions!.weights, look = this.lookExpressions;
    angles[0] = pitch < 0 ? -pitch : pitch;
    mapRange(pitch < 0 ? s.rangeMapVerticalUp : s.rangeMapVerticalDown, 0, 1);
    const vertical = angles[1] < 1 ? angles[1] : 1;
    if (look[0] >= 0) w[look[0]] = pitch < 0 ? vertical : 0;
    if (look[1] >= 0) w[look[1]] = pitch < 0 ? 0 : vertical;
    angles[0] = yaw < 0 ? -yaw : yaw;
    mapRange(s.rangeMapHorizontalOuter, 0, 1);
    const horizontal = angles[1] < 1 ? angles[1] : 1;
    if (look[2] >= 0) w[look[2]] = yaw < 0 ? 0 : horizontal;
    if (look[3] >= 0) w[look[3]] = yaw < 0 ? horizontal : 0;
  }
}

const head = new Float64Array(16);
const q = new Float64Array(12);
const v = new Float64Array(3);
/** Range-map input (0) and output (1), the eye's pitch (2) and yaw (3) in radians. */
const angles = new Float64Array(4);

/** dst = qY(angles[3]) · qX(angles[2]): three.js's Euler (x, y, 0) in YXZ order. */
function eulerYX(dst: Float64Array, o: number): void {
  const x = angles[2], y = angles[3];
  const cy = Math.cos(y / 2), sy = Math.sin(y / 2), cx = Math.cos(x / 2), sx = Math.sin(x / 2);
  dst[o] = cy * sx; dst[o + 1] = sy * cx; dst[o + 2] = -sy * sx; dst[o + 3] = cy * cx;
}

function conj(a: Float64Array, ao: number, dst: Float64Array, o: number): void {
  dst[o] = -a[ao]; dst[o + 1] = -a[ao + 1]; dst[o + 2] = -a[ao + 2]; dst[o + 3] = a[ao + 3];
}
