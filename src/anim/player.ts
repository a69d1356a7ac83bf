import type { Model } from '../gltf/model.ts';
import { BlendingJob } from './blend.ts';
import { createModelInstance, updateMatricesAndPalettes, type ModelInstance } from './instance.ts';
import { LayerStack } from './layer-stack.ts';
import { createPose, setRestPose, type Pose } from './pose.ts';
import { lockRootInPlace, type RootMotionTrack } from './root-motion.ts';
import { wrapLoopTimeIn } from './loop-time.ts';
import { sampleCursor } from './sample.ts';

/**
 * Plays a model's clips the way three.js's AnimationMixer and <model-viewer> users
 * expect: play/pause, speed, looping or clamping at the end, seeking, and crossfades
 * between clips. `update(dt)` advances time, samples (and blends), then fills the
 * instance's node matrices and palettes, and its KHR_animation_pointer material values
 * (the playing clip's and a crossfade's; layers carry none); it allocates nothing.
 */
export class AnimationPlayer {
  readonly instance: ModelInstance;
  /** Playing clip, -1 for the rest pose. */
  clip = -1;
  /** Seconds into `clip`. */
  time = 0;
  /** Playback rate; negative plays backwards. */
  speed = 1;
  loop = true;
  playing = false;
  /** Set by `update` when a non-looping clip reached its end this frame (then `playing` is false). */
  ended = false;
  /** Override (masked) and additive clip layers applied over the playing clip; empty by default. */
  readonly layers: LayerStack;
  /**
   * Per clip, the root motion whose root this player holds in place (lockRootInPlace) after
   * sampling, blending and layers, before node matrices and palettes: a travelling clip plays
   * in place with one local→model a frame. The viewer's stage sets it (ViewerStage); undefined:
   * every clip's root moves as the clip says.
   */
  rootLocks: readonly (RootMotionTrack | undefined)[] | undefined = undefined;

  private fromClip = -1;
  private fromTime = 0;
  private fadeElapsed = 0;
  private fadeDuration = 0;
  /** Seconds this frame's update moves the clips by (dt × speed). */
  private step = 0;
  /** A time `wrap` brings into a clip's range, in place (an array: wrapLoopTimeIn works on one). */
  private readonly wrapping = new Float64Array(1);
  /** Each clip's duration, for wrapLoopTimeIn. */
  private readonly durations: Float64Array;
  /** Wall seconds of the `update` being evaluated (what a VRM model's spring bones step by), 0 otherwise. */
  private frameDt = 0;
  private readonly fromPose: Pose;
  private readonly blend: BlendingJob;

  constructor(readonly model: Model) {
    this.instance = createModelInstance(model);
    this.fromPose = createPose(model);
    this.blend = new BlendingJob(this.fromPose, this.instance.pose, this.instance.pose);
    this.layers = new LayerStack(model, this.instance.pose);
    this.durations = Float64Array.from(model.animations, (c) => c.duration);
    if (model.animations.length > 0) this.clip = 0;
    // A VRM avatar's spring tails start at rest in the first clip's pose, not in the rest pose
    // createModelInstance evaluated (world-space tails left there would bend the hair).
    this.instance.vrm?.resetSpringBones();
    this.evaluate();
  }

  /** Duration of the playing clip in seconds (0 for the rest pose). */
  get duration(): number {
    return this.clip >= 0 ? this.model.animations[this.clip].duration : 0;
  }

  /** True while a crossfade is blending two clips. */
  get fading(): boolean {
    return this.fromClip >= 0 && this.fadeElapsed < this.fadeDuration;
  }

  /** Index of a clip by name or index, or -1. */
  findClip(nameOrIndex: string | number): number {
    const clips = this.model.animations;
    if (typeof nameOrIndex === 'number') return Number.isInteger(nameOrIndex) && nameOrIndex >= 0 && nameOrIndex < clips.length ? nameOrIndex : -1;
    const byName = clips.findIndex((c) => c.name === nameOrIndex);
    if (byName >= 0) return byName;
    return /^\d+$/.test(nameOrIndex) ? this.findClip(Number(nameOrIndex)) : -1;
  }

  /** Starts or resumes the current clip; a finished clip that does not loop starts over. Returns the player (`new AnimationPlayer(model).play()`). */
  play(): this {
    if (this.clip < 0) return this;
    // Replaying a finished clip starts it over, as a media element does.
    if (!this.loop && this.atEnd()) this.time = this.speed < 0 ? this.duration : 0;
    this.playing = true;
    this.ended = false;
    return this;
  }

  /** Stops the clock; `update` still evaluates the pose at the current time. */
  pause(): void {
    this.playing = false;
  }

  /** Cuts to a clip (no blend), at time 0. */
  setClip(clip: number): void {
    this.checkClip(clip);
    this.clip = clip;
    this.time = 0;
    this.fromClip = -1;
    this.ended = false;
    this.evaluate();
  }

  /** Moves the playing clip to `time` seconds (clamped, or wrapped when looping) and re-evaluates. */
  seek(time: number): void {
    this.wrapping[0] = time;
    this.wrap(this.clip);
    this.time = this.wrapping[0];
    this.evaluate();
  }

  /**
   * Blends from what is playing now to `clip` over `seconds`: the old clip keeps playing
   * while its weight falls linearly to 0 (rotations by slerp, the rest by lerp).
   */
  crossfadeTo(clip: number, seconds: number): void {
    this.checkClip(clip);
    if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError(`crossfade duration ${seconds} must be a finite number ≥ 0`);
    if (seconds === 0 || this.clip < 0) {
      this.setClip(clip);
      return;
    }
    this.fromClip = this.clip;
    this.fromTime = this.time;
    this.fadeElapsed = 0;
    this.fadeDuration = seconds;
    this.clip = clip;
    this.time = 0;
    this.ended = false;
    this.evaluate();
  }

  /** Advances by `dt` seconds of wall time (when playing) and evaluates the pose. */
  update(dt: number): void {
    this.ended = false;
    if (this.playing && this.clip >= 0) {
      this.step = dt * this.speed;
      this.advanceClip();
      if (this.fromClip >= 0) {
        this.advanceFromClip();
        this.fadeElapsed += dt;
      }
    }
    if (this.playing || this.ended) { // ended: it was playing until this frame's end
      this.layers.dt = dt;
      this.layers.advance();
    }
    // Spring bones and MToon UV animation move with wall time, playing or not (a paused model dragged still swings).
    this.frameDt = dt;
    const materials = this.instance.materialAnimation;
    if (materials) materials.uvAnimationTime += dt;
    this.evaluate();
  }

  /** Samples (and blends) at the current times and fills node matrices and palettes. */
  evaluate(): void {
    const { model, instance } = this;
    setRestPose(model, instance.pose);
    if (this.clip >= 0) {
      const cursor = instance.cursors[this.clip];
      cursor.time = this.time;
      sampleCursor(cursor, instance.pose);
    }
    if (this.fromClip >= 0) {
      if (this.fadeElapsed >= this.fadeDuration) {
        this.fromClip = -1;
      } else {
        setRestPose(model, this.fromPose);
        const cursor = instance.cursors[this.fromClip];
        cursor.time = this.fromTime;
        sampleCursor(cursor, this.fromPose);
        this.blend.weight = this.fadeElapsed / this.fadeDuration;
        this.blend.run();
      }
    }
    this.layers.apply();
    const lock = this.clip >= 0 && this.rootLocks !== undefined ? this.rootLocks[this.clip] : undefined;
    if (lock !== undefined) lockRootInPlace(lock, instance.pose);
    const materials = instance.materialAnimation;
    if (materials) {
      materials.clip = this.clip;
      materials.time = this.time;
      materials.fromClip = this.fromClip;
      materials.fromTime = this.fromTime;
      materials.weight = this.fromClip >= 0 ? this.fadeElapsed / this.fadeDuration : 1;
      materials.evaluate();
    }
    const vrm = instance.vrm;
    if (vrm !== undefined) {
      vrm.dt = this.frameDt;
      vrm.clip = this.clip;
      vrm.time = this.time;
    }
    // Only `update` moves time: an evaluate from seek or setClip holds the springs.
    this.frameDt = 0;
    updateMatricesAndPalettes(instance);
  }

  // The per-frame steps pass seconds through fields, never as arguments or return values:
  // a double crossing a call V8 did not inline is boxed (a heap allocation per frame), and
  // whether it inlines depends on the compile state.

  /** Moves the playing clip on by `step`, stopping a non-looping clip at its end. */
  private advanceClip(): void {
    const duration = this.model.animations[this.clip].duration;
    const next = this.time + this.step;
    if (!this.loop && (next >= duration || next <= 0) && this.step !== 0) {
      this.time = next >= duration ? duration : 0;
      this.playing = false;
      this.ended = true;
    } else {
      this.wrapping[0] = next;
      this.wrap(this.clip);
      this.time = this.wrapping[0];
    }
  }

  /** Moves a crossfade's outgoing clip on by `step`. */
  private advanceFromClip(): void {
    this.wrapping[0] = this.fromTime + this.step;
    this.wrap(this.fromClip);
    this.fromTime = this.wrapping[0];
  }

  private atEnd(): boolean {
    return this.speed < 0 ? this.time <= 0 : this.time >= this.duration;
  }

  /** Wraps `wrapping[0]` into `clip`'s duration when looping, else clamps it there (0 for no clip). */
  private wrap(clip: number): void {
    const wrapping = this.wrapping;
    if (clip < 0) {
      wrapping[0] = 0;
    } else if (!this.loop) {
      const duration = this.durations[clip], time = wrapping[0];
      wrapping[0] = duration <= 0 || time < 0 ? 0 : time > duration ? duration : time;
    } else {
      wrapLoopTimeIn(wrapping, 0, this.durations, clip);
    }
  }

  private checkClip(clip: number): void {
    if (!Number.isInteger(clip) || clip < 0 || clip >= this.model.animations.length) {
      throw new RangeError(`clip ${clip} does not exist; the model has ${this.model.animations.length}`);
    }
  }
}
