import { slerpQuat } from '../math/quat.ts';
import type { Pose } from './pose.ts';

/**
 * Scratch for run(), module-level so it allocates nothing: one joint's running rotation
 * (kept apart from the output, which may be one of the inputs) and the slerp fraction.
 */
const running = new Float64Array(4);
const fraction = new Float64Array(1);

/** One input of a `LayerBlendingJob`. The job reads it; the caller owns and updates it. */
export interface BlendLayer {
  readonly pose: Pose;
  /** ≥ 0. Weights need not sum to 1: they are normalised per joint. */
  weight: number;
  /**
   * Optional per-slot factor (see `mask.ts`), multiplied into `weight`. A joint whose
   * product is 0 takes nothing from this layer, bit for bit.
   */
  mask: Float32Array | null;
}

/**
 * N-way weighted blend of poses (ozz-animation's BlendingJob layers): per joint, each layer
 * contributes `weight · mask[slot]`, and the output is their normalised weighted mean.
 *
 * - Translation, scale and morph weights: weighted mean, computed as a running lerp
 *   toward each next contributor by wᵢ / (w₀ + … + wᵢ) — the same value as Σwᵢxᵢ / Σwᵢ.
 * - Rotation: the same running scheme with slerp on the shortest arc. With two
 *   contributors this is exactly slerp(q₀, q₁, w₁ / (w₀ + w₁)), so two layers reproduce
 *   `BlendingJob` (same formula, same rounding). For three or more it is successive slerp
 *   in layer order rather than ozz's normalised weighted sum: slightly order-dependent, but
 *   continuous as a third layer fades in from weight 0, whereas switching from slerp to a
 *   weighted sum would jump the moment a third weight became non-zero.
 * - A joint with a single contributor is copied exactly; layers with weight 0 are skipped.
 * - Rest-pose fallback (ozz's threshold): where the joint's total weight is below
 *   `threshold`, the rest pose joins with weight `threshold − total`, so fading every layer
 *   out ends smoothly at the rest pose; with no contributor at all the joint is the rest pose.
 *
 * Per joint, every input is read before the output is written, so `output` may be one of
 * the layers' poses or `rest`. Allocates nothing.
 */
export class LayerBlendingJob {
  /** Total weight below which the rest pose fills in (ozz's default, 0.1). Must be > 0. */
  threshold = 0.1;

  constructor(
    readonly layers: readonly BlendLayer[],
    /** The rest pose (`createPose(model)`), used where weights fall below `threshold`. */
    readonly rest: Pose,
    readonly output: Pose,
  ) {}

  /**
   * Checks that every layer's pose and mask, `rest` and `output` are of one skeleton, each weight finite and
   * ≥ 0 and `threshold` finite and > 0; throws a RangeError naming the layer. `run` calls it first.
   */
  validate(): void {
    const { layers, rest, output } = this;
    const slots = rest.translation.length / 3;
    if (output.rotation.length !== rest.rotation.length || output.weights.length !== rest.weights.length) {
      throw new RangeError('LayerBlendingJob: output and rest poses are of different skeletons');
    }
    if (!(this.threshold > 0) || !Number.isFinite(this.threshold)) throw new RangeError(`LayerBlendingJob: threshold ${this.threshold} must be finite and > 0`);
    for (let l = 0; l < layers.length; l++) {
      const layer = layers[l];
      if (layer.pose.rotation.length !== rest.rotation.length || layer.pose.weights.length !== rest.weights.length) {
        throw new RangeError(`LayerBlendingJob: layers[${l}] pose is of a different skeleton`);
      }
      if (!(layer.weight >= 0) || !Number.isFinite(layer.weight)) throw new RangeError(`LayerBlendingJob: layers[${l}] weight ${layer.weight} must be finite and ≥ 0`);
      if (layer.mask !== null && layer.mask.length !== slots) {
        throw new RangeError(`LayerBlendingJob: layers[${l}] mask has ${layer.mask.length} weights, the skeleton has ${slots} slots`);
      }
    }
  }

  /**
   * Writes the weighted blend of the layers (topped up with the rest pose below `threshold`) into `output`.
   */
  run(): void {
    this.validate();
    const { layers, rest, output } = this;
    const threshold = this.threshold;
    const n = layers.length;
    const slots = rest.translation.length / 3;
    const T = output.translation, R = output.rotation, S = output.scale;
    for (let slot = 0; slot < slots; slot++) {
      const t3 = slot * 3, r4 = slot * 4;
      let tx = 0, ty = 0, tz = 0, sx = 1, sy = 1, sz = 1;
      let total = 0;
      // The joint's rotation so far: the first contributor's, read in place, then `running`.
      let q = rest.rotation, qo = r4;
      for (let l = 0; l <= n; l++) {
        // Layers in order, then the rest pose as the last candidate.
        let w: number;
        let p: Pose;
        if (l < n) {
          const layer = layers[l];
          const mask = layer.mask;
          w = mask === null ? layer.weight : layer.weight * mask[slot];
          if (!(w > 0)) continue;
          p = layer.pose;
        } else {
          w = total === 0 ? 1 : threshold - total;
          if (!(w > 0)) break;
          p = rest;
        }
        const pt = p.translation, pr = p.rotation, ps = p.scale;
        if (total === 0) {
          tx = pt[t3]; ty = pt[t3 + 1]; tz = pt[t3 + 2];
          q = pr;
          sx = ps[t3]; sy = ps[t3 + 1]; sz = ps[t3 + 2];
          total = w;
          continue;
        }
        total += w;
        const u = w / total;
        tx = tx + (pt[t3] - tx) * u; ty = ty + (pt[t3 + 1] - ty) * u; tz = tz + (pt[t3 + 2] - tz) * u;
        sx = sx + (ps[t3] - sx) * u; sy = sy + (ps[t3 + 1] - sy) * u; sz = sz + (ps[t3 + 2] - sz) * u;
        // The slerp BlendingJob uses, so two layers round identically.
        fraction[0] = u;
        slerpQuat(q, qo, pr, r4, fraction, 0, running, 0);
        q = running; qo = 0;
      }
      T[t3] = tx; T[t3 + 1] = ty; T[t3 + 2] = tz;
      R[r4] = q[qo]; R[r4 + 1] = q[qo + 1]; R[r4 + 2] = q[qo + 2]; R[r4 + 3] = q[qo + 3];
      S[t3] = sx; S[t3 + 1] = sy; S[t3 + 2] = sz;
      this.blendMorphWeights(slot);
    }
  }

  /** Morph weights of one node, one weight at a time so that `output` may alias an input. */
  private blendMorphWeights(slot: number): void {
    const { layers, rest, output } = this;
    const start = rest.weightOffsets[slot], end = rest.weightOffsets[slot + 1];
    if (start === end) return;
    const n = layers.length;
    const threshold = this.threshold;
    const W = output.weights;
    for (let i = start; i < end; i++) {
      let v = 0, total = 0;
      for (let l = 0; l <= n; l++) {
        let w: number, x: number;
        if (l < n) {
          const layer = layers[l];
          const mask = layer.mask;
          w = mask === null ? layer.weight : layer.weight * mask[slot];
          if (!(w > 0)) continue;
          x = layer.pose.weights[i];
        } else {
          w = total === 0 ? 1 : threshold - total;
          if (!(w > 0)) break;
          x = rest.weights[i];
        }
        if (total === 0) { v = x; total = w; continue; }
        total += w;
        v = v + (x - v) * (w / total);
      }
      W[i] = v;
    }
  }
}
