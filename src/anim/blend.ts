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

  validate(): void {
    const { from, to, output } = this;
    if (from.rotation.length !== to.rotation.length || from.rotation.length !== output.rotation.length) {
      throw new RangeError('BlendingJob: poses are of different skeletons');
    }
    if (!(this.weight >= 0 && this.weight <= 1)) throw new RangeError(`BlendingJob: weight ${this.weight} is not in [0, 1]`);
  }

  run(): void {
    this.validate();
    const w = this.weight, iw = 1 - w;
    const a = this.from, b = this.to, out = this.output;
    lerpArray(a.translation, b.translation, w, out.translation);
    lerpArray(a.scale, b.scale, w, out.scale);
    lerpArray(a.weights, b.weights, w, out.weights);
    const ra = a.rotation, rb = b.rotation, ro = out.rotation;
    for (let o = 0; o < ra.length; o += 4) {
      const ax = ra[o], ay = ra[o + 1], az = ra[o + 2], aw = ra[o + 3];
      let bx = rb[o], by = rb[o + 1], bz = rb[o + 2], bw = rb[o + 3];
      let cos = ax * bx + ay * by + az * bz + aw * bw;
      if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
      let ka = iw, kb = w;
      if (cos < 0.9999) {
        const angle = Math.acos(cos);
        const inv = 1 / Math.sin(angle);
        ka = Math.sin(iw * angle) * inv;
        kb = Math.sin(w * angle) * inv;
      }
      const x = ka * ax + kb * bx, y = ka * ay + kb * by, z = ka * az + kb * bz, qw = ka * aw + kb * bw;
      const il = 1 / Math.sqrt(x * x + y * y + z * z + qw * qw);
      ro[o] = x * il; ro[o + 1] = y * il; ro[o + 2] = z * il; ro[o + 3] = qw * il;
    }
  }
}

function lerpArray(a: Float64Array | Float32Array, b: Float64Array | Float32Array, w: number, out: Float64Array | Float32Array): void {
  for (let i = 0; i < a.length; i++) out[i] = a[i] + (b[i] - a[i]) * w;
}
