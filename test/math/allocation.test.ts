/**
 * The per-frame math allocates nothing: quaternions, T·R·S measures, view and projection
 * matrices. Heap counts need a worker of their own (NODE_ISOLATED_TESTS in vite.config.ts), so
 * they share this file rather than isolating quat.test.ts, trs.test.ts and
 * view-projection.test.ts, whose other tests run in the shared node workers.
 */
import { describe, expect, it } from 'vitest';
import { mat4, quat } from 'wgpu-matrix';
import {
  mulConjQuat, mulQuat, normalizeQuat, quatFromTo, rotateVec, rotationAngle, rotationOfMatrix, scaleRotation, slerpQuat,
} from '../../src/math/quat.ts';
import { composeTRS, length3, maxAxisScale } from '../../src/math/trs.ts';
import { lookAtView, orthographicProjection, perspectiveProjection } from '../../src/math/view-projection.ts';
import { axisAngle } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';

const f64 = (...v: number[]) => Float64Array.from(v);

// First in the file: V8's call-site feedback must see only Float64Arrays, as it does in the
// per-frame jobs. Once a test below has passed plain arrays, stores go through a generic
// path that boxes doubles, which would measure the test's own mix of types, not the jobs'.
// (Nothing else in this file calls these functions.)
describe('quaternions, per-frame use', () => {
  it('nothing allocates per call', async () => {
    const q1 = axisAngle([0.6, 0, 0.8], 1.1), q2 = axisAngle([0, 1, 0], -0.7);
    const q = f64(...q1, ...q2, 0, 0, 0, 0), s = f64(0.3, 0), v = f64(1, 2, 3, 0, 0, 0);
    const m = composeTRS([1, 2, 3], q1, [2, 1, 1], new Float64Array(16));
    const { rounds, clean } = await measureAllocation(() => {
      for (let i = 0; i < 100; i++) {
        slerpQuat(q, 0, q, 4, s, 0, q, 8);
        scaleRotation(q, 8, s, 0, q, 8);
        mulQuat(q, 0, q, 8, q, 8);
        mulConjQuat(q, 4, q, 8, q, 8);
        normalizeQuat(q, 8, q, 8);
        rotateVec(q, 8, v, 0, v, 3);
        quatFromTo(v, 0, v, 3, q, 8);
        rotationOfMatrix(m, 0, q, 8);
        rotationAngle(q, 8, s, 1);
      }
    }, 2_000, 16 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});

describe('length3 and maxAxisScale', () => {
  it('allocate nothing (Math.hypot does, in V8)', async () => {
    const r = Array.from(quat.normalize(quat.create(0.3, -0.5, 0.2, 0.8)));
    const trs = mat4.multiply(mat4.multiply(mat4.translation([1, -2, 3]), mat4.fromQuat(r)), mat4.scaling([2, 0.5, 3]));
    const m = new Float64Array(trs), sum = new Float64Array(1);
    const { rounds, clean } = await measureAllocation(() => { for (let i = 0; i < 100; i++) sum[0] += length3(m[i % 16], m[1], m[2]) + maxAxisScale(m); }, 2_000, 16 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});

describe('view and projection matrices', () => {
  it('write into dst allocating nothing (the camera and the shadow fit run every frame)', async () => {
    const eye = Float32Array.of(1, 2, 3), target = new Float32Array(3), up = Float32Array.of(0, 1, 0), dst = new Float32Array(16);
    const { rounds, clean } = await measureAllocation(() => {
      for (let i = 0; i < 100; i++) {
        lookAtView(eye, target, up, dst);
        perspectiveProjection(0.7, 1.5, 0.03, 100 + i, dst);
        orthographicProjection(-1, 1, -1, 1, 0, i + 1, dst);
      }
    }, 2_000, 16 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});
