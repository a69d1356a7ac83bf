import type { Model } from '../../gltf/model.ts';
import { localToModel } from '../local-to-model.ts';
import type { MaterialAnimation } from '../material-tracks.ts';
import { createPose, type Pose } from '../pose.ts';
import { findKey, sampleVector } from '../sample.ts';
import { Interpolation } from '../../gltf/constants.ts';
import { slerpQuat } from '../../math/quat.ts';
import { ExpressionJob } from './expressions.ts';
import { LookAtJob } from './look-at.ts';
import { NodeConstraintJob } from './node-constraints.ts';
import { SpringBoneJob } from './spring-bones.ts';

/** How the spring bones are stepped: by each frame's dt, or in fixed steps (deterministic for a given frame sequence). */
export type SpringStepMode = 'variable' | 'fixed';

/** Most fixed steps one frame takes; a longer frame drops the rest of its time (no spiral after a stall). */
export const MAX_FIXED_STEPS = 8;

/**
 * The VRM steps of one posed model, run between the pose and the palettes in three-vrm's
 * order: look-at (eyes, or the look expressions), expressions (morph weights and material
 * values), node constraints, spring bones. `createModelInstance` makes one for a model with
 * VRM data and `updateMatricesAndPalettes` runs it, so the player, crowds and bake need no
 * per-frame glue; `dt` is what the springs step by this time (the player sets it from its
 * update; 0 holds them where they are). Everything is sized here; `run` allocates nothing.
 */
export class VrmRuntime {
  /** Seconds the spring bones advance in the next `run`. */
  dt = 0;
  /** World matrix of the model (16, column-major), shared by the springs and the look-at. */
  readonly worldFromModel: Float64Array;
  springMode: SpringStepMode = 'variable';
  /** The step of the fixed mode, in seconds. */
  fixedStep = 1 / 60;
  /** Seconds the last spring step advanced (0 before any): a tail's last move over it is the tail's speed. */
  lastSpringStep = 0;
  /** Off: the spring joints keep what the pose gives them. Turning them back on resets them. */
  springsEnabled = true;
  /**
   * The playing clip (index into the model's animations, -1 none) and its time, set by the player:
   * a VRM animation clip's expression tracks set those expressions' weights, its look-at track the gaze.
   */
  clip = -1;
  time = 0;

  readonly expressions: ExpressionJob;
  readonly lookAt: LookAtJob | undefined;
  readonly constraints: NodeConstraintJob | undefined;
  readonly springs: SpringBoneJob | undefined;

  /** Whether `updateNodeMatrices` may leave the spring nodes to the springs (see there). */
  private readonly leavesSpringNodes: boolean;
  private accumulator = 0;
  private springsWereEnabled = true;
  /** Per clip, per expression track: the expression's index (-1 when the model has none of that name); and the key hints. */
  private readonly trackExpression: Int32Array[];
  private readonly trackHints: Int32Array[];
  private lookAtHint = 0;
  private readonly at = { time: 0 };

  constructor(readonly model: Model, readonly pose: Pose, readonly nodeMatrices: Float64Array, materials?: MaterialAnimation) {
    const vrm = model.vrm;
    if (!vrm) throw new RangeError(`VrmRuntime: ${model.name} has no VRM data`);
    const h = model.hierarchy;
    this.springs = vrm.springBones ? new SpringBoneJob(h, vrm.springBones, pose, nodeMatrices) : undefined;
    this.worldFromModel = this.springs?.worldFromModel ?? new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    this.expressions = new ExpressionJob(model, pose, materials);
    this.constraints = vrm.constraints.length > 0 ? new NodeConstraintJob(h, vrm.constraints, pose, nodeMatrices) : undefined;
    const head = model.humanoid?.head;
    if (vrm.lookAt && head !== undefined) {
      const rest = localToModel(h, createPose(model), new Float64Array(h.count * 16));
      this.lookAt = new LookAtJob(
        h, vrm.lookAt, pose, nodeMatrices,
        { head, leftEye: model.humanoid?.leftEye ?? -1, rightEye: model.humanoid?.rightEye ?? -1 },
        this.expressions, rest, this.worldFromModel,
      );
    } else {
      this.lookAt = undefined;
    }
    this.trackExpression = model.animations.map((c) => Int32Array.from(c.expressionTracks ?? [], (t) => this.expressions.find(t.name)));
    this.trackHints = model.animations.map((c) => new Int32Array(c.expressionTracks?.length ?? 0));
    this.leavesSpringNodes = this.springs !== undefined && this.springs.startCache.usable && !readsSpringNodes(model, this.springs.startCache.outsideRuns);
    this.springs?.validate();
    this.constraints?.validate();
    this.lookAt?.validate();
  }

  /** Expression names, in the model's order. */
  get expressionNames(): string[] {
    return this.expressions.names;
  }

  /** Puts the spring bones' tails back at rest in the next run (after a teleport). */
  resetSpringBones(): void {
    this.springs?.reset();
    this.accumulator = 0;
  }

  /**
   * The pose's node matrices for `run`: localToModel, leaving out the nodes the spring bones
   * rewrite while every input of them is as in the springs' last run (SpringStartCache: the
   * model moved through `worldFromModel`, a still or paused pose, a clip that leaves the body
   * above the hair alone), so they are computed once a frame instead of twice: those nodes
   * already hold their matrices. Only where the springs are on and nothing before them reads
   * those nodes (look-at and constraint nodes outside the springs; a parents-first joint
   * order). Call `run` right after it.
   */
  updateNodeMatrices(): void {
    const h = this.model.hierarchy, springs = this.springs, M = this.nodeMatrices;
    if (springs === undefined || !this.springsEnabled || !this.leavesSpringNodes) {
      localToModel(h, this.pose, M);
      if (springs) springs.startCache.valid = false;
      return;
    }
    const cache = springs.startCache;
    const outside = cache.outsideRuns;
    for (let i = 0; i < outside.length; i += 2) localToModel(h, this.pose, M, outside[i], outside[i + 1]);
    if (!cache.unchanged(M)) {
      const inside = cache.insideRuns;
      for (let i = 0; i < inside.length; i += 2) localToModel(h, this.pose, M, inside[i], inside[i + 1]);
    }
    springs.springNodesChecked = true;
  }

  /** The VRM steps over the node matrices of the current pose (`updateNodeMatrices`, or localToModel). */
  run(): void {
    try {
      this.runSteps();
    } finally {
      if (this.springs) this.springs.springNodesChecked = false;
    }
  }

  private runSteps(): void {
    if (this.clip >= 0) this.playClipTracks();
    this.lookAt?.run();
    this.expressions.run();
    this.constraints?.run();
    const springs = this.springs;
    if (!springs) return;
    if (!this.springsEnabled) {
      this.springsWereEnabled = false;
      return;
    }
    if (!this.springsWereEnabled) {
      this.springsWereEnabled = true;
      this.resetSpringBones();
    }
    if (this.springMode === 'variable') {
      springs.dt = this.dt;
      springs.run();
      if (this.dt > 0) this.lastSpringStep = this.dt;
      return;
    }
    this.accumulator += this.dt > 0 ? this.dt : 0;
    const h = this.fixedStep;
    let steps = 0;
    while (this.accumulator >= h && steps < MAX_FIXED_STEPS) {
      springs.dt = h;
      springs.run();
      this.accumulator -= h;
      this.lastSpringStep = h;
      steps++;
    }
    if (steps === MAX_FIXED_STEPS) this.accumulator = 0;
    if (steps === 0) {
      // No whole step yet: the hair holds where it is.
      springs.dt = 0;
      springs.run();
    }
  }

  /** A VRM animation clip's expression weights and gaze at `time` (three-vrm-animation's meanings). */
  private playClipTracks(): void {
    const clip = this.model.animations[this.clip];
    const tracks = clip.expressionTracks;
    this.at.time = this.time;
    if (tracks) {
      const indices = this.trackExpression[this.clip], hints = this.trackHints[this.clip];
      for (let i = 0; i < tracks.length; i++) {
        if (indices[i] < 0) continue;
        const s = tracks[i].sampler;
        hints[i] = findKey(s.times, this.at, hints[i]);
        sampleVector(s, hints[i], this.at, sampled, 0);
        const w = sampled[0];
        this.expressions.weights[indices[i]] = w > 0 ? (w < 1 ? w : 1) : 0;
      }
    }
    const gaze = clip.lookAtTrack;
    const lookAt = this.lookAt;
    if (gaze && lookAt) {
      const k = (this.lookAtHint = findKey(gaze.times, this.at, this.lookAtHint));
      const times = gaze.times, n = times.length;
      if (gaze.interpolation !== Interpolation.LINEAR || k >= n - 1 || this.time <= times[k]) {
        sampleVector(gaze, k, this.at, sampled, 0);
      } else {
        // Slerp between the two keys, as rotation channels sample (the shortest arc).
        fraction[0] = (this.time - times[k]) / (times[k + 1] - times[k]);
        slerpQuat(gaze.values, k * 4, gaze.values, k * 4 + 4, fraction, 0, sampled, 0);
      }
      lookAt.setGazeRotation(sampled);
    }
  }
}

/** Whether the look-at or a constraint reads or writes a node the springs rewrite (one not in `outsideRuns`). */
function readsSpringNodes(model: Model, outsideRuns: Int32Array): boolean {
  const h = model.hierarchy, outside = new Uint8Array(h.count);
  for (let i = 0; i < outsideRuns.length; i += 2) outside.fill(1, outsideRuns[i], outsideRuns[i + 1]);
  const nodes: number[] = [];
  const vrm = model.vrm!;
  if (vrm.lookAt) nodes.push(model.humanoid?.head ?? -1, model.humanoid?.leftEye ?? -1, model.humanoid?.rightEye ?? -1);
  for (const c of vrm.constraints) nodes.push(c.node, c.source);
  return nodes.some((node) => {
    const s = node >= 0 ? h.slotOf[node] : -1;
    return s >= 0 && (outside[s] === 0 || (h.parentSlot[s] >= 0 && outside[h.parentSlot[s]] === 0));
  });
}

/** Track values sampled by `playClipTracks` (a weight, or a gaze quaternion), and a slerp fraction. */
const sampled = new Float64Array(4);
const fraction = new Float64Array(1);
