import { TargetPath } from '../gltf/constants.ts';
import type { Clip, Model } from '../gltf/model.ts';
import { createPose, type Pose } from './pose.ts';
import { createClipCursor, sampleClip, sampleCursor, type ClipCursor } from './sample.ts';

/**
 * Root motion: a clip that walks its root joint across the floor is turned into a clip
 * played in place plus a per-frame motion the caller applies to the character's world
 * transform, so a walking character really moves through the scene (and can be steered,
 * blended or stopped by collision without the mesh sliding off its transform).
 *
 * The motion M(t) of the root at clip time t is its translation's part across `up` (the
 * ground position p) and its twist about `up` (the yaw ψ), both in the root's parent
 * space. Motions are rigid transforms of the ground plane; composing, they act like 2-D
 * poses: (p₁, ψ₁) ∘ (p₂, ψ₂) = (p₁ + Rot(ψ₁) p₂, ψ₁ + ψ₂).
 *
 * Anchored at the clip's first frame M₀ = M(0), so that a character at rest keeps its
 * authored placement:
 *  - in place:  root local L'(t) = M₀ · M(t)⁻¹ · L(t): ground position p₀, yaw ψ₀, the
 *    vertical bob and all pitch/roll kept;
 *  - per frame: D = M₀ · M(a)⁻¹ · M(b) · M₀⁻¹ from clip time a to b, accumulated as
 *    W ← W · D. The deltas telescope, so W · L' reproduces the original L(t) (times every
 *    completed loop's displacement).
 * Times that wrap past the clip's end are split at the loop boundary: a → end, whole loops,
 * start → b (backwards for negative loops).
 */
export interface RootMotionTrack {
  /** The source clip's translation and rotation channels of the root only. */
  readonly clip: Clip;
  readonly rootSlot: number;
  /** Unit up axis in the root's parent space; the ground plane is across it. */
  readonly up: Float64Array;
  /** Motion (ground x y z, yaw) at the clip's start (0..3) and end (4..7). */
  readonly ends: Float64Array;
  /** The start's motion M₀ inverted (x y z yaw), and cos, sin of its yaw: every delta is conjugated by M₀. */
  readonly anchorInverse: Float64Array;
  readonly anchorTurn: Float64Array;
}

/** Offline: extracts the root's channels of `clip` and its motion at both ends. */
export function createRootMotionTrack(model: Model, clip: Clip, rootSlot: number, up: ArrayLike<number> = [0, 1, 0]): RootMotionTrack {
  const h = model.hierarchy;
  if (!Number.isInteger(rootSlot) || rootSlot < 0 || rootSlot >= h.count) throw new RangeError(`createRootMotionTrack: root slot ${rootSlot} is not in [0, ${h.count})`);
  if (h.useMatrix[rootSlot]) throw new RangeError('createRootMotionTrack: the root must be a TRS node, not a fixed matrix');
  const upLen = Math.hypot(up[0], up[1], up[2]);
  if (!(upLen > 0) || !Number.isFinite(upLen)) throw new RangeError('createRootMotionTrack: up must be a non-zero finite vector');
  const channels = clip.channels.filter((ch) => ch.slot === rootSlot && (ch.path === TargetPath.TRANSLATION || ch.path === TargetPath.ROTATION));
  const rootClip: Clip = { name: clip.name, duration: clip.duration, channels, timelines: clip.timelines };
  const track: RootMotionTrack = {
    clip: rootClip,
    rootSlot,
    up: Float64Array.of(up[0] / upLen, up[1] / upLen, up[2] / upLen),
    ends: new Float64Array(8),
    anchorInverse: new Float64Array(4),
    anchorTurn: new Float64Array(2),
  };
  const pose = createPose(model);
  const cursor = createClipCursor(rootClip);
  sampleClip(cursor, 0, pose);
  motionOf(track, pose, track.ends, 0);
  sampleClip(cursor, clip.duration, pose);
  motionOf(track, pose, track.ends, 4);
  invert(track.ends, 0, track.anchorInverse, 0, track.up);
  track.anchorTurn[0] = Math.cos(track.ends[3]);
  track.anchorTurn[1] = Math.sin(track.ends[3]);
  return track;
}

/** Ground position and yaw of the pose's root (by the track's root and up) into dst[o..o+3]. */
export function motionOf(track: RootMotionTrack, pose: Pose, dst: Float64Array, o: number): void {
  const up = track.up, ux = up[0], uy = up[1], uz = up[2];
  const T = pose.translation, R = pose.rotation, t = track.rootSlot * 3, r = track.rootSlot * 4;
  const h = T[t] * ux + T[t + 1] * uy + T[t + 2] * uz;
  dst[o] = T[t] - h * ux; dst[o + 1] = T[t + 1] - h * uy; dst[o + 2] = T[t + 2] - h * uz;
  // Twist of the rotation about up (swing-twist split): angle of (projection of xyz on up, w).
  dst[o + 3] = 2 * Math.atan2(R[r] * ux + R[r + 1] * uy + R[r + 2] * uz, R[r + 3]);
}

/**
 * Puts the pose's root in place: ground position back to the first frame's, yaw turned back
 * to the first frame's; height, pitch and roll untouched. Apply to the pose sampled at the
 * time the motion was taken up to. Allocates nothing.
 */
export function lockRootInPlace(track: RootMotionTrack, pose: Pose): void {
  const up = track.up, ux = up[0], uy = up[1], uz = up[2];
  const T = pose.translation, R = pose.rotation, t = track.rootSlot * 3, r = track.rootSlot * 4;
  const e = track.ends;
  const h = T[t] * ux + T[t + 1] * uy + T[t + 2] * uz;
  T[t] = e[0] + h * ux; T[t + 1] = e[1] + h * uy; T[t + 2] = e[2] + h * uz;
  const yaw = 2 * Math.atan2(R[r] * ux + R[r + 1] * uy + R[r + 2] * uz, R[r + 3]);
  const half = (e[3] - yaw) / 2;
  const s = Math.sin(half), dw = Math.cos(half), dx = ux * s, dy = uy * s, dz = uz * s;
  const bx = R[r], by = R[r + 1], bz = R[r + 2], bw = R[r + 3];
  R[r] = dw * bx + dx * bw + dy * bz - dz * by;
  R[r + 1] = dw * by - dx * bz + dy * bw + dz * bx;
  R[r + 2] = dw * bz + dx * by - dy * bx + dz * bw;
  R[r + 3] = dw * bw - dx * bx - dy * by - dz * bz;
}

// Scratch motions (x y z yaw each): 0 a, 4 b, 8 segment, 12 total, 16 whole loop, 20 temp.
const s = new Float64Array(24);
/** Scratch: the cosine and sine of the angle a turn about up is by. */
const cosSin = new Float64Array(2);
const A = 0, B = 4, SEG = 8, TOTAL = 12, LOOP = 16, TEMP = 20;

/**
 * Root motion between two clip times as one delta (x y z across up, then yaw in radians)
 * to accumulate into the character's world transform with `accumulateRootMotion`.
 * `fromTime` and `toTime` lie in [0, duration]; `loops` counts the times playback wrapped
 * in between (+1 past the end going forward, −1 past the start going backward) — what
 * `AnimationPlayer`-style wrapping produces. Times and loops are fields so the per-frame
 * call passes no double. Allocates nothing.
 */
export class RootMotionJob {
  fromTime = 0;
  toTime = 0;
  loops = 0;
  /**
   * The root's motion (x y z yaw, as `motionOf` gives it) at `fromTime` and at `toTime`, for a
   * caller that already has them from poses it sampled at those times: set `fromKnown` /
   * `toKnown` before `run` and it does not sample the root again. After `run`, `to` holds the
   * motion at `toTime` either way — the next step's `from`. Same numbers as sampling: a pose
   * sampled by any of the sampling jobs at a time has the same root there.
   */
  readonly from = new Float64Array(4);
  readonly to = new Float64Array(4);
  fromKnown = false;
  toKnown = false;

  constructor(
    readonly track: RootMotionTrack,
    /** A cursor of `track.clip`, used only by this job. */
    readonly cursor: ClipCursor,
    /** A pose used only by this job for sampling the root (`createPose(model)`). */
    readonly scratch: Pose,
    /** Output: x y z yaw. */
    readonly delta: Float64Array,
  ) {}

  /**
   * Checks that the cursor is of the track's clip and the scratch pose of its skeleton; throws a RangeError
   * otherwise. `run` calls it first.
   */
  validate(): void {
    const { track, cursor, scratch } = this;
    if (cursor.clip !== track.clip) throw new RangeError('RootMotionJob: the cursor is not of track.clip');
    if (scratch.rotation.length <= track.rootSlot * 4) throw new RangeError('RootMotionJob: the scratch pose is of a different skeleton');
    if (this.delta.length < 4) throw new RangeError('RootMotionJob: delta needs 4 values (x y z yaw)');
    const d = track.clip.duration;
    if (!(this.fromTime >= 0 && this.fromTime <= d) || !(this.toTime >= 0 && this.toTime <= d)) {
      throw new RangeError(`RootMotionJob: times ${this.fromTime} → ${this.toTime} must lie in [0, ${d}]`);
    }
    if (!Number.isInteger(this.loops)) throw new RangeError(`RootMotionJob: loops ${this.loops} is not an integer`);
  }

  /**
   * Computes the root's displacement and turn from `fromTime` to `toTime` (across `loops` wraps) into
   * `delta`.
   */
  run(): void {
    this.validate();
    const e = this.track.ends, up = this.track.up;
    const loops = this.loops;
    if (loops === 0) {
      this.motionAtFrom();
      this.motionAtTo();
      segment(s, A, B, TOTAL, up);
    } else {
      // First and last partial segments meet the loop boundary at the clip's end or start.
      const forward = loops > 0;
      this.motionAtFrom();
      copyMotion(e, forward ? 4 : 0, s, B);
      segment(s, A, B, TOTAL, up);
      copyMotion(e, forward ? 0 : 4, s, A);
      copyMotion(e, forward ? 4 : 0, s, B);
      segment(s, A, B, LOOP, up);
      for (let i = 1; i < (forward ? loops : -loops); i++) compose(s, TOTAL, LOOP, TOTAL, up);
      copyMotion(e, forward ? 0 : 4, s, A);
      this.motionAtTo();
      segment(s, A, B, SEG, up);
      compose(s, TOTAL, SEG, TOTAL, up);
    }
    // Conjugate by the anchor: D = M₀ · S · M₀⁻¹ (M₀'s turn and inverse made with the track).
    copyMotion(e, 0, s, A);
    composeTurned(s, A, TOTAL, TOTAL, up, this.track.anchorTurn, 0);
    copyMotion(this.track.anchorInverse, 0, s, TEMP);
    compose(s, TOTAL, TEMP, TOTAL, up);
    const d = this.delta;
    d[0] = s[TOTAL]; d[1] = s[TOTAL + 1]; d[2] = s[TOTAL + 2]; d[3] = s[TOTAL + 3];
  }

  /** The motion at `fromTime` into s[A]: given, or sampled. */
  private motionAtFrom(): void {
    if (this.fromKnown) {
      copyMotion(this.from, 0, s, A);
    } else {
      this.cursor.time = this.fromTime;
      this.sample(A);
    }
  }

  /** The motion at `toTime` into s[B] and `to`: given, or sampled. */
  private motionAtTo(): void {
    if (this.toKnown) {
      copyMotion(this.to, 0, s, B);
    } else {
      this.cursor.time = this.toTime;
      this.sample(B);
      copyMotion(s, B, this.to, 0);
    }
  }

  /** Motion at `cursor.time` into s[o..] (the time goes through the cursor, not an argument). */
  private sample(o: number): void {
    sampleCursor(this.cursor, this.scratch);
    motionOf(this.track, this.scratch, s, o);
  }
}

/**
 * world ← world · delta, for a world transform kept as x y z yaw (about `track.up`), e.g.
 * starting at the character's spawn point. Allocates nothing.
 */
export function accumulateRootMotion(track: RootMotionTrack, delta: Float64Array, world: Float64Array): void {
  copyMotion(delta, 0, s, TEMP);
  copyMotion(world, 0, s, A);
  compose(s, A, TEMP, A, track.up);
  copyMotion(s, A, world, 0);
}

/** The 4×4 column-major matrix of a world motion (x y z yaw): rotate by yaw about up, then translate. */
export function rootMotionMatrix(track: RootMotionTrack, world: Float64Array, dst: Float64Array): Float64Array {
  const up = track.up, x = up[0], y = up[1], z = up[2];
  const c = Math.cos(world[3]), sn = Math.sin(world[3]), t = 1 - c;
  dst[0] = t * x * x + c; dst[1] = t * x * y + sn * z; dst[2] = t * x * z - sn * y; dst[3] = 0;
  dst[4] = t * x * y - sn * z; dst[5] = t * y * y + c; dst[6] = t * y * z + sn * x; dst[7] = 0;
  dst[8] = t * x * z + sn * y; dst[9] = t * y * z - sn * x; dst[10] = t * z * z + c; dst[11] = 0;
  dst[12] = world[0]; dst[13] = world[1]; dst[14] = world[2]; dst[15] = 1;
  return dst;
}

function copyMotion(src: Float64Array, so: number, dst: Float64Array, o: number): void {
  dst[o] = src[so]; dst[o + 1] = src[so + 1]; dst[o + 2] = src[so + 2]; dst[o + 3] = src[so + 3];
}

/** dst = M(a)⁻¹ · M(b): b seen from a, yaw difference wrapped to (−π, π]. */
function segment(m: Float64Array, a: number, b: number, dst: number, up: Float64Array): void {
  m[TEMP] = m[b] - m[a]; m[TEMP + 1] = m[b + 1] - m[a + 1]; m[TEMP + 2] = m[b + 2] - m[a + 2];
  let yaw = m[b + 3] - m[a + 3];
  yaw -= 2 * Math.PI * Math.round(yaw / (2 * Math.PI));
  m[TEMP + 3] = -m[a + 3];
  rotateAboutUp(m, TEMP, up, dst);
  m[dst + 3] = yaw;
}

/** dst = m[a] ∘ m[b]; dst may be a or b. */
function compose(m: Float64Array, a: number, b: number, dst: number, up: Float64Array): void {
  const ayaw = m[a + 3];
  cosSin[0] = Math.cos(ayaw);
  cosSin[1] = Math.sin(ayaw);
  composeTurned(m, a, b, dst, up, cosSin, 0);
}

/** compose, with m[a]'s yaw also given as its cosine and sine, cs[i] and cs[i + 1]. */
function composeTurned(m: Float64Array, a: number, b: number, dst: number, up: Float64Array, cs: Float64Array, i: number): void {
  const ax = m[a], ay = m[a + 1], az = m[a + 2], ayaw = m[a + 3], byaw = m[b + 3];
  m[TEMP] = m[b]; m[TEMP + 1] = m[b + 1]; m[TEMP + 2] = m[b + 2];
  turnAboutUp(m, TEMP, up, dst, cs, i);
  m[dst] += ax; m[dst + 1] += ay; m[dst + 2] += az;
  m[dst + 3] = ayaw + byaw;
}

/** dst = inverse of the motion src[o]: (Rot(−ψ)(−p), −ψ). */
function invert(src: Float64Array, o: number, m: Float64Array, dst: number, up: Float64Array): void {
  m[dst] = -src[o]; m[dst + 1] = -src[o + 1]; m[dst + 2] = -src[o + 2]; m[dst + 3] = -src[o + 3];
  rotateAboutUp(m, dst, up, dst);
}

/** m[dst..dst+2] = the vector m[o..o+2] turned by the angle m[o+3] about up (Rodrigues); m[dst+3] untouched unless dst = o. */
function rotateAboutUp(m: Float64Array, o: number, up: Float64Array, dst: number): void {
  const angle = m[o + 3];
  cosSin[0] = Math.cos(angle);
  cosSin[1] = Math.sin(angle);
  turnAboutUp(m, o, up, dst, cosSin, 0);
}

/**
 * rotateAboutUp by an angle given as its cosine and sine, cs[i] and cs[i + 1] (in an array:
 * V8 boxes doubles passed to a call it does not inline).
 */
function turnAboutUp(m: Float64Array, o: number, up: Float64Array, dst: number, cs: Float64Array, i: number): void {
  const c = cs[i], sn = cs[i + 1];
  const x = m[o], y = m[o + 1], z = m[o + 2];
  const ux = up[0], uy = up[1], uz = up[2];
  const d = (ux * x + uy * y + uz * z) * (1 - c);
  m[dst] = x * c + (uy * z - uz * y) * sn + ux * d;
  m[dst + 1] = y * c + (uz * x - ux * z) * sn + uy * d;
  m[dst + 2] = z * c + (ux * y - uy * x) * sn + uz * d;
}
