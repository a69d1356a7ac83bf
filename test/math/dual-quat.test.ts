import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { rigidStretchFromMat4 } from '../../src/math/dual-quat.ts';
import { mulQuat, quatFromRotationMatrix3 } from '../../src/math/quat.ts';
import { composeTRS, invertMat4, multiplyMat4 } from '../../src/math/trs.ts';

const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-12) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `element ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

const dq = () => new Float64Array(8);
/** A unit quaternion in double precision (wgpu-matrix's are float32). */
const axisAngle = (axis: number[], degrees: number) => {
  const len = Math.hypot(axis[0], axis[1], axis[2]), half = (degrees * Math.PI) / 360;
  const k = Math.sin(half) / len;
  return [axis[0] * k, axis[1] * k, axis[2] * k, Math.cos(half)];
};

/** A symmetric 3×3 packed (xx yy zz xy xz yz) as a column-major 3×3. */
const unpack = (s: ArrayLike<number>) => [s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]];
/** The 3×3 (column-major) of a 4×4. */
const linear = (m: ArrayLike<number>) => [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
const mul3 = (a: number[], b: number[]) =>
  Array.from({ length: 9 }, (_, i) => {
    const c = Math.floor(i / 3), r = i % 3;
    return a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
  });
const det3 = (m: number[]) =>
  m[0] * (m[4] * m[8] - m[5] * m[7]) - m[3] * (m[1] * m[8] - m[2] * m[7]) + m[6] * (m[1] * m[5] - m[2] * m[4]);

/** The dual quaternion of "rotate by r, then translate by t": real r, dual ½·(t, 0)·r. */
const dualQuatOf = (r: ArrayLike<number>, t: ArrayLike<number>): number[] => {
  const d = mulQuat([t[0], t[1], t[2], 0], 0, Array.from(r), 0, [0, 0, 0, 0], 0);
  return [r[0], r[1], r[2], r[3], ...d.map((x) => 0.5 * x)];
};
/** The rigid matrix [R|t] of a unit dual quaternion: R from the real part r, t = 2·d·r* (vector part). */
const rigidOf = (q: ArrayLike<number>): Float64Array => {
  const r = [q[0], q[1], q[2], q[3]];
  const t = mulQuat([q[4], q[5], q[6], q[7]], 0, [-r[0], -r[1], -r[2], r[3]], 0, [0, 0, 0, 0], 0).map((x) => 2 * x);
  return composeTRS(t, r, [1, 1, 1], new Float64Array(16));
};

/** Splits m, then checks M = [R|t]·S exactly, R a rotation and S symmetric; returns R (3×3) and S. */
function splitAndCheck(m: Float32Array | Float64Array, eps = 1e-12): { rotation: number[]; stretch: number[]; dq: Float64Array } {
  const q = dq(), s = new Float64Array(6);
  rigidStretchFromMat4(m, q, s);
  expect(Math.hypot(q[0], q[1], q[2], q[3])).toBeCloseTo(1, 14);
  const rigid = rigidOf(q);
  const rotation = linear(rigid);
  const scale = Math.max(1, ...linear(m).map(Math.abs));
  close(mul3(rotation, unpack(s)), linear(m), eps * scale);
  close([rigid[12], rigid[13], rigid[14]], [m[12], m[13], m[14]], eps * Math.max(1, Math.abs(m[12]), Math.abs(m[13]), Math.abs(m[14])));
  expect(det3(rotation)).toBeCloseTo(1, 12);
  return { rotation, stretch: Array.from(s), dq: q };
}

describe('rigidStretchFromMat4: M = [R|t]·S, S symmetric', () => {
  it('a rigid matrix: R is its rotation, S the identity', () => {
    const m = composeTRS([3, 4, 5], axisAngle([1, 2, 3], 77), [1, 1, 1], new Float64Array(16));
    const { stretch, dq: q } = splitAndCheck(m);
    close(stretch, [1, 1, 1, 0, 0, 0], 1e-12);
    const rotation3 = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
    close(q, dualQuatOf(quatFromRotationMatrix3(rotation3, 0, [0, 0, 0, 0], 0), [m[12], m[13], m[14]]), 1e-12);
  });

  it('a joint scaled non-uniformly under a rotated bind: R is the joint rotation, S the scale in bind space', () => {
    // jointWorld = T·Rj·Sj, bind = Tb·Rb, palette = jointWorld · bind⁻¹.
    const rj = axisAngle([0, 0, 1], 50), rb = axisAngle([1, 0, 0], 35);
    const joint = composeTRS([1, 2, 0], rj, [2, 0.5, 1.5], new Float64Array(16));
    const bindInverse = new Float64Array(16);
    expect(invertMat4(composeTRS([0, 1, 0], rb, [1, 1, 1], new Float64Array(16)), bindInverse)).toBe(true);
    const m = multiplyMat4(joint, bindInverse, new Float64Array(16));
    const { rotation, stretch } = splitAndCheck(m);
    const rotationOf = (q: number[]) => linear(composeTRS([0, 0, 0], q, [1, 1, 1], new Float64Array(16)));
    const transpose = (a: number[]) => [a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]];
    close(rotation, mul3(rotationOf(rj), transpose(rotationOf(rb))));
    close(unpack(stretch), mul3(mul3(rotationOf(rb), [2, 0, 0, 0, 0.5, 0, 0, 0, 1.5]), transpose(rotationOf(rb))));
  });

  it('uniform scale: S = s·I', () => {
    const m = composeTRS([0, 0, 0], axisAngle([0, 1, 1], 200), [0.01, 0.01, 0.01], new Float64Array(16));
    close(splitAndCheck(m).stretch, [0.01, 0.01, 0.01, 0, 0, 0], 1e-14);
  });

  it('shear: R is the nearest rotation (S positive definite), R·S = M', () => {
    const m = Float64Array.from([1, 0.2, -0.3, 0, 0.7, 1.4, 0.1, 0, -0.2, 0.5, 0.9, 0, 3, 2, 1, 1]);
    const { rotation, stretch } = splitAndCheck(m);
    // Positive definite: all leading principal minors positive.
    const s = unpack(stretch);
    expect(s[0]).toBeGreaterThan(0);
    expect(s[0] * s[4] - s[1] * s[3]).toBeGreaterThan(0);
    expect(det3(s)).toBeGreaterThan(0);
    // Nearest rotation maximises trace(Rᵀ·A); no perturbed rotation does better.
    const traceWith = (r: number[]) => r.reduce((sum, x, i) => sum + x * linear(m)[i], 0);
    for (const [axis, angle] of [[[1, 0, 0], 1], [[0, 1, 0], -1], [[0, 0, 1], 2]] as const) {
      const perturbed = mul3(linear(mat4.fromQuat(axisAngle([...axis], angle))), rotation);
      expect(traceWith(perturbed)).toBeLessThan(traceWith(rotation));
    }
  });

  it('a mirror stays in S (det S < 0) and R stays a rotation', () => {
    const m = composeTRS([1, 0, 0], axisAngle([0, 1, 0], 30), [-1, 2, 1], new Float64Array(16));
    const { stretch } = splitAndCheck(m);
    expect(det3(unpack(stretch))).toBeLessThan(0);
  });

  it('a collapsed joint (rank 0, 1, 2) still splits exactly', () => {
    const zero = composeTRS([1, 2, 3], [0, 0, 0, 1], [0, 0, 0], new Float64Array(16));
    const { stretch, rotation } = splitAndCheck(zero);
    close(stretch, [0, 0, 0, 0, 0, 0]);
    close(rotation, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
    splitAndCheck(composeTRS([1, 2, 3], axisAngle([1, 2, 0], 60), [0, 2, 0], new Float64Array(16)));
    splitAndCheck(composeTRS([1, 2, 3], axisAngle([1, 2, 0], 60), [3, 0, 0.5], new Float64Array(16)));
    splitAndCheck(composeTRS([1, 2, 3], axisAngle([1, 2, 0], 60), [0, 0, 1e-20], new Float64Array(16)));
  });

  it('reads and writes at offsets, and may overwrite its own input', () => {
    const m = composeTRS([1, 2, 3], axisAngle([1, 0, 0], 45), [2, 1, 1], new Float64Array(16));
    const expectedDq = dq(), expectedS = new Float64Array(6);
    rigidStretchFromMat4(m, expectedDq, expectedS);
    const buffer = new Float64Array(40);
    buffer.set(m, 3);
    rigidStretchFromMat4(buffer, buffer, buffer, 3, 3, 11);
    close(buffer.subarray(3, 11), expectedDq);
    close(buffer.subarray(11, 17), expectedS);
    close(buffer.subarray(0, 3), [0, 0, 0]);
  });
});
