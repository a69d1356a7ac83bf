import type { Model } from '../gltf/model.ts';
import { setIdentity } from '../math/trs.ts';
import { createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, type InstanceBatch } from './batch.ts';
import { BlendingJob } from './blend.ts';
import type { ModelInstance } from './instance.ts';
import { wrapLoopTime, wrapLoopTimeIn } from './loop-time.ts';
import { createPose, setRestPose, type Pose } from './pose.ts';
import { applyRootMotion, findRootMotions, RootMotionClock, rootMotionStep, turnPlacement, type CrowdRootMotion } from './crowd-root-motion.ts';
import { lockRootInPlace, motionOf } from './root-motion.ts';
import { sampleCursor } from './sample.ts';

/**
 * Where a crowd's poses are evaluated: on the CPU batch here, or on the GPU (GpuCrowd,
 * src/crowd/, whose evaluator reads the clocks this crowd keeps).
 */
export type CrowdPoses = 'cpu' | 'gpu';

// Per-frame scratch: a root-motion delta (x y z yaw) and the times handed to `rootMotionStep`.
const delta = new Float64Array(4);
const clock = new Float64Array(4);
const { PREVIOUS, TIME, STEP, DURATION } = RootMotionClock;

/**
 * Many instances of one model, each playing its own clip at its own time and speed, with
 * its own crossfade and its own world transform (its placement) — a crowd drawn with one
 * instanced draw per primitive by `Renderer.renderCrowd`.
 *
 * `update(dt)` evaluates the first `count` instances allocating nothing, on an
 * `InstanceBatch` (the WebAssembly SIMD pose path, batch.ts): advance the clocks, sample
 * every instance in one batch call, lock roots and blend crossfades in JS (only fading
 * instances sample a second clip), then node matrices and palettes in one batch call. The
 * palettes of all instances live back to back in `palettes` (each instance's `palette` is
 * a view into it), the layout of the renderer's palette storage buffer; `placements` (doubles)
 * are what `renderInstances` takes, rounded to float32 only where the frame packs them.
 *
 * Root motion: for clips whose root travels (see `findRootMotion`), the root joint is kept
 * in place and the instance's placement moves instead, by the root's motion since the last
 * frame — so a crowd walks through the scene. Set `rootMotion = false` to play such clips
 * in place (the root joint stays at its first frame's ground position).
 * Playback always loops; override/additive layers are `AnimationPlayer`'s, not the crowd's.
 *
 * With `poses` 'gpu' (GpuCrowd, src/crowd/, whose GpuPoseEvaluator reads the clocks kept
 * here) `update` advances the same clocks and root motion but evaluates no pose: `palettes`
 * then holds instance 0's only, and every entry of `instances` is instance 0 in the rest pose
 * (material animation is per model). Root motion stays on the CPU, sampling only the root's
 * channels; placements must stay turns about +Y (as `setPlacement`, `turn` and root motion
 * keep them). Nothing here needs a GPU: a CPU crowd loads no GPU code.
 */
export class Crowd {
  /** Instances evaluated and drawn; at most `capacity`. */
  count: number;
  /** Move placements by the root motion of clips that have one (else play them in place). */
  rootMotion = true;
  readonly instances: readonly ModelInstance[];
  /** Joint matrices of one instance (all its skinned mesh nodes). */
  readonly paletteMatrices: number;
  /** Every instance's palettes, instance k's from float k × paletteMatrices × 16. */
  readonly palettes: Float32Array;
  /** Playing clip per instance (-1: rest pose). */
  readonly clip: Int32Array;
  /** Seconds into the playing clip, in [0, duration). */
  readonly time: Float64Array;
  /** Playback rate per instance; negative plays backwards. */
  readonly speed: Float64Array;
  /** Model → world, 16 doubles per instance, column-major; root motion accumulates here. */
  readonly placements: Float64Array;
  /** Ground distance each instance's root motion carried it in the last `update`. */
  readonly moved: Float64Array;
  /** Root motion by clip, undefined for clips that play in place. */
  readonly rootMotions: readonly (CrowdRootMotion | undefined)[];
  /** Where the instances live and are evaluated; its `clips` and `times` are written by `update`. */
  readonly batch: InstanceBatch;
  /** Where poses are evaluated. */
  readonly evaluator: CrowdPoses;

  private readonly durations: Float64Array;
  // The crossfades, for an evaluator elsewhere to read (GpuCrowd).
  /** Per instance, the clip fading out (-1: none). */
  protected readonly fromClip: Int32Array;
  /** Per instance, seconds into the clip fading out. */
  protected readonly fromTime: Float64Array;
  /** Per instance, seconds since its crossfade started, and how long it lasts (weight: elapsed / duration). */
  protected readonly fadeElapsed: Float64Array;
  protected readonly fadeDuration: Float64Array;
  /** Per instance, this update's clip time and faded-out clip time before the step (for root motion). */
  private readonly previousTime: Float64Array;
  private readonly fromPreviousTime: Float64Array;
  /**
   * Per instance, its root's motion (x y z yaw) at the end of its last root-motion step: of
   * clip `motionClip[k]` at time `motionTime[k]` (-1: none). The next step starts there, so
   * the root is not sampled again; a cut to another time simply misses.
   */
  private readonly motionAt: Float64Array;
  private readonly motionClip: Int32Array;
  private readonly motionTime: Float64Array;
  /** Shared by every instance: the faded-out clip's pose, sampled just before blending. */
  private readonly fromPose: Pose;
  /** Per instance: fromPose → its pose. */
  private readonly blends: readonly BlendingJob[];

  /**
   * `poses`: 'cpu' (default) evaluates them on the batch; 'gpu' leaves them to an evaluator that
   * reads the clocks (GpuCrowd). `rootMotions`: each clip's root motion (findRootMotions of this
   * model) when another user of the model has the table already (the viewer's stage
   * shares its own); default: found here.
   */
  constructor(readonly model: Model, readonly capacity: number, poses: CrowdPoses = 'cpu', rootMotions?: readonly (CrowdRootMotion | undefined)[]) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Crowd: capacity ${capacity} must be an integer ≥ 1`);
    if (poses !== 'cpu' && poses !== 'gpu') throw new RangeError(`Crowd: poses ${String(poses)} is not 'cpu' or 'gpu'`);
    if (rootMotions && rootMotions.length !== model.animations.length) {
      throw new RangeError(`Crowd: rootMotions has ${rootMotions.length} entries; the model has ${model.animations.length} clips`);
    }
    this.evaluator = poses;
    // Created in the rest pose; mesh-relative palettes, as updateMatricesAndPalettes gives.
    // On the GPU the batch holds instance 0 only: material animation and the rest pose's node matrices.
    this.batch = createInstanceBatch(model, this.evaluator === 'gpu' ? 1 : capacity);
    const instances = this.batch.instances;
    this.paletteMatrices = this.batch.paletteMatrixCount;
    this.palettes = this.batch.palette;
    this.instances = this.evaluator === 'gpu' ? new Array<ModelInstance>(capacity).fill(instances[0]) : instances;
    this.fromPose = createPose(model);
    this.blends = instances.map((instance) => new BlendingJob(this.fromPose, instance.pose, instance.pose));
    this.count = capacity;
    this.clip = new Int32Array(capacity).fill(model.animations.length > 0 ? 0 : -1);
    this.time = new Float64Array(capacity);
    this.speed = new Float64Array(capacity).fill(1);
    this.placements = new Float64Array(capacity * 16);
    for (let k = 0; k < capacity; k++) setIdentity(this.placements, k * 16);
    this.moved = new Float64Array(capacity);
    this.durations = Float64Array.from(model.animations, (c) => c.duration);
    this.fromClip = new Int32Array(capacity).fill(-1);
    this.fromTime = new Float64Array(capacity);
    this.fadeElapsed = new Float64Array(capacity);
    this.fadeDuration = new Float64Array(capacity);
    this.previousTime = new Float64Array(capacity);
    this.fromPreviousTime = new Float64Array(capacity);
    this.motionAt = new Float64Array(capacity * 4);
    this.motionClip = new Int32Array(capacity).fill(-1);
    this.motionTime = new Float64Array(capacity);
    this.rootMotions = rootMotions ?? findRootMotions(model);
  }

  /**
   * A VRM crowd's per-instance VRM steps: each instance's spring bones step by `dt` in its own
   * world (its placement), so every avatar's hair swings with its own walk; a VRM animation
   * clip's expression and look-at tracks follow each instance's clock. Allocates nothing.
   */
  private prepareVrm(dt: number, n: number): void {
    const p = this.placements;
    for (let k = 0; k < n; k++) {
      const vrm = this.instances[k].vrm;
      if (vrm === undefined) continue;
      vrm.dt = dt;
      vrm.clip = this.clip[k];
      vrm.time = this.time[k];
      const w = vrm.worldFromModel, o = k * 16;
      for (let i = 0; i < 16; i++) w[i] = p[o + i];
    }
  }

  /** Cuts instance k to `clip` (-1: rest pose) at `time` seconds (wrapped into the clip). */
  play(k: number, clip: number, time = 0): void {
    this.checkInstance(k);
    if (clip !== -1) this.checkClip(clip);
    this.clip[k] = clip;
    this.time[k] = clip < 0 ? 0 : wrapLoopTime(time, this.durations[clip]);
    this.fromClip[k] = -1;
  }

  /**
   * Blends instance k from what it plays now to `clip` over `seconds`, as
   * `AnimationPlayer.crossfadeTo` does: the old clip keeps playing while its weight falls
   * linearly to 0; the new one starts at `time`.
   */
  crossfade(k: number, clip: number, seconds: number, time = 0): void {
    this.checkInstance(k);
    this.checkClip(clip);
    if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError(`Crowd.crossfade: duration ${seconds} must be a finite number ≥ 0`);
    if (seconds === 0 || this.clip[k] < 0) {
      this.play(k, clip, time);
      return;
    }
    this.fromClip[k] = this.clip[k];
    this.fromTime[k] = this.time[k];
    this.fadeElapsed[k] = 0;
    this.fadeDuration[k] = seconds;
    this.clip[k] = clip;
    this.time[k] = wrapLoopTime(time, this.durations[clip]);
  }

  /** True while instance k blends two clips. */
  fading(k: number): boolean {
    return this.fromClip[k] >= 0 && this.fadeElapsed[k] < this.fadeDuration[k];
  }

  /** Places instance k at (x, y, z), turned `yaw` radians about +Y (0: as modelled). */
  setPlacement(k: number, x: number, y: number, z: number, yaw: number): void {
    this.checkInstance(k);
    const p = this.placements, o = k * 16;
    const c = Math.cos(yaw), s = Math.sin(yaw);
    setIdentity(p, o);
    p[o] = c; p[o + 2] = -s; p[o + 8] = s; p[o + 10] = c;
    p[o + 12] = x; p[o + 13] = y; p[o + 14] = z;
    this.placementChanged(k);
    this.teleported(k);
  }

  /**
   * Places the first `count` instances on a square grid `spacing` apart, centred on the
   * origin, all facing +Z (row by row, first row at −Z). Returns the ground area the grid
   * covers, minX minZ maxX maxZ (each cell's full width, so wrapping keeps the spacing), in `area`.
   */
  placeOnGrid(spacing: number, area = new Float64Array(4)): Float64Array {
    const n = Math.max(1, this.count);
    const columns = Math.ceil(Math.sqrt(n)), rows = Math.ceil(n / columns);
    for (let k = 0; k < this.count; k++) {
      this.setPlacement(k, ((k % columns) - (columns - 1) / 2) * spacing, 0, (Math.floor(k / columns) - (rows - 1) / 2) * spacing, 0);
    }
    area[0] = (-columns / 2) * spacing; area[1] = (-rows / 2) * spacing;
    area[2] = (columns / 2) * spacing; area[3] = (rows / 2) * spacing;
    return area;
  }

  /**
   * Turns instance k by `yaw` radians about its own up axis, through its model origin
   * (steering). `yaw` is read from `turns[k]` so the per-frame call passes no double.
   */
  turn(k: number, turns: Float64Array): void {
    if (turns[k] === 0) return;
    turnPlacement(this.placements, k, turns);
    this.placementChanged(k);
  }

  /**
   * Keeps every placement's ground position (x, z) inside [minX, maxX) × [minZ, maxZ) by
   * wrapping around, like a treadmill: a crowd walking off one edge comes back at the other.
   * The bounds are fields of `area` (minX minZ maxX maxZ) so the per-frame call passes no double.
   */
  wrapPlacements(area: Float64Array): void {
    const minX = area[0], minZ = area[1], w = area[2] - area[0], d = area[3] - area[1];
    if (!(w > 0) || !(d > 0)) return;
    const p = this.placements;
    for (let k = 0; k < this.count; k++) {
      const o = k * 16;
      const x = p[o + 12], z = p[o + 14];
      const wx = x - w * Math.floor((x - minX) / w), wz = z - d * Math.floor((z - minZ) / d);
      if (wx !== x || wz !== z) {
        p[o + 12] = wx;
        p[o + 14] = wz;
        this.placementChanged(k);
        this.teleported(k);
      }
    }
  }

  /** Advances every instance by `dt` seconds of wall time (times its speed) and evaluates it. Allocates nothing. */
  update(dt: number): void {
    const n = this.count;
    if (!Number.isInteger(n) || n < 0 || n > this.capacity) throw new RangeError(`Crowd: count ${n} is not in [0, ${this.capacity}]`);
    const batch = this.batch, durations = this.durations;
    // The clocks, as AnimationPlayer advances a looping clip (same operations, same doubles).
    const clips = batch.clips, times = batch.times, onCpu = this.evaluator === 'cpu';
    for (let k = 0; k < n; k++) {
      const clip = this.clip[k];
      if (onCpu) clips[k] = clip;
      this.moved[k] = 0;
      if (clip < 0) continue;
      const step = dt * this.speed[k];
      const previous = this.time[k];
      this.previousTime[k] = previous;
      this.time[k] = previous + step;
      wrapLoopTimeIn(this.time, k, durations, clip);
      if (onCpu) times[k] = this.time[k];
      const fromClip = this.fromClip[k];
      if (fromClip >= 0) {
        const fromPrevious = this.fromTime[k];
        this.fromPreviousTime[k] = fromPrevious;
        this.fromTime[k] = fromPrevious + step;
        wrapLoopTimeIn(this.fromTime, k, durations, fromClip);
        this.fadeElapsed[k] += dt;
        if (this.fadeElapsed[k] >= this.fadeDuration[k]) this.fromClip[k] = -1;
      }
    }
    if (!onCpu) {
      // No poses here: root motion samples the roots' channels itself.
      for (let k = 0; k < n; k++) {
        const clip = this.clip[k], fromClip = this.fromClip[k];
        if (this.rootMotion && clip >= 0 && (this.rootMotions[clip] !== undefined || (fromClip >= 0 && this.rootMotions[fromClip] !== undefined))) this.finishPose(k, dt);
      }
    } else {
      sampleInstanceBatch(batch, n);
      for (let k = 0; k < n; k++) {
        if (this.clip[k] >= 0) this.finishPose(k, dt);
      }
      if (this.model.vrm) this.prepareVrm(dt, n);
      updateBatchMatricesAndPalettes(batch, n);
    }
    const materials = this.instances[0]?.materialAnimation;
    if (materials && n > 0) {
      // KHR_animation_pointer material values: per model, so the first instance's clip.
      materials.clip = this.clip[0];
      materials.time = this.time[0];
      materials.fromClip = this.fromClip[0];
      materials.fromTime = this.fromTime[0];
      materials.weight = this.fromClip[0] >= 0 ? this.fadeElapsed[0] / this.fadeDuration[0] : 1;
      materials.uvAnimationTime += dt;
      materials.evaluate();
    }
  }

  /**
   * Instance k, its clip sampled: takes its root motion and locks its root in place, and
   * blends in the faded-out clip while it fades (sampled here: few instances fade at once).
   */
  private finishPose(k: number, dt: number): void {
    const model = this.model, rootMotions = this.rootMotions, durations = this.durations;
    const rootMotion = this.rootMotion;
    // Poses evaluated elsewhere: root motion samples the root's channels itself.
    const onCpu = this.evaluator === 'cpu';
    const instance = this.instances[onCpu ? k : 0];
    const clip = this.clip[k];
    const step = dt * this.speed[k];
    const motionTo = rootMotions[clip];
    let moving = false;
    if (motionTo !== undefined) {
      if (rootMotion) {
        // The root where this step ends is in the pose the batch just sampled; where it
        // starts, cached from the last step if that ended at this clip and time.
        const job = motionTo.job;
        if (onCpu) motionOf(motionTo.track, instance.pose, job.to, 0);
        job.toKnown = onCpu;
        job.fromKnown = this.motionClip[k] === clip && this.motionTime[k] === this.previousTime[k];
        const at = this.motionAt, from = job.from, to = job.to, o = k * 4;
        if (job.fromKnown) { from[0] = at[o]; from[1] = at[o + 1]; from[2] = at[o + 2]; from[3] = at[o + 3]; }
        // Helpers take their doubles through `clock`: V8 boxes doubles passed to calls it does not inline.
        clock[PREVIOUS] = this.previousTime[k]; clock[TIME] = this.time[k]; clock[STEP] = step; clock[DURATION] = durations[clip];
        rootMotionStep(motionTo, clock, delta);
        at[o] = to[0]; at[o + 1] = to[1]; at[o + 2] = to[2]; at[o + 3] = to[3];
        this.motionClip[k] = clip;
        this.motionTime[k] = this.time[k];
        moving = true;
      }
      if (onCpu) lockRootInPlace(motionTo.track, instance.pose);
    }
    const fromClip = this.fromClip[k];
    if (fromClip >= 0) {
      const weight = this.fadeElapsed[k] / this.fadeDuration[k];
      const fromPose = this.fromPose;
      if (onCpu) {
        setRestPose(model, fromPose);
        const fromCursor = instance.cursors[fromClip];
        fromCursor.time = this.fromTime[k];
        sampleCursor(fromCursor, fromPose);
      }
      const motionFrom = rootMotions[fromClip];
      // The blended motion: each clip's delta by its weight (a clip in place moves 0).
      if (moving) {
        delta[0] *= weight; delta[1] *= weight; delta[2] *= weight; delta[3] *= weight;
      }
      if (motionFrom !== undefined) {
        if (rootMotion) {
          const d0 = moving ? delta[0] : 0, d1 = moving ? delta[1] : 0, d2 = moving ? delta[2] : 0, d3 = moving ? delta[3] : 0;
          const job = motionFrom.job;
          if (onCpu) motionOf(motionFrom.track, fromPose, job.to, 0);
          job.toKnown = onCpu;
          job.fromKnown = false;
          clock[PREVIOUS] = this.fromPreviousTime[k]; clock[TIME] = this.fromTime[k]; clock[STEP] = step; clock[DURATION] = durations[fromClip];
          rootMotionStep(motionFrom, clock, delta);
          const iw = 1 - weight;
          delta[0] = d0 + iw * delta[0]; delta[1] = d1 + iw * delta[1]; delta[2] = d2 + iw * delta[2]; delta[3] = d3 + iw * delta[3];
          moving = true;
        }
        if (onCpu) lockRootInPlace(motionFrom.track, fromPose);
      }
      if (onCpu) {
        const blend = this.blends[k];
        blend.weight = weight;
        blend.run();
      }
    }
    // Placements only: independent of the node matrices, which the batch computes next.
    if (moving) this.applyDelta(k, motionTo ?? rootMotions[fromClip]!);
  }

  /** Frees what an evaluator elsewhere holds (nothing on the CPU). */
  destroy(): void {}

  private applyDelta(k: number, m: CrowdRootMotion): void {
    applyRootMotion(m, delta, this.placements, k, this.moved);
    this.placementChanged(k);
  }

  /** Instance k's placement changed (an evaluator elsewhere, as GpuCrowd's, keeps its own copy). */
  protected placementChanged(_k: number): void {}

  /**
   * Instance k was put somewhere new, not walked there: a VRM avatar's spring tails start again
   * at rest where it now stands (VrmRuntime.resetSpringBones), or its hair would whip across
   * the jump as if it had moved that far in one frame.
   */
  private teleported(k: number): void {
    this.instances[k]?.vrm?.resetSpringBones();
  }

  private checkInstance(k: number): void {
    if (!Number.isInteger(k) || k < 0 || k >= this.capacity) throw new RangeError(`Crowd: instance ${k} is not in [0, ${this.capacity})`);
  }

  private checkClip(clip: number): void {
    if (!Number.isInteger(clip) || clip < 0 || clip >= this.model.animations.length) {
      throw new RangeError(`Crowd: clip ${clip} does not exist; the model has ${this.model.animations.length}`);
    }
  }
}
