import { Interpolation, TargetPath } from '../gltf/constants.ts';
import type { Clip, Sampler } from '../gltf/model.ts';
import { slerpQuat } from '../math/quat.ts';
import type { Pose } from './pose.ts';

/**
 * Per-channel key cursors of one clip being played. Sampling starts its search at the
 * last key found, so forward playback costs O(1) per channel; a jump backwards or far
 * ahead falls back to binary search. One cursor per playing instance of a clip.
 */
export interface ClipCursor {
  readonly clip: Clip;
  readonly keys: Int32Array;
}

export function createClipCursor(clip: Clip): ClipCursor {
  return { clip, keys: new Int32Array(clip.channels.length) };
}

/** Returns k with times[k] ≤ t < times[k+1] (0 when t < times[0], last key when t ≥ the last time). */
export function findKey(times: Float32Array, t: number, hint: number): number {
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

/**
 * Samples `cursor.clip` at `time` (seconds) into `pose`, overwriting only the animated
 * values. Times outside a channel's keys clamp to its first/last key (glTF §3.11).
 */
export function sampleClip(cursor: ClipCursor, time: number, pose: Pose): void {
  const channels = cursor.clip.channels;
  const keys = cursor.keys;
  for (let c = 0; c < channels.length; c++) {
    const ch = channels[c];
    const s = ch.sampler;
    const k = findKey(s.times, time, keys[c]);
    keys[c] = k;
    switch (ch.path) {
      case TargetPath.TRANSLATION: sampleVector(s, k, time, pose.translation, ch.slot * 3); break;
      case TargetPath.SCALE: sampleVector(s, k, time, pose.scale, ch.slot * 3); break;
      case TargetPath.ROTATION: sampleRotation(s, k, time, pose.rotation, ch.slot * 4); break;
      case TargetPath.WEIGHTS: {
        const offset = pose.weightOffsets[ch.slot];
        // A node whose weights array is shorter than the targets keeps what fits.
        if (pose.weightOffsets[ch.slot + 1] - offset >= s.components) sampleVector(s, k, time, pose.weights, offset);
        break;
      }
    }
  }
}

/** Interpolation parameter in [0, 1] between key k and k+1, or -1 when clamped to key k. */
function keyFraction(times: Float32Array, k: number, time: number): number {
  if (k === times.length - 1 || time <= times[k]) return -1;
  return (time - times[k]) / (times[k + 1] - times[k]);
}

function sampleVector(s: Sampler, k: number, time: number, out: Float64Array | Float32Array, o: number): void {
  const n = s.components;
  const v = s.values;
  const u = keyFraction(s.times, k, time);
  if (s.interpolation === Interpolation.CUBICSPLINE) {
    const stride = 3 * n; // in-tangent, value, out-tangent per key
    if (u < 0) {
      for (let i = 0; i < n; i++) out[o + i] = v[k * stride + n + i];
      return;
    }
    const dt = s.times[k + 1] - s.times[k];
    const u2 = u * u, u3 = u2 * u;
    const h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * dt;
    const h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * dt;
    const a = k * stride, b = (k + 1) * stride;
    for (let i = 0; i < n; i++) {
      out[o + i] = h00 * v[a + n + i] + h10 * v[a + 2 * n + i] + h01 * v[b + n + i] + h11 * v[b + i];
    }
    return;
  }
  if (u < 0 || s.interpolation === Interpolation.STEP) {
    for (let i = 0; i < n; i++) out[o + i] = v[k * n + i];
    return;
  }
  const a = k * n, b = a + n;
  for (let i = 0; i < n; i++) out[o + i] = v[a + i] + (v[b + i] - v[a + i]) * u;
}

function sampleRotation(s: Sampler, k: number, time: number, out: Float64Array, o: number): void {
  if (s.interpolation === Interpolation.LINEAR) {
    const u = keyFraction(s.times, k, time);
    if (u < 0) {
      const v = s.values;
      out[o] = v[k * 4]; out[o + 1] = v[k * 4 + 1]; out[o + 2] = v[k * 4 + 2]; out[o + 3] = v[k * 4 + 3];
    } else {
      slerpQuat(s.values, s.values, u, out, k * 4, k * 4 + 4, o);
    }
    return;
  }
  sampleVector(s, k, time, out, o);
  if (s.interpolation === Interpolation.CUBICSPLINE) {
    // A spline of quaternions leaves the unit sphere between keys (glTF §3.11: normalise).
    const x = out[o], y = out[o + 1], z = out[o + 2], w = out[o + 3];
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (len > 0) {
      const il = 1 / len;
      out[o] = x * il; out[o + 1] = y * il; out[o + 2] = z * il; out[o + 3] = w * il;
    } else {
      out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
    }
  }
}
