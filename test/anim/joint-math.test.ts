import { describe, expect, it } from 'vitest';
import { mulConjQuat, mulQuat, quatFromTo, rotateVec, rotationAngle, rotationOfMatrix, scaleRotation } from '../../src/anim/joint-math.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { axisAngle, conjQ, mulQ, quatAngle } from './fixtures.ts';

const f64 = (...v: number[]) => Float64Array.from(v);
const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-12) => {
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `component ${i}: ${Array.from(a)} vs ${Array.from(b)}`).toBeLessThan(eps);
};
const q1 = axisAngle([0.6, 0, 0.8], 1.1), q2 = axisAngle([0, 1, 0], -0.7);

describe('joint math', () => {
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
});
