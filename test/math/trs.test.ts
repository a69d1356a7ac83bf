import { describe, expect, it } from 'vitest';
import { mat4, quat } from 'wgpu-matrix';
import { composeTRS, decomposeTRS, invertMat4, length3, maxAxisScale, multiplyMat4, setIdentity } from '../../src/math/trs.ts';

const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-6) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `element ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

const t = [1, -2, 3];
const r = Array.from(quat.normalize(quat.create(0.3, -0.5, 0.2, 0.8)));
const s = [2, 0.5, 3];
// T · R · S through wgpu-matrix, an independent implementation.
const expected = mat4.multiply(mat4.multiply(mat4.translation(t), mat4.fromQuat(r)), mat4.scaling(s));

describe('composeTRS', () => {
  it('matches wgpu-matrix T·R·S', () => {
    close(composeTRS(t, r, s, new Float64Array(16)), expected);
  });
  it('reads and writes at offsets', () => {
    const T = [9, 9, 9, ...t], R = [9, ...r], S = [...s], dst = new Float64Array(32);
    composeTRS(T, R, S, dst, 3, 1, 0, 16);
    close(dst.subarray(16), expected);
    close(dst.subarray(0, 16), new Float64Array(16));
  });
});

describe('length3 and maxAxisScale', () => {
  it('measure a vector and the largest axis of a matrix (T·R·S stretches by at most max S)', () => {
    expect(length3(2, -3, 6)).toBe(7);
    expect(length3(0, 0, 0)).toBe(0);
    expect(maxAxisScale(expected)).toBeCloseTo(3, 6);
    const offset = new Float64Array(20);
    offset.set(expected, 4);
    expect(maxAxisScale(offset, 4)).toBeCloseTo(3, 6);
  });

});

describe('multiplyMat4', () => {
  const a = mat4.multiply(mat4.rotationX(0.4), mat4.translation([1, 2, 3]));
  const b = mat4.multiply(mat4.scaling([1, 2, 3]), mat4.rotationZ(-1.1));
  it('matches wgpu-matrix', () => close(multiplyMat4(a, b, new Float64Array(16)), mat4.multiply(a, b)));
  it('allows dst to alias a or b', () => {
    const a2 = Float64Array.from(a), b2 = Float64Array.from(b);
    close(multiplyMat4(a2, b, a2), mat4.multiply(a, b));
    close(multiplyMat4(a, b2, b2), mat4.multiply(a, b));
  });
});

describe('invertMat4', () => {
  it('inverts a general matrix', () => {
    const dst = new Float64Array(16);
    expect(invertMat4(expected, dst)).toBe(true);
    close(dst, mat4.inverse(expected), 1e-6);
  });
  it('refuses a singular matrix and leaves dst alone', () => {
    const dst = setIdentity(new Float64Array(16));
    expect(invertMat4(mat4.scaling([1, 0, 1]), dst)).toBe(false);
    close(dst, mat4.identity());
  });
});

describe('decomposeTRS', () => {
  it('recovers T, R, S of a composed matrix', () => {
    const T = [0, 0, 0], R = [0, 0, 0, 0], S = [0, 0, 0];
    decomposeTRS(expected, T, R, S);
    close(T, t);
    close(S, s, 1e-6);
    const sign = Math.sign(R[3]) === Math.sign(r[3]) ? 1 : -1;
    close(R.map((v) => v * sign), r, 1e-6);
  });
  it('puts a mirror into the scale so recomposing gives the matrix back', () => {
    const mirrored = mat4.multiply(expected, mat4.scaling([-1, 1, 1]));
    const T = [0, 0, 0], R = [0, 0, 0, 0], S = [0, 0, 0];
    decomposeTRS(mirrored, T, R, S);
    close(composeTRS(T, R, S, new Float64Array(16)), mirrored, 1e-6);
  });
});
