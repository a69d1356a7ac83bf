import type { Clip, Model } from '../gltf/model.ts';
import { AdditiveJob, makeAdditiveClip, setIdentityPose } from './additive.ts';
import { LayerBlendingJob } from './blend-layers.ts';
import { createPose, type Pose } from './pose.ts';
import { wrapLoopTimeIn } from './loop-time.ts';
import { createClipCursor, sampleCursor, type ClipCursor } from './sample.ts';

/** One clip layered over a base pose by a `LayerStack`. Fields the caller may change per frame are mutable. */
export interface ClipLayer {
  /** 'override' blends toward the clip (slerp/lerp by weight · mask); 'additive' adds its delta from its first frame. */
  readonly kind: 'override' | 'additive';
  /** Index of the source clip in the model. */
  readonly clip: number;
  /** 0 has no effect (exactly); 1 is the full layer. */
  weight: number;
  /** Per-slot factor (see mask.ts), or null for every joint. */
  mask: Float32Array | null;
  /** Seconds into the clip, advanced by `LayerStack.advance`. */
  time: number;
  speed: number;
  loop: boolean;
  readonly cursor: ClipCursor;
  readonly pose: Pose;
  /** override: base and layer weights for the blend; additive: the additive job. */
  readonly run: LayerBlendingJob | AdditiveJob;
  readonly baseMask: Float32Array;
}

/**
 * Clip layers on top of a base pose — an upper-body wave over a walk, a breathing additive
 * over anything — each with its own time, speed, weight and mask. Layers apply in the order
 * they were added. Adding a layer allocates (its pose, cursor and job); `advance` and
 * `apply` do not. `AnimationPlayer.layers` is one of these over the player's pose.
 */
export class LayerStack {
  readonly layers: ClipLayer[] = [];
  /** Seconds `advance` moves every layer by; a field so the per-frame call passes no double. */
  dt = 0;
  private readonly rest: Pose;
  /** A layer's time and its clip's duration, for wrapLoopTimeIn. */
  private readonly clock = new Float64Array(2);

  constructor(
    readonly model: Model,
    /** The pose layered onto, in place. */
    readonly base: Pose,
  ) {
    this.rest = createPose(model);
  }

  /**
   * Blends toward `clip` by weight · mask: out = slerp(base, clip, weight · mask[slot]).
   * Joints the clip does not animate keep the base pose's values.
   */
  addOverride(clip: number, weight = 1, mask: Float32Array | null = null): ClipLayer {
    const pose = createPose(this.model);
    const baseMask = new Float32Array(this.model.hierarchy.count);
    // Base weight 1 − w·m and layer weight w·m sum to 1, so the blend is exactly slerp(base, layer, w·m).
    const job = new LayerBlendingJob([{ pose: this.base, weight: 1, mask: baseMask }, { pose, weight, mask }], this.rest, this.base);
    return this.push('override', clip, this.clipOf(clip), pose, job, baseMask, weight, mask);
  }

  /** Adds `clip` made relative to its first frame (`makeAdditiveClip`), scaled by weight · mask. */
  addAdditive(clip: number, weight = 1, mask: Float32Array | null = null, reference?: Pose): ClipLayer {
    const pose = createPose(this.model);
    const job = new AdditiveJob(this.base, pose, this.base);
    return this.push('additive', clip, makeAdditiveClip(this.model, this.clipOf(clip), reference), pose, job, new Float32Array(0), weight, mask);
  }

  /** Takes a layer off the stack at once (no fade); removing a layer that is not on it does nothing. */
  remove(layer: ClipLayer): void {
    const i = this.layers.indexOf(layer);
    if (i >= 0) this.layers.splice(i, 1);
  }

  /** Moves every layer's time by `dt · speed`, wrapping looping layers and clamping the others. */
  advance(): void {
    const dt = this.dt;
    for (let i = 0; i < this.layers.length; i++) {
      const layer = this.layers[i];
      const duration = layer.cursor.clip.duration;
      let t = layer.time + dt * layer.speed;
      if (duration <= 0) t = 0;
      else if (layer.loop) {
        const clock = this.clock;
        clock[0] = t;
        clock[1] = duration;
        wrapLoopTimeIn(clock, 0, clock, 1);
        t = clock[0];
      }
      else t = t < 0 ? 0 : t > duration ? duration : t;
      layer.time = t;
    }
  }

  /** Samples every layer at its time and applies it to `base`, in order. */
  apply(): void {
    const base = this.base;
    for (let i = 0; i < this.layers.length; i++) {
      const layer = this.layers[i];
      if (layer.weight === 0) continue; // exactly no change, and no sampling cost
      const cursor = layer.cursor;
      cursor.time = layer.time;
      if (layer.kind === 'additive') {
        sampleCursor(cursor, setIdentityPose(layer.pose));
        const job = layer.run as AdditiveJob;
        job.weight = layer.weight;
        job.mask = layer.mask;
        job.run();
      } else {
        copyPose(base, layer.pose);
        sampleCursor(cursor, layer.pose);
        const job = layer.run as LayerBlendingJob;
        const w = layer.weight, mask = layer.mask, baseMask = layer.baseMask;
        for (let s = 0; s < baseMask.length; s++) baseMask[s] = 1 - w * (mask === null ? 1 : mask[s]);
        const top = job.layers[1];
        top.weight = w;
        top.mask = mask;
        job.run();
      }
    }
  }

  private clipOf(clip: number): Clip {
    const clips = this.model.animations;
    if (!Number.isInteger(clip) || clip < 0 || clip >= clips.length) throw new RangeError(`clip ${clip} does not exist; the model has ${clips.length}`);
    return clips[clip];
  }

  private push(
    kind: ClipLayer['kind'], clip: number, source: Clip, pose: Pose,
    run: ClipLayer['run'], baseMask: Float32Array, weight: number, mask: Float32Array | null,
  ): ClipLayer {
    if (mask !== null && mask.length !== this.model.hierarchy.count) throw new RangeError(`layer mask has ${mask.length} weights, the model has ${this.model.hierarchy.count} slots`);
    const layer: ClipLayer = { kind, clip, weight, mask, time: 0, speed: 1, loop: true, cursor: createClipCursor(source), pose, run, baseMask };
    this.layers.push(layer);
    return layer;
  }
}

function copyPose(from: Pose, to: Pose): void {
  to.translation.set(from.translation);
  to.rotation.set(from.rotation);
  to.scale.set(from.scale);
  to.weights.set(from.weights);
}
