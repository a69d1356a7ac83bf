import type { Pose } from './pose.ts';

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

  run(): void {
    this.validate();
    const { layers, rest, output } = this;
    const threshold = this.threshold;
    const n = layers.length;
    const slots = rest.translation.length / 3;
    const T = output.translation, R = output.rotation, S = output.scale;
    for (let slot = 0; slot < slots; slot++) {
      const t3 = slot * 3, r4 = slot * 4;
      let tx = 0, ty = 0, tz = 0, rx = 0, ry = 0, rz = 0, rw = 1, sx = 1, sy = 1, sz = 1;
      let total = 0;
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
          rx = pr[r4]; ry = pr[r4 + 1]; rz = pr[r4 + 2]; rw = pr[r4 + 3];
          sx = ps[t3]; sy = ps[t3 + 1]; sz = ps[t3 + 2];
          total = w;
          continue;
        }
        total += w;
        const u = w / total, iu = 1 - u;
        tx = tx + (pt[t3] - tx) * u; ty = ty + (pt[t3 + 1] - ty) * u; tz = tz + (pt[t3 + 2] - tz) * u;
        sx = sx + (ps[t3] - sx) * u; sy = sy + (ps[t3 + 1] - sy) * u; sz = sz + (ps[t3 + 2] - sz) * u;
        // Slerp written as BlendingJob writes it, so two layers round identically.
        let bx = pr[r4], by = pr[r4 + 1], bz = pr[r4 + 2], bw = pr[r4 + 3];
        let cos = rx * bx + ry * by + rz * bz + rw * bw;
        if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
        let ka = iu, kb = u;
        if (cos < 0.9999) {
          const angle = Math.acos(cos);
          const inv = 1 / Math.sin(angle);
          ka = Math.sin(iu * angle) * inv;
          kb = Math.sin(u * angle) * inv;
        }
        const x = ka * rx + kb * bx, y = ka * ry + kb * by, z = ka * rz + kb * bz, qw = ka * rw + kb * bw;
        const il = 1 / Math.sqrt(x * x + y * y + z * z + qw * qw);
        rx = x * il; ry = y * il; rz = z * il; rw = qw * il;
      }
      T[t3] = tx; T[t3 + 1] = ty; T[t3 + 2] = tz;
      R[r4] = rx; R[r4 + 1] = ry; R[r4 + 2] = rz; R[r4 + 3] = rw;
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
