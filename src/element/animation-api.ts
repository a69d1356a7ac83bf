import type { AnimationPlayer } from '../anim/player.ts';
import type { ClipLayer } from '../anim/layer-stack.ts';
import { warnOnce } from './page.ts';

/**
 * The animation half of <skinned-mesh-viewer>'s model-viewer API, over the AnimationPlayer
 * and its LayerStack: `play({repetitions, pingpong})` (how many times the clip plays, and
 * whether every other pass runs backwards), the `loop` and `finished` events, and
 * `appendAnimation` / `detachAnimation` (clips layered over the playing one as override
 * layers, faded in and out, their speed warped). The per-frame `advance` allocates nothing;
 * it runs the player's update and reports what happened through `AnimationEvents`.
 */

export interface PlayOptions {
  /** How many times the clip plays (default Infinity: for ever, as model-viewer 4.4's). A pingpong pass counts as one. */
  repetitions?: number;
  /** Every other pass plays backwards. */
  pingpong?: boolean;
}

/**
 * play()'s passes as model-viewer 4.4 plays them (three.js's LoopRepeat count): absent, for
 * ever; below 1, one pass; a fraction, the pass it starts too; not a number, for ever (a NaN
 * count is never reached). Numeric strings count, as 4.4's arithmetic takes them.
 */
export function playRepetitions(value: unknown): number {
  if (value === undefined || value === null) return Infinity;
  const count = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (Number.isNaN(count)) {
    warnOnce(`play({repetitions: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}}): not a number; the clip repeats for ever`);
    return Infinity;
  }
  if (count < 1) {
    warnOnce(`play({repetitions: ${count}}): below 1; the clip plays once`);
    return 1;
  }
  return Math.ceil(count);
}

/**
 * Options of `appendAnimation`: the layer's weight and rate, how it fades and warps in, and where in the clip
 * it starts.
 */
export interface AppendAnimationOptions {
  /** The layer's blend weight, 0…1 (default 1): the pose is slerp(base, clip, weight). */
  weight?: number;
  /** The layer's playback rate (default 1); negative plays it backwards. */
  timeScale?: number;
  /** Fade the weight in: true over the crossfade duration, a number over that many seconds (default false: at once). */
  fade?: boolean | number;
  /** Ramp the rate from 0 to `timeScale`: true over the crossfade duration, a number over that many seconds (default false). */
  warp?: boolean | number;
  /** Seconds into the clip to start at (default 0). */
  time?: number;
}

/** Options of `detachAnimation`: whether, and over how long, the layer fades out first. */
export interface DetachAnimationOptions {
  /** Fade the weight out before removing: true (default) over the crossfade duration, a number over that many seconds, false at once. */
  fade?: boolean | number;
}

/** What the element turns into events (the end of the last pass is the player's `ended`, as for a single pass). */
export interface AnimationEvents {
  /** The clip started another pass (`count` passes are complete). */
  looped(count: number): void;
}

/** One appended clip: its layer and the ramps applied to it each frame. */
interface Appended {
  readonly name: string;
  readonly layer: ClipLayer;
  /** The weight the fade heads for (0 while detaching), its rate per second, and the rate's target. */
  targetWeight: number;
  weightRate: number;
  targetSpeed: number;
  speedRate: number;
  detaching: boolean;
}

function seconds(option: boolean | number | undefined, fallback: number, crossfade: number): number {
  if (option === undefined) return fallback;
  if (typeof option === 'number') {
    if (!(option >= 0) || !Number.isFinite(option)) throw new RangeError(`a fade or warp of ${option} s must be a finite number ≥ 0`);
    return option;
  }
  return option ? crossfade : 0;
}

export class AnimationApi {
  /** Passes to play (Infinity: for ever). */
  private repetitions = Infinity;
  private pingpong = false;
  /** Passes completed since play(). */
  private passes = 0;
  /** −1 while a pingpong pass runs backwards. */
  private direction = 1;
  private readonly appended: Appended[] = [];
  /** A ramp's value, target and step, for towardsIn (the frame passes no double to it). */
  private readonly rampScratch = new Float64Array(3);

  constructor(private readonly events: AnimationEvents) {}

  /** The playback rate the page set (`speed` / `timeScale`), times the pingpong direction. */
  effectiveSpeed(speed: number): number {
    return speed * this.direction;
  }

  /**
   * play(options): how many passes (for ever without `repetitions`, as model-viewer 4.4's
   * play()) and whether they alternate.
   */
  start(player: AnimationPlayer, options: PlayOptions | undefined, speed: number): void {
    const repetitions = playRepetitions(options?.repetitions);
    // A finished clip starts over; a paused one resumes its pass.
    const finished = !player.playing && (player.ended || this.passes >= this.repetitions);
    this.repetitions = repetitions;
    this.pingpong = Boolean(options?.pingpong);
    if (finished) {
      this.passes = 0;
      this.direction = 1;
    } else if (options) {
      // Explicit repetitions count from now (the pass under way is the first).
      this.passes = 0;
    }
    this.configure(player, speed);
    if (finished) player.seek(player.speed < 0 ? player.duration : 0);
  }

  /** The `loop` attribute changed: set, the clip repeats for ever; removed, the pass under way is its last. */
  setLoop(player: AnimationPlayer, loop: boolean, speed: number): void {
    this.repetitions = loop ? Infinity : 1;
    this.configure(player, speed);
  }

  /** A new clip (animation-name, crossfadeTo) or model: its passes count from 0 (the last play()'s options stay, as 4.4's). */
  restart(player: AnimationPlayer, speed: number): void {
    this.passes = 0;
    this.direction = 1;
    this.configure(player, speed);
  }

  private configure(player: AnimationPlayer, speed: number): void {
    // The player wraps whenever more than one pass is to come; the passes are counted here.
    player.loop = this.repetitions > 1 || this.pingpong;
    player.speed = speed * this.direction;
  }

  /** The frame's playback: fades, warps, the player's update, then the passes. Allocates nothing. */
  advance(player: AnimationPlayer, dt: number): void {
    if (this.appended.length > 0) this.ramp(player, dt);
    const before = player.time, duration = player.duration, step = dt * player.speed;
    player.update(dt);
    if (!player.loop || !(duration > 0) || step === 0 || !player.playing) return;
    // Passes crossed this frame (usually 0 or 1): where the unwrapped time went.
    const position = (before + step) / duration;
    if (position >= 0 && position < 1) return;
    const crossed = position < 0 ? Math.ceil(-position) : Math.floor(position);
    this.passes += crossed;
    if (this.passes >= this.repetitions) {
      this.passes = this.repetitions;
      // Stop at the end of the last pass: the far end going forwards, the start going backwards.
      player.time = player.speed > 0 ? duration : 0;
      player.playing = false;
      player.ended = true;
      player.evaluate();
      return;
    }
    if (this.pingpong && crossed % 2 === 1) {
      // Bounce: mirror the wrapped time and run the other way.
      player.time = duration - player.time;
      this.direction = -this.direction;
      player.speed = -player.speed;
      player.evaluate();
    }
    this.events.looped(this.passes);
  }

  // ---------------------------------------------------------------- appended clips

  /** Names of the appended clips, in the order they apply. */
  get names(): string[] {
    return this.appended.filter((a) => !a.detaching).map((a) => a.name);
  }

  append(player: AnimationPlayer, clip: number, name: string, options: AppendAnimationOptions, crossfade: number): void {
    const weight = options.weight ?? 1, timeScale = options.timeScale ?? 1;
    if (!(weight >= 0 && weight <= 1)) throw new RangeError(`appendAnimation: weight must be within 0…1, not ${options.weight}`);
    if (!Number.isFinite(timeScale)) throw new RangeError(`appendAnimation: timeScale must be a finite number, not ${options.timeScale}`);
    // Paused, nothing would advance a fade or a warp: the layer is there at once.
    const still = !player.playing;
    const fadeSeconds = seconds(options.fade, 0, crossfade), warpSeconds = seconds(options.warp, 0, crossfade);
    const fade = still ? 0 : fadeSeconds, warp = still ? 0 : warpSeconds;
    // Appending a clip that is already appended replaces it (as model-viewer does).
    this.remove(player, name);
    const layer = player.layers.addOverride(clip, fade > 0 ? 0 : weight);
    layer.speed = warp > 0 ? 0 : timeScale;
    layer.time = options.time ?? 0;
    this.appended.push({
      name, layer, targetWeight: weight, weightRate: fade > 0 ? weight / fade : Infinity,
      targetSpeed: timeScale, speedRate: warp > 0 ? Math.abs(timeScale) / warp : Infinity, detaching: false,
    });
    player.evaluate();
  }

  /** Returns false when `name` is not appended. */
  detach(player: AnimationPlayer, name: string, options: DetachAnimationOptions, crossfade: number): boolean {
    const entry = this.appended.find((a) => a.name === name && !a.detaching);
    if (!entry) return false;
    const fade = seconds(options.fade, crossfade, crossfade);
    if (fade === 0 || !player.playing) {
      this.remove(player, name);
      player.evaluate();
      return true;
    }
    entry.detaching = true;
    entry.targetWeight = 0;
    entry.weightRate = entry.layer.weight / fade;
    return true;
  }

  /** Whether a fade or warp is under way (frames must keep coming). */
  get ramping(): boolean {
    for (let i = 0; i < this.appended.length; i++) {
      const a = this.appended[i];
      if (a.layer.weight !== a.targetWeight || a.layer.speed !== a.targetSpeed) return true;
    }
    return false;
  }

  /** The model changed: its layers went with the old player. */
  clear(): void {
    this.appended.length = 0;
    this.passes = 0;
    this.direction = 1;
  }

  private remove(player: AnimationPlayer, name: string): void {
    for (let i = this.appended.length - 1; i >= 0; i--) {
      if (this.appended[i].name !== name) continue;
      player.layers.remove(this.appended[i].layer);
      this.appended.splice(i, 1);
    }
  }

  /** Moves each appended layer's weight and speed towards their targets; removes faded-out ones. */
  private ramp(player: AnimationPlayer, dt: number): void {
    for (let i = this.appended.length - 1; i >= 0; i--) {
      const a = this.appended[i], layer = a.layer, ramp = this.rampScratch;
      ramp[0] = layer.weight;
      ramp[1] = a.targetWeight;
      ramp[2] = a.weightRate * dt;
      towardsIn(ramp);
      layer.weight = ramp[0];
      ramp[0] = layer.speed;
      ramp[1] = a.targetSpeed;
      ramp[2] = a.speedRate * dt;
      towardsIn(ramp);
      layer.speed = ramp[0];
      if (a.detaching && layer.weight === 0) {
        player.layers.remove(layer);
        // Removed without splice (which returns a new array): the frame allocates nothing.
        for (let j = i; j < this.appended.length - 1; j++) this.appended[j] = this.appended[j + 1];
        this.appended.length--;
      }
    }
  }
}

/**
 * `ramp[0]` (a value) moved in place by `ramp[2]` (a step) towards `ramp[1]` (its target); an
 * infinite or NaN step, e.g. Infinity·0, arrives. It takes and returns no double: a double
 * passed to or returned from a call V8 did not inline is boxed, a heap allocation per frame
 * (as wrapLoopTimeIn, src/anim/loop-time.ts).
 */
function towardsIn(ramp: Float64Array): void {
  const value = ramp[0], target = ramp[1], step = ramp[2];
  if (value === target || !(step < Math.abs(target - value))) ramp[0] = target;
  else ramp[0] = value < target ? value + step : value - step;
}
