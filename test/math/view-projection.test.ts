import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { lookAtView, orthographicProjection, perspectiveProjection } from '../../src/math/view-projection.ts';

/** Float32 results (wgpu-matrix's temporaries are float32, ours float64): equal to float32 rounding. */
const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-6) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `element ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps * Math.max(1, Math.abs(b[i])));
};

/** Column-major m · (x, y, z, 1). */
const transform = (m: ArrayLike<number>, p: readonly number[]) => [0, 1, 2, 3].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);

describe('lookAtView', () => {
  const cases: [number[], number[], number[]][] = [
    [[1, 2, 3], [0, 0, 0], [0, 1, 0]],
    [[-4, 0.5, 7], [2, -1, 0.25], [0, 1, 0]],
    [[0, 5, 0.1], [0, 0, 0], [0, 0, 1]],
    [[3, 3, 3], [3, 3, 3], [0, 1, 0]], // eye on the target: a zero z axis
    [[0, 5, 0], [0, 0, 0], [0, 1, 0]], // up along the view: a zero x axis
  ];
  it('matches wgpu-matrix mat4.lookAt, degenerate axes included', () => {
    for (const [eye, target, up] of cases) close(lookAtView(eye, target, up, new Float32Array(16)), mat4.lookAt(eye, target, up));
  });
  it('puts the target on view −z at its distance and the eye at the origin', () => {
    const v = lookAtView([1, 2, 3], [-1, 0, 2], [0, 1, 0], new Float64Array(16));
    const t = transform(v, [-1, 0, 2]);
    close(t, [0, 0, -3, 1]);
    close(transform(v, [1, 2, 3]), [0, 0, 0, 1]);
  });
});

describe('perspectiveProjection', () => {
  it('matches wgpu-matrix mat4.perspective, finite and infinite far', () => {
    for (const [fov, aspect, near, far] of [[0.7, 1.5, 0.03, 100], [1.2, 0.5, 1, 2], [0.4, 2, 0.1, Infinity]]) {
      close(perspectiveProjection(fov, aspect, near, far, new Float32Array(16)), mat4.perspective(fov, aspect, near, far));
    }
  });
  it('maps the near plane to depth 0 and the far plane to 1', () => {
    const p = perspectiveProjection(0.8, 1, 0.5, 20, new Float64Array(16));
    const depth = (z: number) => { const c = transform(p, [0, 0, -z]); return c[2] / c[3]; };
    expect(depth(0.5)).toBeCloseTo(0, 12);
    expect(depth(20)).toBeCloseTo(1, 12);
  });
  it('overwrites everything in dst', () => {
    close(perspectiveProjection(0.7, 1, 1, 10, new Float32Array(16).fill(7)), mat4.perspective(0.7, 1, 1, 10));
  });
});

describe('orthographicProjection', () => {
  it('matches wgpu-matrix mat4.ortho', () => {
    const boxes: [number, number, number, number, number, number][] = [[-1, 1, -1, 1, 0.1, 10], [-3, 5, 2, 4, -2, 6]];
    for (const box of boxes) {
      close(orthographicProjection(...box, new Float32Array(16).fill(7)), mat4.ortho(...box));
    }
  });
  it('maps the box corners to clip −1…1 × −1…1 × 0…1', () => {
    const p = orthographicProjection(-3, 5, 2, 4, -2, 6, new Float64Array(16));
    close(transform(p, [-3, 2, 2]), [-1, -1, 0, 1]);
    close(transform(p, [5, 4, -6]), [1, 1, 1, 1]);
  });
});
