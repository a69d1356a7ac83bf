import type { AnimationTrack, GltfBuilder } from '../gltf/builder.ts';

/**
 * Procedural motion, baked to sampled LINEAR keyframes: the runtime only ever
 * sees sampled clips, like it would from any exported asset.
 */
export interface TrackSpec {
  /** Index into the rig's joints. */
  joint: number;
  path: 'rotation' | 'translation';
  /** Value at time `t` seconds: a quaternion [x, y, z, w] or a translation [x, y, z]. */
  at: (t: number) => ArrayLike<number>;
  /**
   * A root-motion track: it ends a loop somewhere else (the distance travelled per loop),
   * so the looping clip's "last key equals first key" rule does not apply to it.
   */
  travels?: boolean;
}

export interface ClipSpec {
  name: string;
  duration: number;
  /** Keys per second; the last key lands exactly on `duration`. */
  fps: number;
  /** Looping clips end on a copy of their first key so the wrap is seamless. */
  loop: boolean;
  tracks: TrackSpec[];
}

/** How far a looping track's value at `duration` may be from its first key before we call it an authoring bug. */
const LOOP_TOLERANCE = 1e-6;

/** Samples `clip` and adds it as an animation targeting `jointNodes[track.joint]`. */
export function addClip(builder: GltfBuilder, jointNodes: readonly number[], clip: ClipSpec): number {
  const keys = Math.round(clip.duration * clip.fps) + 1;
  const times = new Float32Array(keys);
  for (let k = 0; k < keys; k++) times[k] = (k * clip.duration) / (keys - 1);

  const tracks: AnimationTrack[] = clip.tracks.map((track) => {
    const isRotation = track.path === 'rotation';
    const n = isRotation ? 4 : 3;
    const values = new Float64Array(keys * n);
    for (let k = 0; k < keys; k++) {
      const v = track.at((k * clip.duration) / (keys - 1));
      for (let c = 0; c < n; c++) values[k * n + c] = v[c];
      if (isRotation) prepareQuaternion(values, k);
    }
    if (clip.loop && !track.travels) {
      const last = (keys - 1) * n;
      for (let c = 0; c < n; c++) {
        if (Math.abs(values[last + c] - values[c]) > LOOP_TOLERANCE) {
          throw new Error(`clip ${clip.name}: joint ${track.joint} ${track.path} does not loop`);
        }
        values[last + c] = values[c];
      }
    }
    return { node: jointNodes[track.joint], path: track.path, input: times, output: new Float32Array(values) };
  });
  return builder.addAnimationTracks(clip.name, tracks);
}

/**
 * Normalises key `k` and keeps it in the same hemisphere as key `k - 1`:
 * q and -q are the same rotation, but slerp between opposite signs takes the
 * long way round in runtimes that do not flip.
 */
function prepareQuaternion(values: Float64Array, k: number): void {
  const o = 4 * k;
  const len = Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]);
  let sign = 1 / len;
  if (k === 0) {
    if (values[o + 3] < 0) sign = -sign;
  } else {
    let d = 0;
    for (let c = 0; c < 4; c++) d += values[o + c] * values[o - 4 + c];
    if (d < 0) sign = -sign;
  }
  for (let c = 0; c < 4; c++) values[o + c] *= sign;
}
