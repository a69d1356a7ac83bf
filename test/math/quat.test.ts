import { describe, expect, it } from 'vitest';
import { quat } from 'wgpu-matrix';
import {
  mulConjQuat, mulQuat, normalizeQuat, quatFromRotationMatrix3, quatFromTo, rotateVec, rotationAngle, rotationOfMatrix,
  scaleRotation, slerpQuat,
} from '../../src/math/quat.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { axisAngle, conjQ, mulQ, quatAngle } from '../anim/fixtures.ts';

const f64 = (...v: number[]) => Float64Array.from(v);
const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-12) => {
  expect(a.length, `${Array.from(a)} vs ${Array.from(b)}`).toBeGreaterThanOrEqual(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `component ${i}: ${Array.from(a)} vs ${Array.from(b)}`).toBeLessThan(eps);
};
const q1 = axisAngle([0.6, 0, 0.8], 1.1), q2 = axisAngle([0, 1, 0], -0.7);

describe('slerpQuat', () => {
  const a = [0, 0, 0, 1];
  const b = [0, 0, Math.SQRT1_2, Math.SQRT1_2]; // 90° about z
  const out = () => [0, 0, 0, 0];
  it('halfway is the 45° rotation', () => {
    close(slerpQuat(a, 0, b, 0, [0.5], 0, out(), 0), [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)], 1e-6);
  });
  it('a third of the way is 30° (constant angular speed, unlike nlerp)', () => {
    close(slerpQuat(a, 0, b, 0, [1 / 3], 0, out(), 0), [0, 0, Math.sin(Math.PI / 12), Math.cos(Math.PI / 12)], 1e-6);
  });
  it('takes the shortest arc when the quaternions are in opposite hemispheres', () => {
    const negB = b.map((v) => -v);
    close(slerpQuat(a, 0, negB, 0, [0.5], 0, out(), 0), [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)], 1e-6);
  });
  it('matches wgpu-matrix slerp for a general pair', () => {
    const p1 = quat.normalize(quat.create(0.1, 0.7, -0.2, 0.6));
    const p2 = quat.normalize(quat.create(-0.5, 0.1, 0.4, 0.3));
    close(slerpQuat(p1, 0, p2, 0, [0.3], 0, out(), 0), quat.slerp(p1, p2, 0.3), 1e-6);
  });
  it('may write over its input', () => {
    const q = [0, 0, 0, 1];
    slerpQuat(q, 0, b, 0, [1], 0, q, 0);
    close(q, b, 1e-6);
  });
  it('reads every input and writes dst at its offset, leaving the rest of dst alone', () => {
    const buf = f64(7, ...q1, 8, ...q2, 0.25);
    const dst = f64(-1, -1, -1, -1, -1, -1);
    expect(slerpQuat(buf, 1, buf, 6, buf, 10, dst, 1)).toBe(dst);
    close(dst, [-1, ...slerpQuat(q1, 0, q2, 0, [0.25], 0, out(), 0), -1]);
    expect(quatAngle(dst.subarray(1, 5), q1)).toBeCloseTo(0.25 * quatAngle(q1, q2), 12);
  });
  it('quaternions closer than the lerp threshold stay within 1e-7 rad of exact slerp', () => {
    // 1.6° of rotation apart: the widest gap the lerp branch handles.
    const near = axisAngle([0.6, 0, 0.8], 1.1 + 0.0282);
    for (const t of [0.1, 0.25, 0.5, 0.75]) {
      const q = slerpQuat(q1, 0, near, 0, [t], 0, out(), 0);
      expect(Math.abs(quatAngle(q, q1) - t * 0.0282)).toBeLessThan(1e-7);
      expect(Math.hypot(q[0], q[1], q[2], q[3])).toBeCloseTo(1, 15);
    }
  });
});

describe('normalizeQuat', () => {
  it('makes a unit quaternion and turns zero into identity', () => {
    close(normalizeQuat([0, 0, 2, 0], 0, [0, 0, 0, 0], 0), [0, 0, 1, 0]);
    close(normalizeQuat([0, 0, 0, 0], 0, [0, 0, 0, 0], 0), [0, 0, 0, 1]);
  });
  it('in place at an offset', () => {
    const q = [9, 0, 3, 0, 4];
    expect(normalizeQuat(q, 1, q, 1)).toBe(q);
    close(q, [9, 0, 0.6, 0, 0.8]);
  });
});

describe('products and rotations', () => {
  it('mulQuat / mulConjQuat: Hamilton products at offsets; dst may alias either input', () => {
    const buf = f64(9, ...q1, ...q2);
    mulQuat(buf, 1, buf, 5, buf, 1);
    close(buf.subarray(1, 5), mulQ(q1, q2));
    expect(buf[0]).toBe(9);
    const b = f64(...q1, ...q2);
    mulConjQuat(b, 0, b, 4, b, 4);
    close(b.subarray(4), mulQ(conjQ(q1), q2));
  });

  it('rotateVec turns x by 90° about z into y, and may write over its input', () => {
    const v = f64(1, 0, 0);
    rotateVec(Float64Array.from(axisAngle([0, 0, 1], Math.PI / 2)), 0, v, 0, v, 0);
    close(v, [0, 1, 0], 1e-15);
  });

  it('quatFromRotationMatrix3 inverts the rotation of composeTRS, at offsets', () => {
    const m = composeTRS([0, 0, 0], q1, [1, 1, 1], new Float64Array(16));
    const r = f64(5, m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]);
    const q = new Float64Array(6);
    expect(quatFromRotationMatrix3(r, 1, q, 2)).toBe(q);
    expect(quatAngle(q.subarray(2), q1)).toBeLessThan(1e-12);
    close(q.subarray(0, 2), [0, 0]);
  });

  it('rotationOfMatrix recovers the rotation of a scaled (and a mirrored) TRS matrix', () => {
    const m = composeTRS([1, 2, 3], q1, [2, 3, 0.5], new Float64Array(16));
    const q = new Float64Array(4);
    rotationOfMatrix(m, 0, q, 0);
    expect(quatAngle(q, q1)).toBeLessThan(1e-12);
    const mirrored = composeTRS([0, 0, 0], q2, [-1, 1, 1], new Float64Array(20), 0, 0, 0, 4);
    rotationOfMatrix(mirrored, 4, q, 0);
    expect(quatAngle(q, q2)).toBeLessThan(1e-12); // the mirror folds into the x column, as decomposeTRS does
  });

  it('quatFromTo: shortest arc, opposite vectors, zero vectors', () => {
    const q = new Float64Array(4), v = new Float64Array(3);
    const u = f64(3, 0, 0), w = f64(0, 0, -2);
    quatFromTo(u, 0, w, 0, q, 0);
    rotateVec(q, 0, f64(1, 0, 0), 0, v, 0);
    close(v, [0, 0, -1]);
    expect(q[1]).toBeCloseTo(Math.SQRT1_2, 12); // 90° about +y: the axis is u × w
    quatFromTo(u, 0, f64(-1, 0, 0), 0, q, 0);
    rotateVec(q, 0, f64(1, 0, 0), 0, v, 0);
    close(v, [-1, 0, 0]);
    quatFromTo(u, 0, f64(0, 0, 0), 0, q, 0);
    expect(Array.from(q)).toEqual([0, 0, 0, 1]);
  });

  it('scaleRotation: a fraction of the angle on the shortest arc; rotationAngle reads it back', () => {
    const q = Float64Array.from(axisAngle([0, 0, 1], Math.PI / 2)), out = new Float64Array(4), k = f64(0.5, 0);
    scaleRotation(q, 0, k, 0, out, 0);
    close(out, axisAngle([0, 0, 1], Math.PI / 4), 1e-15);
    const negated = q.map((x) => -x); // the same rotation
    scaleRotation(negated, 0, k, 0, negated, 0);
    close(negated, axisAngle([0, 0, 1], Math.PI / 4), 1e-15);
    rotationAngle(out, 0, k, 1);
    expect(k[1]).toBeCloseTo(Math.PI / 4, 15);
    const tiny = Float64Array.from(axisAngle([1, 0, 0], 1e-12));
    scaleRotation(tiny, 0, k, 0, out, 0);
    expect(quatAngle(out, axisAngle([1, 0, 0], 0.5e-12))).toBeLessThan(1e-15);
  });

  it('every function returns its dst', () => {
    const q = f64(...q1), v = f64(1, 2, 3), m = composeTRS([0, 0, 0], q1, [1, 1, 1], new Float64Array(16)), s = f64(0.5);
    const dst = new Float64Array(4);
    expect(mulQuat(q, 0, q, 0, dst, 0)).toBe(dst);
    expect(mulConjQuat(q, 0, q, 0, dst, 0)).toBe(dst);
    expect(rotateVec(q, 0, v, 0, dst, 0)).toBe(dst);
    expect(quatFromTo(v, 0, v, 0, dst, 0)).toBe(dst);
    expect(scaleRotation(q, 0, s, 0, dst, 0)).toBe(dst);
    expect(rotationAngle(q, 0, dst, 0)).toBe(dst);
    expect(rotationOfMatrix(m, 0, dst, 0)).toBe(dst);
  });
});
