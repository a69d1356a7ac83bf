import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { FRUSTUM_FLOATS, FrustumPlane, frustumIntersectsBox, frustumPlanes } from '../../src/math/frustum.ts';

const close = (a: ArrayLike<number>, b: number[], eps = 1e-6) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `element ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};
const plane = (p: ArrayLike<number>, i: number) => Array.from(p).slice(i * 4, i * 4 + 4);

describe('frustumPlanes', () => {
  it('an orthographic box −2…2 × −1…1 × near 1 far 11, looking down −z: known planes', () => {
    const p = frustumPlanes(mat4.ortho(-2, 2, -1, 1, 1, 11));
    expect(p.length).toBe(FRUSTUM_FLOATS);
    close(plane(p, FrustumPlane.LEFT), [1, 0, 0, 2]); // x ≥ −2
    close(plane(p, FrustumPlane.RIGHT), [-1, 0, 0, 2]); // x ≤ 2
    close(plane(p, FrustumPlane.BOTTOM), [0, 1, 0, 1]);
    close(plane(p, FrustumPlane.TOP), [0, -1, 0, 1]);
    close(plane(p, FrustumPlane.NEAR), [0, 0, -1, -1]); // z ≤ −1
    close(plane(p, FrustumPlane.FAR), [0, 0, 1, 11]); // z ≥ −11
  });

  it('a 90° perspective (aspect 1, near 1, far 100): side planes at 45°, WebGPU near plane at z = −1', () => {
    const p = frustumPlanes(mat4.perspective(Math.PI / 2, 1, 1, 100));
    const s = Math.SQRT1_2;
    close(plane(p, FrustumPlane.LEFT), [s, 0, -s, 0]);
    close(plane(p, FrustumPlane.RIGHT), [-s, 0, -s, 0]);
    close(plane(p, FrustumPlane.BOTTOM), [0, s, -s, 0]);
    close(plane(p, FrustumPlane.TOP), [0, -s, -s, 0]);
    close(plane(p, FrustumPlane.NEAR), [0, 0, -1, -1], 1e-5);
    close(plane(p, FrustumPlane.FAR), [0, 0, 1, 100], 1e-3);
  });

  it('a view matrix moves the planes with the camera; dst is returned and may be a Float64Array', () => {
    // Eye at (10, 0, 0) looking along +x.
    const vp = mat4.multiply(mat4.perspective(Math.PI / 2, 1, 1, 100), mat4.lookAt([10, 0, 0], [20, 0, 0], [0, 1, 0]));
    const dst = new Float64Array(FRUSTUM_FLOATS);
    expect(frustumPlanes(vp, dst)).toBe(dst);
    // Near: x ≥ 11 → (1, 0, 0, −11).
    close(plane(dst, FrustumPlane.NEAR), [1, 0, 0, -11], 1e-5);
    close(plane(dst, FrustumPlane.FAR), [-1, 0, 0, 110], 1e-3);
    // Signed distances are in world units: (15, 0, 0) is 4 from the near plane.
    const n = plane(dst, FrustumPlane.NEAR);
    expect(n[0] * 15 + n[3]).toBeCloseTo(4, 5);
  });

  it('an infinite far plane is stored as 0 0 0 0 (never culls)', () => {
    const m = mat4.perspective(Math.PI / 2, 1, 1, Infinity);
    const p = frustumPlanes(m);
    close(plane(p, FrustumPlane.FAR), [0, 0, 0, 0]);
    expect(frustumIntersectsBox(p, [-1, -1, -1e9], [1, 1, -1e9 + 1])).toBe(true);
  });
});

describe('frustumIntersectsBox', () => {
  // 90° perspective from the origin looking down −z, near 1, far 100.
  const p = frustumPlanes(mat4.perspective(Math.PI / 2, 1, 1, 100));

  it('inside, straddling a plane, and outside each plane', () => {
    expect(frustumIntersectsBox(p, [-1, -1, -6], [1, 1, -4]), 'inside').toBe(true);
    expect(frustumIntersectsBox(p, [4, -1, -6], [6, 1, -4]), 'straddles the right plane').toBe(true);
    expect(frustumIntersectsBox(p, [-1, -1, -1.5], [1, 1, 0.5]), 'straddles the near plane').toBe(true);
    expect(frustumIntersectsBox(p, [-1, -1, -101], [1, 1, -99]), 'straddles the far plane').toBe(true);
    expect(frustumIntersectsBox(p, [-200, -200, -200], [200, 200, 200]), 'contains the frustum').toBe(true);
    expect(frustumIntersectsBox(p, [6, -1, -5], [8, 1, -4]), 'right').toBe(false);
    expect(frustumIntersectsBox(p, [-8, -1, -5], [-6, 1, -4]), 'left').toBe(false);
    expect(frustumIntersectsBox(p, [-1, 6, -5], [1, 8, -4]), 'above').toBe(false);
    expect(frustumIntersectsBox(p, [-1, -8, -5], [1, -6, -4]), 'below').toBe(false);
    expect(frustumIntersectsBox(p, [-1, -1, 1], [1, 1, 3]), 'behind the eye').toBe(false);
    expect(frustumIntersectsBox(p, [-1, -1, -0.9], [1, 1, -0.5]), 'between eye and near plane, in the cone').toBe(false);
    expect(frustumIntersectsBox(p, [-1, -1, -300], [1, 1, -101]), 'beyond far').toBe(false);
  });

  it('boxes at offsets, and an empty box', () => {
    const min = [9, 9, -1, -1, -6], max = [1, 1, -4, 9];
    expect(frustumIntersectsBox(p, min, max, 2, 0)).toBe(true);
    expect(frustumIntersectsBox(p, [Infinity, Infinity, Infinity], [-Infinity, -Infinity, -Infinity]), 'empty').toBe(false);
  });
});
