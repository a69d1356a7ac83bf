import { TargetPath } from '../gltf/constants.ts';
import type { Model } from '../gltf/model.ts';
import { invertMat4, length3, multiplyMat4, setIdentity } from '../math/trs.ts';
import { restWorldMatrices } from './local-to-model.ts';
import { createPose } from './pose.ts';
import { createRootMotionTrack, RootMotionJob, rootMotionMatrix, type RootMotionTrack } from './root-motion.ts';
import { createClipCursor } from './sample.ts';

/**
 * Root motion in model space, shared by Crowd and the viewer's one walking character
 * (ViewerStage): finding a clip's root motion and stepping, applying and steering it. Its own
 * module so that a page drawing one character does not load the crowd (first load).
 */

/**
 * A clip's root moves less than this (model units, across the ground) and turns less than
 * ROOT_MOTION_MIN_YAW over one loop: it plays in place, and has no root motion to extract.
 */
const ROOT_MOTION_MIN_DISTANCE = 1e-5;
const ROOT_MOTION_MIN_YAW = 1e-5;

/**
 * Root motion of one clip, in model space: the track (in the root's parent space) plus
 * the parent's rest world matrix P and its inverse, so a delta D taken in the parent's
 * space moves the model by P · D · P⁻¹.
 */
export interface CrowdRootMotion {
  readonly track: RootMotionTrack;
  readonly job: RootMotionJob;
  readonly parentWorld: Float64Array;
  readonly parentWorldInverse: Float64Array;
}

/**
 * Finds the root motion of `model.animations[clip]`: the highest joint whose translation
 * the clip animates is taken as the root, and it has root motion when it ends the loop
 * somewhere else on the ground, or turned. Undefined for clips that play in place.
 * Load-time only (allocates).
 */
export function findRootMotion(model: Model, clip: number, parentWorlds: Float64Array): CrowdRootMotion | undefined {
  const c = model.animations[clip];
  const h = model.hierarchy;
  let root = -1;
  for (const ch of c.channels) {
    if (ch.path !== TargetPath.TRANSLATION || h.useMatrix[ch.slot]) continue;
    if (root < 0 || ch.slot < root) root = ch.slot;
  }
  if (root < 0) return undefined;
  // Up (+Y in model space) seen from the root's parent: the parent's 3×3 transposed applied to +Y, normalised.
  const parentWorld = new Float64Array(16);
  const parent = h.parentSlot[root];
  if (parent >= 0) parentWorld.set(parentWorlds.subarray(parent * 16, parent * 16 + 16));
  else setIdentity(parentWorld);
  const parentWorldInverse = new Float64Array(16);
  if (!invertMat4(parentWorld, parentWorldInverse)) return undefined;
  const up = [parentWorld[1], parentWorld[5], parentWorld[9]];
  const track = createRootMotionTrack(model, c, root, up);
  const e = track.ends;
  const distance = Math.hypot(e[4] - e[0], e[5] - e[1], e[6] - e[2]);
  let yaw = e[7] - e[3];
  yaw -= 2 * Math.PI * Math.round(yaw / (2 * Math.PI));
  if (distance < ROOT_MOTION_MIN_DISTANCE && Math.abs(yaw) < ROOT_MOTION_MIN_YAW) return undefined;
  const job = new RootMotionJob(track, createClipCursor(track.clip), createPose(model), new Float64Array(4));
  return { track, job, parentWorld, parentWorldInverse };
}

/**
 * Every clip's root motion (findRootMotion), each root's parent placed by the rest pose's world
 * matrices (restWorldMatrices): the one table a crowd and the viewer's walking character share.
 * Found again when the rest pose changes. Load-time only (allocates).
 */
export function findRootMotions(model: Model): (CrowdRootMotion | undefined)[] {
  const rest = restWorldMatrices(model.hierarchy);
  return model.animations.map((_, i) => findRootMotion(model, i, rest));
}

// Per-frame scratch: three 4×4 matrices.
const motion = new Float64Array(16);
const conjugated = new Float64Array(16);
const turned = new Float64Array(16);

/** Fields of the clock `rootMotionStep` reads. */
export const RootMotionClock = {
  /** Clip time where the step starts and where it ends (both wrapped into the clip). */
  PREVIOUS: 0,
  TIME: 1,
  /** Seconds of clip time the step took (dt × speed), which may cross loop boundaries. */
  STEP: 2,
  /** The clip's duration. */
  DURATION: 3,
} as const;
const { PREVIOUS, TIME, STEP, DURATION } = RootMotionClock;

/**
 * placements[k] ← placements[k] · P · D · P⁻¹: a root-motion delta D (x y z yaw, as
 * `RootMotionJob` gives it), taken in the root's parent space, applied in model space.
 * Writes the ground distance moved to `moved[k]` (an array, not a return value, so the
 * per-frame call passes no double). Allocates nothing.
 */
export function applyRootMotion(m: CrowdRootMotion, delta: Float64Array, placements: Float64Array, k: number, moved: Float64Array): void {
  rootMotionMatrix(m.track, delta, motion);
  multiplyMat4(m.parentWorld, motion, conjugated);
  multiplyMat4(conjugated, m.parentWorldInverse, conjugated);
  moved[k] = length3(conjugated[12], conjugated[13], conjugated[14]);
  multiplyMat4(placements, conjugated, placements, k * 16, 0, k * 16);
}

/**
 * One root-motion step, the one Crowd and the viewer's single walking character (ViewerStage)
 * take: the root's motion from clip time clock[PREVIOUS] to clock[TIME] (clock[STEP] seconds of
 * clip time, which may cross loop boundaries of a clip clock[DURATION] long) into `delta`
 * (x y z yaw). The loop count is what lies between the unwrapped and the wrapped time, rounded,
 * so it agrees with the wrap at the boundaries. Times travel in `clock` because V8 boxes doubles
 * passed to calls it does not inline. Allocates nothing.
 */
export function rootMotionStep(m: CrowdRootMotion, clock: Float64Array, delta: Float64Array): void {
  const job = m.job;
  const previous = clock[PREVIOUS], time = clock[TIME], duration = clock[DURATION];
  job.fromTime = previous;
  job.toTime = time;
  job.loops = duration > 0 ? Math.round((previous + clock[STEP] - time) / duration) : 0;
  job.run();
  const d = job.delta;
  delta[0] = d[0]; delta[1] = d[1]; delta[2] = d[2]; delta[3] = d[3];
}

/**
 * placements[k] ← placements[k] · RotY(turns[k]): instance k turned about its own up axis,
 * through its model origin (steering). The angle is read from `turns[k]` so the per-frame call
 * passes no double. Allocates nothing.
 */
export function turnPlacement(placements: Float64Array, k: number, turns: Float64Array): void {
  const yaw = turns[k];
  const c = Math.cos(yaw), s = Math.sin(yaw);
  setIdentity(turned);
  turned[0] = c; turned[2] = -s; turned[8] = s; turned[10] = c;
  multiplyMat4(placements, turned, placements, k * 16, 0, k * 16);
}
