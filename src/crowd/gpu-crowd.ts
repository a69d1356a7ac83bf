import { Crowd } from '../anim/crowd.ts';
import type { Model } from '../gltf/model.ts';
import { GpuPoseEvaluator } from '../gpu/crowd/evaluator.ts';
import { INSTANCE_STATE_BYTES, InstanceStateOffset, NO_CLIP } from '../gpu/crowd/layout.ts';
import { chooseCrowdEvaluator, type CrowdOptions } from './evaluator-choice.ts';

const STATE_WORDS = INSTANCE_STATE_BYTES / 4;
const CLIPS = InstanceStateOffset.CLIPS / 4, TIME_WORD = InstanceStateOffset.TIME / 4;
const PARTNER_TIME = InstanceStateOffset.PARTNER_TIME / 4, WEIGHT = InstanceStateOffset.WEIGHT / 4, PLACEMENT = InstanceStateOffset.PLACEMENT / 4;

/**
 * A crowd whose poses are evaluated on the GPU (`gpu`, a GpuPoseEvaluator): `update` advances
 * the clocks and root motion as Crowd does, then packs each instance's 32-byte state (clip,
 * time, crossfade partner, time and weight, placement as x y z yaw) into `gpu.state`; whoever
 * draws uploads it (`gpu.writeInstances(queue)`, which returns the bytes) and records
 * `gpu.encode(encoder)`, then draws from `gpu.palettes` — the renderer does both when given
 * `crowd.gpu`, whose morph weights and moving mesh nodes' matrices its draw records read.
 * `destroy()` frees the evaluator's buffers.
 */
export class GpuCrowd extends Crowd {
  readonly gpu: GpuPoseEvaluator;

  constructor(model: Model, capacity: number, options: Omit<CrowdOptions, 'evaluator'> & { readonly device: GPUDevice }) {
    chooseCrowdEvaluator({ ...options, evaluator: 'gpu' }, capacity, model);
    super(model, capacity, 'gpu', options.rootMotions);
    const locks = this.rootMotions.map((m) => m && { rootSlot: m.track.rootSlot, up: m.track.up, ends: m.track.ends });
    this.gpu = new GpuPoseEvaluator(options.device, model, capacity, { label: 'crowd', hierarchy: options.hierarchy, limits: options.limits, locks });
    for (let k = 0; k < capacity; k++) this.placementChanged(k);
  }

  /** Advances every instance by `dt` seconds (as Crowd.update) and packs the clocks for the evaluator. Allocates nothing. */
  override update(dt: number): void {
    super.update(dt);
    const n = this.count;
    const gpu = this.gpu;
    const state = gpu.state, words = gpu.stateWords;
    for (let k = 0; k < n; k++) {
      const o = k * STATE_WORDS;
      const clip = this.clip[k];
      if (clip < 0) {
        words[o + CLIPS] = NO_CLIP | (NO_CLIP << 16);
        continue;
      }
      const fromClip = this.fromClip[k];
      words[o + CLIPS] = clip | ((fromClip < 0 ? NO_CLIP : fromClip) << 16);
      state[o + TIME_WORD] = this.time[k];
      if (fromClip >= 0) {
        state[o + PARTNER_TIME] = this.fromTime[k];
        state[o + WEIGHT] = this.fadeElapsed[k] / this.fadeDuration[k];
      }
    }
    gpu.count = n;
  }

  override destroy(): void {
    this.gpu.destroy();
  }

  /** The evaluator keeps each placement as x y z and the turn about +Y (column 0 is (cos, 0, −sin), column 2 (sin, 0, cos)). */
  protected override placementChanged(k: number): void {
    const p = this.placements, o = k * 16;
    const state = this.gpu.state, g = k * STATE_WORDS + PLACEMENT;
    state[g] = p[o + 12]; state[g + 1] = p[o + 13]; state[g + 2] = p[o + 14];
    state[g + 3] = Math.atan2(p[o + 8], p[o]);
  }
}

/** A Crowd, or a GpuCrowd when its poses are evaluated on the GPU (createCrowd). */
export type AnyCrowd = Crowd & { readonly gpu?: GpuPoseEvaluator };

/**
 * A crowd of `capacity` instances of `model`, its poses evaluated where `options.evaluator`
 * says (chooseCrowdEvaluator: 'cpu' by default; 'auto' picks the GPU from
 * AUTO_GPU_MIN_INSTANCES given a device): a Crowd, or a GpuCrowd.
 */
export function createCrowd(model: Model, capacity: number, options: CrowdOptions = {}): AnyCrowd {
  if (chooseCrowdEvaluator(options, capacity, model) === 'cpu') return new Crowd(model, capacity, 'cpu', options.rootMotions);
  return new GpuCrowd(model, capacity, { ...options, device: options.device! });
}
