import { slerpQuat } from '../math/quat.ts';
import type { Pose } from './pose.ts';

/**
 * Two-pose blend (ozz-animation's BlendingJob for two layers): per node, translation
 * and scale by lerp, rotation by slerp on the shortest arc, morph weights by lerp:
 *   P = (1 − weight) · from + weight · to,   R = slerp(from, to, weight).
 * `output` may be `from` or `to`. The weight is a field rather than an argument so the
 * per-frame call passes no double (V8 boxes doubles passed to functions it does not
 * inline).
 */
export class BlendingJob {
  /** 0 gives `from`, 1 gives `to`. */
  weight = 0;

  constructor(
    readonly from: Pose,
    readonly to: Pose,
    readonly output: Pose,
  ) {}

  /**
   * Checks that `from`, `to` and `output` are of one skeleton; throws a RangeError otherwise. `run` calls it
   * first.
   */
  validate(): void {
    const { from, to, output } = this;
    if (from.rotation.length !== to.rotation.length || from.rotation.length !== output.rotation.length) {
      throw new RangeError('BlendingJob: poses are of different skeletons');
    }
    if (!(this.weight >= 0 && this.weight <= 1)) throw new RangeError(`BlendingJob: weight ${this.weight} is not in [0, 1]`);
  }

  /** Writes the blend of `from` and `to` at `weight` into `output`. */
  run(): void {
    this.validate();
    const w = this.weight;
    const a = this.from, b = this.to, out = this.output;
    lerpArray(a.translation, b.translation, w, out.translation);
    lerpArray(a.scale, b.scale, w, out.scale);
    lerpArray(a.weights, b.weights, w, out.weights);
    const ra = a.rotation, rb = b.rotation, ro = out.rotation;
    fraction[0] = w;
    for (let o = 0; o < ra.length; o += 4) slerpQuat(ra, o, rb, o, fraction, 0, ro, o);
  }
}

/** The blend weight as `slerpQuat` reads it (module-level: run() allocates nothing). */
const fraction = new Float64Array(1);

function lerpArray(a: Float64Array | Float32Array, b: Float64Array | Float32Array, w: number, out: Float64Array | Float32Array): void {
  for (let i = 0; i < a.length; i++) out[i] = a[i] + (b[i] - a[i]) * w;
}
