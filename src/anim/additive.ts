import { Interpolation, TargetPath } from '../gltf/constants.ts';
import type { Channel, Clip, Model, Sampler } from '../gltf/model.ts';
import { mulQuat, prepareSlerpKeys, scaleRotation } from '../math/quat.ts';
import { createPose, type Pose } from './pose.ts';
import { createClipCursor, sampleClip } from './sample.ts';

/**
 * Additive animation: a clip made relative to a reference pose, then added on top of
 * whatever is playing (a breathing or flinch layer over a walk).
 *
 * Convention (ozz-animation's AdditiveAnimationBuilder and BlendingJob), per joint:
 *   delta T = t − t_ref          applied as  T = T_base + w · ΔT
 *   delta R = r · r_ref⁻¹        applied as  R = slerp(identity, ΔR, w) · R_base
 *   delta S = s / s_ref          applied as  S = S_base · (1 + w · (ΔS − 1))
 *   delta morph weight = m − m_ref,  applied as  m_base + w · Δm
 * The rotation delta is on the left, i.e. in the parent's frame: at weight 1 on a base
 * equal to the reference, r · r_ref⁻¹ · r_ref = r gives back the source clip exactly.
 */

/**
 * Writes the additive identity into `pose` — T 0, R identity, S 1, morph weights 0 — the
 * value of every channel an additive clip does not animate. Sample an additive clip into a
 * pose reset with this (not `setRestPose`). Allocates nothing.
 */
export function setIdentityPose(pose: Pose): Pose {
  pose.translation.fill(0);
  pose.scale.fill(1);
  pose.weights.fill(0);
  const r = pose.rotation;
  for (let o = 0; o < r.length; o += 4) { r[o] = 0; r[o + 1] = 0; r[o + 2] = 0; r[o + 3] = 1; }
  return pose;
}

/**
 * The reference pose of `clip` at `time` seconds (default 0, where every channel clamps to
 * its first key: the clip's first frame), over the model's rest pose. Setup-time; allocates.
 */
export function referencePose(model: Model, clip: Clip, time = 0): Pose {
  const pose = createPose(model);
  sampleClip(createClipCursor(clip), time, pose);
  return pose;
}

/**
 * An additive copy of `clip`: every key made relative to `reference` (default: the clip's
 * first frame, `referencePose(model, clip)`) by the convention above. Offline, like ozz's
 * AdditiveAnimationBuilder: runs once and allocates the new keys.
 *
 * Key-wise deltas sample to the delta of the sampled clip: subtraction and division by a
 * constant commute with LINEAR and CUBICSPLINE interpolation (tangents transform like
 * values: derivatives of t − c, s / c and r · c⁻¹), and right-multiplying rotation keys by
 * one unit quaternion keeps the angle between neighbouring keys, so slerp commutes too.
 * Keys are stored as float32 like every clip, so deltas carry float32 rounding.
 */
export function makeAdditiveClip(model: Model, clip: Clip, reference: Pose = referencePose(model, clip)): Clip {
  if (reference.rotation.length !== model.hierarchy.count * 4) throw new RangeError('makeAdditiveClip: the reference pose is of a different model');
  const channels = clip.channels.map((ch, i): Channel => {
    const s = ch.sampler;
    const values = new Float32Array(s.values.length);
    const cubic = s.interpolation === Interpolation.CUBICSPLINE;
    const n = s.components;
    const elements = s.values.length / n; // keys, or 3 × keys (in-tangent, value, out-tangent) for CUBICSPLINE
    for (let e = 0; e < elements; e++) {
      // CUBICSPLINE tangents are derivatives: a subtracted constant drops out of them.
      const isTangent = cubic && e % 3 !== 1;
      const o = e * n;
      switch (ch.path) {
        case TargetPath.TRANSLATION:
          for (let c = 0; c < 3; c++) values[o + c] = s.values[o + c] - (isTangent ? 0 : reference.translation[ch.slot * 3 + c]);
          break;
        case TargetPath.SCALE:
          for (let c = 0; c < 3; c++) {
            const ref = reference.scale[ch.slot * 3 + c];
            if (ref === 0) throw new RangeError(`makeAdditiveClip: channels[${i}]: the reference scale of node ${ch.node} is 0 (no relative scale exists)`);
            values[o + c] = s.values[o + c] / ref;
          }
          break;
        case TargetPath.ROTATION: {
          // v · conjugate(ref), for values and tangents alike (right-multiplication is linear).
          const r = ch.slot * 4;
          const bx = -reference.rotation[r], by = -reference.rotation[r + 1], bz = -reference.rotation[r + 2], bw = reference.rotation[r + 3];
          const ax = s.values[o], ay = s.values[o + 1], az = s.values[o + 2], aw = s.values[o + 3];
          values[o] = aw * bx + ax * bw + ay * bz - az * by;
          values[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
          values[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
          values[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
          break;
        }
        case TargetPath.WEIGHTS: {
          const start = reference.weightOffsets[ch.slot], count = reference.weightOffsets[ch.slot + 1] - start;
          for (let c = 0; c < n; c++) values[o + c] = s.values[o + c] - (isTangent || c >= count ? 0 : reference.weights[start + c]);
          break;
        }
      }
    }
    let slerp: { slerpAngle: Float64Array; slerpInvSin: Float64Array } | undefined;
    if (ch.path === TargetPath.ROTATION && s.interpolation === Interpolation.LINEAR) slerp = prepareSlerpKeys(values, s.times.length);
    const sampler: Sampler = {
      interpolation: s.interpolation,
      times: s.times,
      values,
      components: n,
      slerpAngle: slerp?.slerpAngle,
      slerpInvSin: slerp?.slerpInvSin,
    };
    return { ...ch, sampler };
  });
  return { name: clip.name, duration: clip.duration, channels, timelines: clip.timelines };
}

/**
 * dst = the additive delta of `pose` relative to `reference` (convention above), for every
 * joint: the per-frame counterpart of `makeAdditiveClip`, for deltas of poses that are
 * themselves blended. `dst` may alias either input. Allocates nothing.
 */
export function poseDelta(pose: Pose, reference: Pose, dst: Pose): Pose {
  const slots = pose.translation.length / 3;
  const pt = pose.translation, ps = pose.scale, pr = pose.rotation;
  const ft = reference.translation, fs = reference.scale, fr = reference.rotation;
  for (let i = 0; i < slots * 3; i++) {
    dst.translation[i] = pt[i] - ft[i];
    dst.scale[i] = ps[i] / fs[i];
  }
  for (let o = 0; o < slots * 4; o += 4) {
    const ax = pr[o], ay = pr[o + 1], az = pr[o + 2], aw = pr[o + 3];
    const bx = -fr[o], by = -fr[o + 1], bz = -fr[o + 2], bw = fr[o + 3];
    dst.rotation[o] = aw * bx + ax * bw + ay * bz - az * by;
    dst.rotation[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
    dst.rotation[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
    dst.rotation[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
  }
  for (let i = 0; i < pose.weights.length; i++) dst.weights[i] = pose.weights[i] - reference.weights[i];
  return dst;
}

/** Scratch for AdditiveJob.run(), module-level so it allocates nothing: the scaled delta rotation and its fraction. */
const scaled = new Float64Array(4);
const fraction = new Float64Array(1);

/**
 * Adds a delta pose (an additive clip sampled over `setIdentityPose`, or `poseDelta`) on
 * top of `base`, scaled by `weight` and an optional per-slot `mask` (convention above).
 * A joint whose weight · mask is 0 is left exactly as in `base` — copied bit for bit, or
 * not touched at all when `output` is `base`. `output` may alias `base` or `delta`.
 * Allocates nothing; `weight` is a field so the per-frame call passes no double.
 */
export class AdditiveJob {
  /** 0 adds nothing (exactly), 1 adds the full delta. */
  weight = 1;
  /** Per-slot factor multiplied into `weight`, or null for every joint. */
  mask: Float32Array | null = null;

  constructor(
    readonly base: Pose,
    readonly delta: Pose,
    readonly output: Pose,
  ) {}

  /**
   * Checks that base, delta, output and mask are of one skeleton; throws a RangeError naming the mismatch.
   * `run` calls it first.
   */
  validate(): void {
    const { base, delta, output, mask } = this;
    if (base.rotation.length !== delta.rotation.length || base.rotation.length !== output.rotation.length ||
        base.weights.length !== delta.weights.length || base.weights.length !== output.weights.length) {
      throw new RangeError('AdditiveJob: poses are of different skeletons');
    }
    if (!(this.weight >= 0 && this.weight <= 1)) throw new RangeError(`AdditiveJob: weight ${this.weight} is not in [0, 1]`);
    if (mask !== null && mask.length !== base.translation.length / 3) {
      throw new RangeError(`AdditiveJob: mask has ${mask.length} weights, the skeleton has ${base.translation.length / 3} slots`);
    }
  }

  /** Writes `base` + `weight` · mask · `delta` into `output`, joint by joint. */
  run(): void {
    this.validate();
    const { base, delta, output, mask } = this;
    const weight = this.weight;
    const slots = base.translation.length / 3;
    const BT = base.translation, BR = base.rotation, BS = base.scale, BW = base.weights;
    const DT = delta.translation, DR = delta.rotation, DS = delta.scale, DW = delta.weights;
    const OT = output.translation, OR = output.rotation, OS = output.scale, OW = output.weights;
    const inPlace = output === base;
    for (let slot = 0; slot < slots; slot++) {
      const w = mask === null ? weight : weight * mask[slot];
      const t3 = slot * 3, r4 = slot * 4;
      const m0 = base.weightOffsets[slot], m1 = base.weightOffsets[slot + 1];
      if (!(w > 0)) {
        if (inPlace) continue;
        OT[t3] = BT[t3]; OT[t3 + 1] = BT[t3 + 1]; OT[t3 + 2] = BT[t3 + 2];
        OR[r4] = BR[r4]; OR[r4 + 1] = BR[r4 + 1]; OR[r4 + 2] = BR[r4 + 2]; OR[r4 + 3] = BR[r4 + 3];
        OS[t3] = BS[t3]; OS[t3 + 1] = BS[t3 + 1]; OS[t3 + 2] = BS[t3 + 2];
        for (let i = m0; i < m1; i++) OW[i] = BW[i];
        continue;
      }
      OT[t3] = BT[t3] + DT[t3] * w; OT[t3 + 1] = BT[t3 + 1] + DT[t3 + 1] * w; OT[t3 + 2] = BT[t3 + 2] + DT[t3 + 2] * w;
      OS[t3] = BS[t3] * (1 + (DS[t3] - 1) * w);
      OS[t3 + 1] = BS[t3 + 1] * (1 + (DS[t3 + 1] - 1) * w);
      OS[t3 + 2] = BS[t3 + 2] * (1 + (DS[t3 + 2] - 1) * w);
      for (let i = m0; i < m1; i++) OW[i] = BW[i] + DW[i] * w;

      // ΔR scaled to slerp(identity, ΔR, w), then ΔR · R_base. At w = 1 ΔR is used as it is,
      // so a full-weight layer gives back the source clip's rotation exactly.
      if (w === 1) {
        mulQuat(DR, r4, BR, r4, OR, r4);
      } else {
        fraction[0] = w;
        mulQuat(scaleRotation(DR, r4, fraction, 0, scaled, 0), 0, BR, r4, OR, r4);
      }
    }
  }
}
