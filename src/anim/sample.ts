import { Interpolation, TargetPath } from '../gltf/constants.ts';
import type { Channel, Clip, Sampler } from '../gltf/model.ts';
import { normalizeQuat } from '../math/quat.ts';
import type { Pose } from './pose.ts';

/**
 * One playing instance of a clip: the time to sample and per-channel key cursors.
 * Sampling starts its key search at the last key found, so forward playback costs
 * O(1) per channel; a jump backwards or far ahead falls back to binary search.
 *
 * `time` lives here rather than in an argument so the per-frame call passes no
 * floating-point value: V8 boxes a double handed to a function it does not inline,
 * which would allocate once per character per frame.
 */
export interface ClipCursor {
  readonly clip: Clip;
  /** The clip's LINEAR channels laid out for sampling (shared by every cursor of the clip). */
  readonly tracks: ClipTracks;
  /** Per timeline of the clip: the key at or before `time`. */
  readonly keys: Int32Array;
  /** Per timeline: the fraction between that key and the next, or -1 when clamped to the key. */
  readonly fractions: Float64Array;
  /** Seconds; each channel clamps to its own first/last key outside its range. */
  time: number;
}

/**
 * A clip's LINEAR translation/scale and rotation channels as flat arrays (structure of
 * arrays, as ozz-animation's runtime animations are): per channel its target slot, its
 * timeline and where its keys start in one shared value array. Everything else (STEP,
 * CUBICSPLINE, morph weights) is listed in `other`.
 */
export interface ClipTracks {
  /** LINEAR translation (0) or scale (2) channels: path, slot, timeline, first value. */
  readonly vectorPath: Uint8Array;
  readonly vectorSlot: Int32Array;
  readonly vectorTimeline: Int32Array;
  readonly vectorStart: Int32Array;
  readonly vectorValues: Float32Array;
  /** LINEAR rotation channels: slot, timeline, first key; 4 values and one slerp interval per key. */
  readonly rotationSlot: Int32Array;
  readonly rotationTimeline: Int32Array;
  readonly rotationStart: Int32Array;
  readonly rotationValues: Float32Array;
  readonly rotationAngle: Float64Array;
  readonly rotationInvSin: Float64Array;
  /** Indices into `clip.channels` of every other channel. */
  readonly other: Int32Array;
}

const compiled = new WeakMap<Clip, ClipTracks>();

/** Lays out a clip's channels for sampling, once per clip. */
export function clipTracks(clip: Clip): ClipTracks {
  let tracks = compiled.get(clip);
  if (tracks) return tracks;
  const vectors: Channel[] = [], rotations: Channel[] = [], other: number[] = [];
  clip.channels.forEach((ch, i) => {
    const linear = ch.sampler.interpolation === Interpolation.LINEAR;
    if (linear && (ch.path === TargetPath.TRANSLATION || ch.path === TargetPath.SCALE)) vectors.push(ch);
    else if (linear && ch.path === TargetPath.ROTATION) rotations.push(ch);
    else other.push(i);
  });
  const vectorStart = new Int32Array(vectors.length);
  let total = 0;
  vectors.forEach((ch, i) => { vectorStart[i] = total; total += ch.sampler.values.length; });
  const vectorValues = new Float32Array(total);
  vectors.forEach((ch, i) => vectorValues.set(ch.sampler.values, vectorStart[i]));
  const rotationStart = new Int32Array(rotations.length);
  let keys = 0;
  rotations.forEach((ch, i) => { rotationStart[i] = keys; keys += ch.sampler.times.length; });
  const rotationValues = new Float32Array(keys * 4);
  const rotationAngle = new Float64Array(keys);
  const rotationInvSin = new Float64Array(keys);
  rotations.forEach((ch, i) => {
    rotationValues.set(ch.sampler.values, rotationStart[i] * 4);
    rotationAngle.set(ch.sampler.slerpAngle!, rotationStart[i]);
    rotationInvSin.set(ch.sampler.slerpInvSin!, rotationStart[i]);
  });
  tracks = {
    vectorPath: Uint8Array.from(vectors, (c) => c.path),
    vectorSlot: Int32Array.from(vectors, (c) => c.slot),
    vectorTimeline: Int32Array.from(vectors, (c) => c.timeline),
    vectorStart, vectorValues,
    rotationSlot: Int32Array.from(rotations, (c) => c.slot),
    rotationTimeline: Int32Array.from(rotations, (c) => c.timeline),
    rotationStart, rotationValues, rotationAngle, rotationInvSin,
    other: Int32Array.from(other),
  };
  compiled.set(clip, tracks);
  return tracks;
}

/**
 * A cursor for sampling `clip`: it remembers each timeline's last key, so sampling forward in time finds the
 * next key without a search.
 */
export function createClipCursor(clip: Clip): ClipCursor {
  const n = clip.timelines.length;
  return { clip, tracks: clipTracks(clip), keys: new Int32Array(n), fractions: new Float64Array(n), time: 0 };
}

/**
 * Returns k with times[k] ≤ t < times[k+1] for t = `at.time` (0 when t < times[0], the last
 * key when t ≥ the last time). The time comes in an object, as for `sampleVector`.
 */
export function findKey(times: Float32Array, at: { readonly time: number }, hint: number): number {
  searchTime[0] = at.time;
  return findKeyAtSearchTime(times, hint);
}

/**
 * The time `findKeyAtSearchTime` looks for. It is passed through this array rather than as
 * an argument because V8 boxes (allocates) a double handed to a call it does not inline,
 * and whether it inlines depends on the caller's budget.
 */
const searchTime = new Float64Array(1);

function findKeyAtSearchTime(times: Float32Array, hint: number): number {
  const t = searchTime[0];
  const last = times.length - 1;
  let k = hint > last ? last : hint;
  if (times[k] <= t) {
    // Forward playback: usually the same key or the next one.
    if (k === last || t < times[k + 1]) return k;
    if (k + 1 === last || t < times[k + 2]) return k + 1;
  }
  if (t < times[0]) return 0;
  if (t >= times[last]) return last;
  let lo = 0, hi = last; // times[lo] ≤ t < times[hi]
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

/** Samples `cursor.clip` at `time` seconds into `pose` (see `sampleCursor`). */
export function sampleClip(cursor: ClipCursor, time: number, pose: Pose): void {
  cursor.time = time;
  sampleCursor(cursor, pose);
}

/**
 * Samples `cursor.clip` at `cursor.time` into `pose`, overwriting only the animated
 * values (glTF §3.11: LINEAR with shortest-arc slerp for rotations, STEP, CUBICSPLINE;
 * clamped outside each channel's keys). Allocates nothing. Keys are found once per
 * timeline, then every channel on it interpolates; the common LINEAR cases are written
 * inline, since this loop is most of the per-frame CPU cost of animation.
 */
export function sampleCursor(cursor: ClipCursor, pose: Pose): void {
  findCursorKeys(cursor);
  sampleLinearChannels(cursor, pose);
  sampleOtherChannels(cursor, pose);
}

/**
 * The first step of `sampleCursor`: per timeline, the key at or before `cursor.time` and the
 * fraction to the next (-1: clamped), into `cursor.keys` and `cursor.fractions`.
 */
export function findCursorKeys(cursor: ClipCursor): void {
  const { keys, fractions } = cursor;
  const time = cursor.time;
  const timelines = cursor.clip.timelines;
  searchTime[0] = time;
  for (let t = 0; t < timelines.length; t++) {
    const times = timelines[t];
    const k = findKeyAtSearchTime(times, keys[t]);
    keys[t] = k;
    fractions[t] = k === times.length - 1 || time <= times[k] ? -1 : (time - times[k]) / (times[k + 1] - times[k]);
  }
}

/** The LINEAR translation, scale and rotation channels (`cursor.tracks`), from the keys `findCursorKeys` found. */
export function sampleLinearChannels(cursor: ClipCursor, pose: Pose): void {
  const { keys, fractions, tracks } = cursor;
  const vPath = tracks.vectorPath, vSlot = tracks.vectorSlot, vTimeline = tracks.vectorTimeline;
  const vStart = tracks.vectorStart, vValues = tracks.vectorValues;
  const translation = pose.translation, scale = pose.scale;
  for (let i = 0; i < vPath.length; i++) {
    const tl = vTimeline[i];
    const u = fractions[tl];
    const a = vStart[i] + keys[tl] * 3;
    const out = vPath[i] === TargetPath.TRANSLATION ? translation : scale;
    const o = vSlot[i] * 3;
    if (u < 0) {
      out[o] = vValues[a]; out[o + 1] = vValues[a + 1]; out[o + 2] = vValues[a + 2];
    } else {
      out[o] = vValues[a] + (vValues[a + 3] - vValues[a]) * u;
      out[o + 1] = vValues[a + 1] + (vValues[a + 4] - vValues[a + 1]) * u;
      out[o + 2] = vValues[a + 2] + (vValues[a + 5] - vValues[a + 2]) * u;
    }
  }

  const rSlot = tracks.rotationSlot, rTimeline = tracks.rotationTimeline, rStart = tracks.rotationStart;
  const rValues = tracks.rotationValues, rAngle = tracks.rotationAngle, rInvSin = tracks.rotationInvSin;
  const rotation = pose.rotation;
  for (let i = 0; i < rSlot.length; i++) {
    const tl = rTimeline[i];
    const u = fractions[tl];
    const key = rStart[i] + keys[tl];
    const a = key * 4;
    const o = rSlot[i] * 4;
    if (u < 0) {
      rotation[o] = rValues[a]; rotation[o + 1] = rValues[a + 1]; rotation[o + 2] = rValues[a + 2]; rotation[o + 3] = rValues[a + 3];
      continue;
    }
    // Slerp of keys already in one hemisphere: sin((1-u)θ)/sin θ · a + sin(uθ)/sin θ · b.
    const invSin = rInvSin[key];
    let ka: number, kb: number;
    if (invSin === 0) {
      ka = 1 - u; kb = u;
    } else {
      const angle = rAngle[key];
      ka = sinHalfPi((1 - u) * angle) * invSin;
      kb = sinHalfPi(u * angle) * invSin;
    }
    rotation[o] = ka * rValues[a] + kb * rValues[a + 4];
    rotation[o + 1] = ka * rValues[a + 1] + kb * rValues[a + 5];
    rotation[o + 2] = ka * rValues[a + 2] + kb * rValues[a + 6];
    rotation[o + 3] = ka * rValues[a + 3] + kb * rValues[a + 7];
  }
}

/** Every channel outside `sampleLinearChannels` (`tracks.other`), from the keys `findCursorKeys` found. */
export function sampleOtherChannels(cursor: ClipCursor, pose: Pose): void {
  const other = cursor.tracks.other;
  for (let i = 0; i < other.length; i++) sampleOther(cursor, other[i], pose);
}

/**
 * sin x for 0 ≤ x ≤ π/2 (every slerp angle: keys share a hemisphere) by its Taylor
 * series to x¹³, accurate to 7e-10 there, with no call into Math.sin.
 */
function sinHalfPi(x: number): number {
  const x2 = x * x;
  return x * (1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (1 / 362880 + x2 * (-1 / 39916800 + x2 * (1 / 6227020800)))))));
}

/** STEP, CUBICSPLINE and morph weights: the less common channels, kept out of the hot loop. */
function sampleOther(cursor: ClipCursor, c: number, pose: Pose): void {
  const ch = cursor.clip.channels[c];
  const s = ch.sampler;
  const k = cursor.keys[ch.timeline];
  switch (ch.path) {
    case TargetPath.TRANSLATION: sampleVector(s, k, cursor, pose.translation, ch.slot * 3); break;
    case TargetPath.SCALE: sampleVector(s, k, cursor, pose.scale, ch.slot * 3); break;
    case TargetPath.ROTATION: {
      const o = ch.slot * 4;
      sampleVector(s, k, cursor, pose.rotation, o);
      // A spline of quaternions leaves the unit sphere between keys (glTF §3.11: normalise).
      if (s.interpolation === Interpolation.CUBICSPLINE) normalizeQuat(pose.rotation, o, pose.rotation, o);
      break;
    }
    case TargetPath.WEIGHTS: {
      const offset = pose.weightOffsets[ch.slot];
      // A node whose weights array is shorter than the targets keeps what fits.
      if (pose.weightOffsets[ch.slot + 1] - offset >= s.components) sampleVector(s, k, cursor, pose.weights, offset);
      break;
    }
  }
}

/**
 * Any interpolation of `components` values per key at `cursor.time`, component-wise (rotations are
 * normalised by the caller); `k` from `findKey`. The time comes in an object, not as a number, so
 * no double is boxed when this call is not inlined.
 */
export function sampleVector(s: Sampler, k: number, cursor: { readonly time: number }, out: Float64Array | Float32Array, o: number): void {
  const time = cursor.time;
  const n = s.components;
  const v = s.values;
  const times = s.times;
  const clamped = k === times.length - 1 || time <= times[k];
  if (s.interpolation === Interpolation.CUBICSPLINE) {
    const stride = 3 * n; // in-tangent, value, out-tangent per key
    if (clamped) {
      for (let i = 0; i < n; i++) out[o + i] = v[k * stride + n + i];
      return;
    }
    const dt = times[k + 1] - times[k];
    const u = (time - times[k]) / dt;
    const u2 = u * u, u3 = u2 * u;
    const h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * dt;
    const h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * dt;
    const a = k * stride, b = (k + 1) * stride;
    for (let i = 0; i < n; i++) {
      out[o + i] = h00 * v[a + n + i] + h10 * v[a + 2 * n + i] + h01 * v[b + n + i] + h11 * v[b + i];
    }
    return;
  }
  if (clamped || s.interpolation === Interpolation.STEP) {
    for (let i = 0; i < n; i++) out[o + i] = v[k * n + i];
    return;
  }
  const u = (time - times[k]) / (times[k + 1] - times[k]);
  const a = k * n, b = a + n;
  for (let i = 0; i < n; i++) out[o + i] = v[a + i] + (v[b + i] - v[a + i]) * u;
}
