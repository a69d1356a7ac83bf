import { Interpolation, TargetPath } from '../../gltf/constants.ts';
import type { Channel, Clip, Model, Sampler } from '../../gltf/model.ts';
import { mulConjQuat, mulQuat, prepareSlerpKeys, quatFromTo, rotationOfMatrix, slerpQuat } from '../../math/quat.ts';
import { composeTRS, invertMat4, multiplyMat4 } from '../../math/trs.ts';
import { localToModel } from '../local-to-model.ts';
import { createPose, setRestPose } from '../pose.ts';
import { createClipCursor, sampleClip } from '../sample.ts';
import { jointLabel, mapJoints, nearestMappedAncestor, RetargetError, skeletonSlots, type JointMapOptions, type JointMapping, type RetargetSkeleton } from './joint-map.ts';
import { referenceFrames, type ReferencePose } from './reference-pose.ts';

/**
 * Retargeting: clips of one skeleton baked into ordinary clips of another.
 *
 * Rotations transfer as world-space changes from each side's reference pose:
 *   targetWorld(t) = sourceWorld(t) · sourceWorldRef⁻¹ · A · targetWorldRef
 * then each local rotation is parentWorld⁻¹ · world down the target's hierarchy, so joint-axis
 * conventions cancel out. A is a per-bone swing turning the target's reference bone direction
 * (toward its mapped child, or the mean of several) onto the source's, which lines up rest poses
 * that differ (T-pose vs A-pose). Translation joints (the hips and mapped joints above them)
 * move by the source's world-space displacement scaled by the ratio of hip heights; other joints
 * keep the target's own translations; scale is transferred relative to the reference pose.
 *
 * The result is baked once into keyframes of the target's slots, so a retargeted clip costs what
 * a native one costs per frame (see `RetargetOptions.sampleRate` for the resampling and its error).
 */

export interface RetargetOptions extends JointMapOptions {
  /** The source's reference pose (default 'rest'). */
  readonly sourceReference?: ReferencePose;
  /** The target's reference pose (default 'rest'). */
  readonly targetReference?: ReferencePose;
  /**
   * Target joint names that take the source's translation (scaled by the hip-height ratio).
   * Default: the hips and the mapped joints above them (root motion).
   */
  readonly translationJoints?: readonly string[];
  /**
   * Per target slot, 0…1 (as `subtreeMask` makes): 0 leaves a joint out of the clip (it keeps
   * whatever else poses it), fractions blend from its rest pose. Default: every mapped joint at 1.
   */
  readonly mask?: Float32Array;
  /**
   * Keys per second added between the source's own key times. Default 0 (only the source's
   * key times), or 30 when a source channel is STEP or CUBICSPLINE. At every key the result is
   * exact; between keys the target slerps its own locals, which differ from the composed source
   * interpolation by a second-order term in the per-key rotation step (measured in the tests).
   */
  readonly sampleRate?: number;
  /** Multiplies translations instead of the hip-height ratio. */
  readonly translationScale?: number;
}

/**
 * What `retargetClips` returns: the clips baked onto the target skeleton, the joint mapping used, and what
 * was left out.
 */
export interface RetargetResult {
  /** Clips on the target's slots (names kept), ready for the player, layers, crowds and the batch kernel. */
  readonly clips: Clip[];
  readonly mapping: JointMapping;
  /** Target joints with no source joint (they keep their rest pose). */
  readonly unmapped: readonly string[];
  /** The translation scale used (target hip height / source hip height). */
  readonly translationScale: number;
  /** Ignored channels and dropped matches, each naming the joint. */
  readonly warnings: readonly string[];
}

/** Default `sampleRate` for sources with STEP or CUBICSPLINE channels. */
const NONLINEAR_SAMPLE_RATE = 30;
/** Output floats per clip beyond which retargeting refuses (a key rate or duration too large to bake). */
const MAX_OUTPUT_FLOATS = 64 * 1024 * 1024;

function asSkeleton(s: Model | RetargetSkeleton): RetargetSkeleton {
  return 'hierarchy' in s ? { model: s } : s;
}

/**
 * Retargets `clips` (of `source`'s model) onto `target`'s model. Both may carry a humanoid map
 * (`loadAnimationLibrary` returns one for VRM files). Throws RetargetError for input it cannot
 * use; everything it skips is in `warnings`. Play the clips through `addClips`, which also lets
 * a target joint given by a never-animated `matrix` take them.
 */
export function retargetClips(
  clips: readonly Clip[], source: Model | RetargetSkeleton, target: Model | RetargetSkeleton, options: RetargetOptions = {},
): RetargetResult {
  const src = asSkeleton(source), tgt = asSkeleton(target);
  const mapping = mapJoints(src, tgt, options);
  const setup = new RetargetSetup(src.model, tgt.model, mapping, options);
  const warnings = [...mapping.warnings];
  const out = clips.map((clip, i) => setup.bake(clip, i, warnings));
  return { clips: out, mapping, unmapped: mapping.unmapped, translationScale: setup.scale, warnings };
}

/** Everything per joint pair that does not depend on time, and the scratch of the bake. */
class RetargetSetup {
  readonly scale: number;
  /** Target slots that get channels, parent-first. */
  readonly animatedSlots: Int32Array;
  private readonly takesTranslation: Uint8Array;
  private readonly weight: Float32Array;
  /** Per target slot: sourceWorldRef⁻¹ · A · targetWorldRef (rotation), so targetWorld = sourceWorld · this. */
  private readonly offset: Float64Array;
  private readonly srcRefT: Float64Array;
  private readonly srcRefS: Float64Array;
  private readonly tgtRefT: Float64Array;
  private readonly tgtRefS: Float64Array;
  /** Source slots a channel may drive: mapped joints and their ancestors. */
  private readonly relevant: Uint8Array;

  constructor(private readonly src: Model, private readonly tgt: Model, private readonly map: JointMapping, private readonly options: RetargetOptions) {
    const sh = src.hierarchy, th = tgt.hierarchy;
    const sRef = referenceFrames(src, options.sourceReference ?? 'rest', 'source');
    const tRef = referenceFrames(tgt, options.targetReference ?? 'rest', 'target');
    const sOf = map.sourceSlotOf;
    const mask = options.mask;
    if (mask && mask.length !== th.count) throw new RetargetError(`mask has ${mask.length} weights; the target has ${th.count} nodes`);
    this.weight = new Float32Array(th.count);
    const animated: number[] = [];
    for (let t = 0; t < th.count; t++) {
      if (sOf[t] < 0) continue;
      const w = mask ? mask[t] : 1;
      if (!(w >= 0 && w <= 1)) throw new RetargetError(`mask weight of ${JSON.stringify(jointLabel(tgt, t))} is ${w}, not in [0, 1]`, jointLabel(tgt, t));
      this.weight[t] = w;
      if (w > 0) animated.push(t);
    }
    this.animatedSlots = Int32Array.from(animated);
    this.relevant = new Uint8Array(sh.count);
    for (let t = 0; t < th.count; t++) {
      for (let s = sOf[t]; s >= 0 && !this.relevant[s]; s = sh.parentSlot[s]) this.relevant[s] = 1;
    }

    // Translation joints: named, else the hips and its mapped ancestors.
    this.takesTranslation = new Uint8Array(th.count);
    if (options.translationJoints) {
      for (const name of options.translationJoints) {
        const slot = Array.from(skeletonSlots(tgt)).find((s) => tgt.nodes[th.order[s]].name === name);
        if (slot === undefined) throw new RetargetError(`translationJoints: the target has no skeleton joint named ${JSON.stringify(name)}`, name);
        if (sOf[slot] < 0) throw new RetargetError(`translationJoints: ${JSON.stringify(name)} has no source joint`, name);
        this.takesTranslation[slot] = 1;
      }
    } else {
      for (let s = map.hipsSlot; s >= 0; s = th.parentSlot[s]) if (sOf[s] >= 0) this.takesTranslation[s] = 1;
    }
    this.scale = options.translationScale ?? hipRatio(sOf, sRef.world, tRef.world, map.hipsSlot);
    if (!(this.scale > 0 && Number.isFinite(this.scale))) throw new RetargetError(`translation scale ${this.scale} is not a positive number`);

    this.srcRefT = sRef.pose.translation; this.srcRefS = sRef.pose.scale;
    this.tgtRefT = tRef.pose.translation; this.tgtRefS = tRef.pose.scale;
    this.offset = new Float64Array(th.count * 4);
    const swing = swings(tgt, sOf, tRef.world, sRef.world);
    const gs = new Float64Array(4), gt = new Float64Array(4);
    for (const t of animated) {
      rotationOfMatrix(sRef.world, sOf[t] * 16, gs, 0);
      rotationOfMatrix(tRef.world, t * 16, gt, 0);
      mulQuat(swing, t * 4, gt, 0, gt, 0);
      mulConjQuat(gs, 0, gt, 0, this.offset, t * 4);
    }
  }

  /** One clip: the source sampled at each output key, the target pose solved, written as keys. */
  bake(clip: Clip, index: number, warnings: string[]): Clip {
    const src = this.src, tgt = this.tgt, sh = src.hierarchy, th = tgt.hierarchy;
    const label = clip.name !== undefined ? JSON.stringify(clip.name) : `clips[${index}]`;
    const ignored: string[] = [];
    const timeSets: Float32Array[] = [];
    let nonLinear = false;
    for (const ch of clip.channels) {
      if (ch.node < 0 || ch.node >= src.nodes.length || ch.slot !== sh.slotOf[ch.node]) {
        throw new RetargetError(`clip ${label} has a channel on nodes[${ch.node}], which is not a node of the source skeleton (${src.name}); pass the model the clip was loaded with`);
      }
      if (ch.path === TargetPath.WEIGHTS) continue;
      if (!this.relevant[ch.slot]) {
        const name = jointLabel(src, ch.slot);
        if (!ignored.includes(name)) ignored.push(name);
        continue;
      }
      timeSets.push(ch.sampler.times);
      if (ch.sampler.interpolation !== Interpolation.LINEAR) nonLinear = true;
    }
    if (ignored.length > 0) warnings.push(`clip ${label}: channels on ${ignored.length} node(s) outside the mapped skeleton are ignored: ${ignored.slice(0, 12).join(', ')}${ignored.length > 12 ? ', …' : ''}`);
    const allStep = timeSets.length > 0 && clip.channels.every((ch) => ch.path === TargetPath.WEIGHTS || !this.relevant[ch.slot] || ch.sampler.interpolation === Interpolation.STEP);
    const rate = this.sampleRate(nonLinear && !allStep);
    const animated = this.animatedSlots;
    const maxKeys = Math.floor(MAX_OUTPUT_FLOATS / (10 * Math.max(animated.length, 1)));
    if (rate * clip.duration > maxKeys) throw new RetargetError(`clip ${label}: ${rate} keys per second over ${clip.duration} s is too much to bake for ${animated.length} joints; lower sampleRate`);
    const times = keyTimes(timeSets, clip.duration, rate);
    const floats = times.length * animated.length * 10;
    if (floats > MAX_OUTPUT_FLOATS) throw new RetargetError(`clip ${label}: ${times.length} keys × ${animated.length} joints is too much to bake (${floats} floats); lower sampleRate`);

    const rot = new Float32Array(times.length * animated.length * 4);
    const tra = new Float32Array(times.length * animated.length * 3);
    const sca = new Float32Array(times.length * animated.length * 3);
    const srcPose = createPose(src);
    const srcWorld = new Float64Array(sh.count * 16);
    const srcFlat = { ...sh, useMatrix: new Uint8Array(sh.count) };
    const cursor = createClipCursor(clip);
    const tgtWorld = new Float64Array(th.count * 16);
    const tgtPose = createPose(tgt);
    const gs = new Float64Array(4), q = new Float64Array(4), pq = new Float64Array(4), one = Float64Array.of(0);
    const local = new Float64Array(16), pInv = new Float64Array(16), d = new Float64Array(3);
    const slotIndex = new Int32Array(th.count).fill(-1);
    animated.forEach((t, i) => (slotIndex[t] = i));
    let scaleAnimated = false;
    for (const ch of clip.channels) if (ch.path === TargetPath.SCALE && this.relevant[ch.slot]) scaleAnimated = true;

    for (let k = 0; k < times.length; k++) {
      setRestPose(src, srcPose);
      sampleClip(cursor, times[k], srcPose);
      localToModel(srcFlat, srcPose, srcWorld);
      setRestPose(tgt, tgtPose);
      for (let t = 0; t < th.count; t++) {
        const p = th.parentSlot[t];
        const i = slotIndex[t];
        if (i >= 0) this.solveJoint(t, p, srcPose, srcWorld, tgtWorld, tgtPose, gs, q, pq, one, pInv, d);
        composeTRS(tgtPose.translation, tgtPose.rotation, tgtPose.scale, local, t * 3, t * 4, t * 3, 0);
        if (p >= 0) multiplyMat4(tgtWorld, local, tgtWorld, p * 16, 0, t * 16);
        else tgtWorld.set(local, t * 16);
        if (i < 0) continue;
        const o = (k * animated.length + i);
        for (let c = 0; c < 4; c++) rot[o * 4 + c] = tgtPose.rotation[t * 4 + c];
        for (let c = 0; c < 3; c++) { tra[o * 3 + c] = tgtPose.translation[t * 3 + c]; sca[o * 3 + c] = tgtPose.scale[t * 3 + c]; }
      }
    }
    return this.channels(clip, times, allStep, rot, tra, sca, scaleAnimated);
  }

  private sampleRate(nonLinear: boolean): number {
    const rate = this.options.sampleRate ?? (nonLinear ? NONLINEAR_SAMPLE_RATE : 0);
    if (!(rate >= 0 && Number.isFinite(rate))) throw new RetargetError(`sampleRate ${rate} is not a finite number ≥ 0`);
    return rate;
  }

  /** The target's local T/R/S of mapped joint `t` (parent slot `p`, already solved), into `tgtPose`. */
  private solveJoint(
    t: number, p: number, srcPose: ReturnType<typeof createPose>, srcWorld: Float64Array, tgtWorld: Float64Array, tgtPose: ReturnType<typeof createPose>,
    gs: Float64Array, q: Float64Array, pq: Float64Array, one: Float64Array, pInv: Float64Array, d: Float64Array,
  ): void {
    const s = this.map.sourceSlotOf[t];
    const sh = this.src.hierarchy;
    const R = tgtPose.rotation, T = tgtPose.translation, S = tgtPose.scale;
    // Rotation: world = sourceWorld · offset, local = parentWorld⁻¹ · world.
    rotationOfMatrix(srcWorld, s * 16, gs, 0);
    mulQuat(gs, 0, this.offset, t * 4, q, 0);
    if (p >= 0) {
      rotationOfMatrix(tgtWorld, p * 16, pq, 0);
      mulConjQuat(pq, 0, q, 0, q, 0);
    }
    const w = this.weight[t];
    if (w < 1) {
      one[0] = w;
      slerpQuat(R, t * 4, q, 0, one, 0, R, t * 4);
    } else {
      R.set(q, t * 4);
    }
    if (this.takesTranslation[t]) {
      // The source's displacement from its reference, in world space, scaled, then in the target parent's frame.
      const sp = sh.parentSlot[s];
      for (let c = 0; c < 3; c++) d[c] = srcPose.translation[s * 3 + c] - this.srcRefT[s * 3 + c];
      let dx = d[0], dy = d[1], dz = d[2];
      if (sp >= 0) {
        const m = sp * 16;
        dx = srcWorld[m] * d[0] + srcWorld[m + 4] * d[1] + srcWorld[m + 8] * d[2];
        dy = srcWorld[m + 1] * d[0] + srcWorld[m + 5] * d[1] + srcWorld[m + 9] * d[2];
        dz = srcWorld[m + 2] * d[0] + srcWorld[m + 6] * d[1] + srcWorld[m + 10] * d[2];
      }
      const k = this.scale;
      dx *= k; dy *= k; dz *= k;
      if (p >= 0) {
        if (!invertMat4(tgtWorld, pInv, p * 16, 0)) throw new RetargetError(`the parent of ${JSON.stringify(jointLabel(this.tgt, t))} has a singular world matrix`, jointLabel(this.tgt, t));
        const x = pInv[0] * dx + pInv[4] * dy + pInv[8] * dz;
        const y = pInv[1] * dx + pInv[5] * dy + pInv[9] * dz;
        const z = pInv[2] * dx + pInv[6] * dy + pInv[10] * dz;
        dx = x; dy = y; dz = z;
      }
      const rt = this.tgtRefT;
      T[t * 3] += w * (rt[t * 3] + dx - T[t * 3]);
      T[t * 3 + 1] += w * (rt[t * 3 + 1] + dy - T[t * 3 + 1]);
      T[t * 3 + 2] += w * (rt[t * 3 + 2] + dz - T[t * 3 + 2]);
    }
    // Scale relative to the reference: targetRef · source / sourceRef, per axis.
    for (let c = 0; c < 3; c++) {
      const sr = this.srcRefS[s * 3 + c];
      const v = sr !== 0 ? this.tgtRefS[t * 3 + c] * srcPose.scale[s * 3 + c] / sr : S[t * 3 + c];
      S[t * 3 + c] += w * (v - S[t * 3 + c]);
    }
  }

  /** The baked keys as one Clip: rotation for every animated joint, translation and scale where they vary. */
  private channels(clip: Clip, times: Float32Array, step: boolean, rot: Float32Array, tra: Float32Array, sca: Float32Array, scaleAnimated: boolean): Clip {
    const th = this.tgt.hierarchy;
    const n = this.animatedSlots.length;
    const keys = times.length;
    const interpolation = step ? Interpolation.STEP : Interpolation.LINEAR;
    const channels: Channel[] = [];
    const gather = (values: Float32Array, i: number, c: number): Float32Array => {
      const out = new Float32Array(keys * c);
      for (let k = 0; k < keys; k++) for (let j = 0; j < c; j++) out[k * c + j] = values[(k * n + i) * c + j];
      return out;
    };
    this.animatedSlots.forEach((slot, i) => {
      const node = th.order[slot];
      const r = gather(rot, i, 4);
      let slerp: { slerpAngle: Float64Array | undefined; slerpInvSin: Float64Array | undefined } = { slerpAngle: undefined, slerpInvSin: undefined };
      if (!step) slerp = prepareSlerpKeys(r, keys);
      const sampler = (values: Float32Array, components: number): Sampler => ({ interpolation, times, values, components, slerpAngle: undefined, slerpInvSin: undefined });
      channels.push({ node, slot, path: TargetPath.ROTATION, sampler: { ...sampler(r, 4), ...slerp }, timeline: 0 });
      if (this.takesTranslation[slot]) channels.push({ node, slot, path: TargetPath.TRANSLATION, sampler: sampler(gather(tra, i, 3), 3), timeline: 0 });
      if (scaleAnimated) channels.push({ node, slot, path: TargetPath.SCALE, sampler: sampler(gather(sca, i, 3), 3), timeline: 0 });
    });
    // A VRM animation's expression and look-at tracks belong to no joint: they go across as they are.
    return {
      name: clip.name, duration: Math.max(times[keys - 1], clip.expressionTracks || clip.lookAtTrack ? clip.duration : 0), channels, timelines: [times],
      ...(clip.expressionTracks ? { expressionTracks: clip.expressionTracks } : {}),
      ...(clip.lookAtTrack ? { lookAtTrack: clip.lookAtTrack } : {}),
    };
  }
}

/** The sorted union of key times, plus a uniform grid at `rate` keys per second when rate > 0. */
function keyTimes(sets: readonly Float32Array[], duration: number, rate: number): Float32Array {
  const all: number[] = [0];
  for (const s of sets) for (const t of s) all.push(t);
  if (rate > 0) {
    const n = Math.ceil(duration * rate);
    for (let i = 0; i <= n; i++) all.push(Math.min(i / rate, duration));
  }
  const f = Float32Array.from(all).sort();
  let w = 0;
  for (let i = 0; i < f.length; i++) if (i === 0 || f[i] !== f[w - 1]) f[w++] = f[i];
  return f.slice(0, w);
}

const swingDir = new Float64Array(6);

/**
 * Per target slot, the rotation A taking the target's reference bone direction onto the
 * source's (identity when they agree). A bone points from the joint to its nearest mapped
 * descendant: one gives the shortest-arc swing. Several (hips: spine and legs; chest: neck and
 * shoulders) give the rotation that best aligns all their directions at once (Horn's quaternion
 * method), not a swing of their mean direction: those directions nearly cancel, so the mean's
 * direction swings wildly with small differences in where the legs attach (70° between
 * CesiumMan and RiggedFigure). A joint with none takes its parent's A, so a hand keeps its rest
 * relation to the forearm.
 */
function swings(tgt: Model, sOf: Int32Array, tWorld: Float64Array, sWorld: Float64Array): Float64Array {
  const th = tgt.hierarchy;
  const out = new Float64Array(th.count * 4);
  const pairs: number[][] = Array.from({ length: th.count }, () => []);
  for (let c = 0; c < th.count; c++) {
    if (sOf[c] < 0) continue;
    const j = nearestMappedAncestor(th, sOf, c);
    if (j < 0) continue;
    if (unitBetween(tWorld, j, c, 0) && unitBetween(sWorld, sOf[j], sOf[c], 3)) pairs[j].push(...swingDir);
  }
  for (let t = 0; t < th.count; t++) {
    const o = t * 4;
    const n = pairs[t].length / 6;
    if (sOf[t] >= 0 && n === 1) {
      quatFromTo(pairs[t], 0, pairs[t], 3, out, o);
    } else if (sOf[t] >= 0 && n > 1) {
      bestRotation(pairs[t], out, o);
    } else {
      const p = nearestMappedAncestor(th, sOf, t);
      if (p >= 0) out.set(out.subarray(p * 4, p * 4 + 4), o);
      else out[o + 3] = 1;
    }
  }
  return out;
}

/**
 * The rotation q minimising Σ |q·uᵢ − vᵢ|² over pairs (u, v) of unit vectors, 6 numbers per pair
 * (Horn 1987: the top eigenvector of a 4×4 symmetric matrix, found by power iteration from the
 * identity, so an undetermined twist stays as small as it can).
 */
function bestRotation(pairs: readonly number[], dst: Float64Array, o: number): void {
  let sxx = 0, sxy = 0, sxz = 0, syx = 0, syy = 0, syz = 0, szx = 0, szy = 0, szz = 0;
  for (let i = 0; i < pairs.length; i += 6) {
    const ux = pairs[i], uy = pairs[i + 1], uz = pairs[i + 2], vx = pairs[i + 3], vy = pairs[i + 4], vz = pairs[i + 5];
    sxx += ux * vx; sxy += ux * vy; sxz += ux * vz;
    syx += uy * vx; syy += uy * vy; syz += uy * vz;
    szx += uz * vx; szy += uz * vy; szz += uz * vz;
  }
  // Shifted by the pair count so every eigenvalue is positive and the largest dominates.
  const c = pairs.length / 6;
  const n = [
    [sxx + syy + szz + c, syz - szy, szx - sxz, sxy - syx],
    [syz - szy, sxx - syy - szz + c, sxy + syx, szx + sxz],
    [szx - sxz, sxy + syx, -sxx + syy - szz + c, syz + szy],
    [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz + c],
  ];
  let v = [1, 0, 0, 0]; // (w, x, y, z)
  for (let it = 0; it < 500; it++) {
    const next = n.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3]);
    const l = Math.hypot(next[0], next[1], next[2], next[3]);
    const moved = Math.abs(next[0] / l - v[0]) + Math.abs(next[1] / l - v[1]) + Math.abs(next[2] / l - v[2]) + Math.abs(next[3] / l - v[3]);
    v = next.map((x) => x / l);
    if (moved < 1e-15) break;
  }
  dst[o] = v[1]; dst[o + 1] = v[2]; dst[o + 2] = v[3]; dst[o + 3] = v[0];
}

/** The unit vector from slot a's origin to slot b's in `world`, into swingDir at `o`; false when they coincide. */
function unitBetween(world: Float64Array, a: number, b: number, o: number): boolean {
  const x = world[b * 16 + 12] - world[a * 16 + 12], y = world[b * 16 + 13] - world[a * 16 + 13], z = world[b * 16 + 14] - world[a * 16 + 14];
  const l = Math.hypot(x, y, z);
  if (l < 1e-9) return false;
  swingDir[o] = x / l; swingDir[o + 1] = y / l; swingDir[o + 2] = z / l;
  return true;
}

/**
 * Target hip height / source hip height above the lowest mapped joint of each skeleton (the
 * same joints on both sides: feet or toes), in the reference poses (world Y, glTF's up). Falls
 * back to the ratio of the mapped joints' extents when either height is not positive (e.g. a
 * skeleton lying flat).
 */
function hipRatio(sOf: Int32Array, sWorld: Float64Array, tWorld: Float64Array, tHips: number): number {
  const measure = (world: Float64Array, slotOf: (t: number) => number): { height: number; extent: number } => {
    let minY = Infinity;
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let t = 0; t < sOf.length; t++) {
      if (sOf[t] < 0) continue;
      const o = slotOf(t) * 16 + 12;
      for (let c = 0; c < 3; c++) { lo[c] = Math.min(lo[c], world[o + c]); hi[c] = Math.max(hi[c], world[o + c]); }
      minY = Math.min(minY, world[o + 1]);
    }
    return { height: world[slotOf(tHips) * 16 + 13] - minY, extent: Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) };
  };
  const s = measure(sWorld, (t) => sOf[t]), t = measure(tWorld, (x) => x);
  const small = Math.max(s.extent, t.extent) * 1e-3;
  if (s.height > small && t.height > small) return t.height / s.height;
  return s.extent > 0 && t.extent > 0 ? t.extent / s.extent : 1;
}
