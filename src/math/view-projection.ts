/**
 * The camera and light matrices a frame needs: a view looking from an eye at a target, and
 * WebGPU (depth 0…1) perspective and orthographic projections, column-major, written into
 * `dst` (allocating nothing). The conventions are wgpu-matrix's mat4.lookAt, perspective and
 * ortho (test/math/view-projection.test.ts compares them), kept here so that a page drawing a
 * model does not bundle all of wgpu-matrix (its mat4/vec/quat APIs are built by factories a
 * bundler cannot tree-shake) for three functions.
 */
import type { NumArray } from './types.ts';

/** Below this length a direction counts as zero (wgpu-matrix's vec3.normalize rule). */
const MIN_LENGTH = 0.00001;

/**
 * dst = the view matrix (world → view) of an eye at `eye` looking at `target`, `up` roughly
 * up: view-space −z points at the target, +y towards `up`. A degenerate axis (eye on the
 * target, `up` along the view direction) comes out as zeros, as wgpu-matrix's does.
 */
export function lookAtView<T extends NumArray>(eye: ArrayLike<number>, target: ArrayLike<number>, up: ArrayLike<number>, dst: T): T {
  // z: from the target towards the eye.
  let zx = eye[0] - target[0], zy = eye[1] - target[1], zz = eye[2] - target[2];
  let n = Math.sqrt(zx * zx + zy * zy + zz * zz);
  if (n > MIN_LENGTH) { zx /= n; zy /= n; zz /= n; } else { zx = zy = zz = 0; }
  // x = up × z.
  let xx = up[1] * zz - up[2] * zy, xy = up[2] * zx - up[0] * zz, xz = up[0] * zy - up[1] * zx;
  n = Math.sqrt(xx * xx + xy * xy + xz * xz);
  if (n > MIN_LENGTH) { xx /= n; xy /= n; xz /= n; } else { xx = xy = xz = 0; }
  // y = z × x.
  let yx = zy * xz - zz * xy, yy = zz * xx - zx * xz, yz = zx * xy - zy * xx;
  n = Math.sqrt(yx * yx + yy * yy + yz * yz);
  if (n > MIN_LENGTH) { yx /= n; yy /= n; yz /= n; } else { yx = yy = yz = 0; }
  dst[0] = xx; dst[1] = yx; dst[2] = zx; dst[3] = 0;
  dst[4] = xy; dst[5] = yy; dst[6] = zy; dst[7] = 0;
  dst[8] = xz; dst[9] = yz; dst[10] = zz; dst[11] = 0;
  dst[12] = -(xx * eye[0] + xy * eye[1] + xz * eye[2]);
  dst[13] = -(yx * eye[0] + yy * eye[1] + yz * eye[2]);
  dst[14] = -(zx * eye[0] + zy * eye[1] + zz * eye[2]);
  dst[15] = 1;
  return dst;
}

/**
 * dst = a perspective projection: vertical field of view `fovY` (radians), width / height
 * `aspect`, the near and far planes at distances `near` and `far` along −z mapped to depth 0
 * and 1 (`far` Infinity: an infinite far plane).
 */
export function perspectiveProjection<T extends NumArray>(fovY: number, aspect: number, near: number, far: number, dst: T): T {
  const f = Math.tan(Math.PI * 0.5 - 0.5 * fovY);
  dst.fill(0);
  dst[0] = f / aspect;
  dst[5] = f;
  dst[11] = -1;
  if (Number.isFinite(far)) {
    const rangeInv = 1 / (near - far);
    dst[10] = far * rangeInv;
    dst[14] = far * near * rangeInv;
  } else {
    dst[10] = -1;
    dst[14] = -near;
  }
  return dst;
}

/**
 * dst = an orthographic projection of the box `left`…`right` × `bottom`…`top` in view x and
 * y, and `near`…`far` (distances along −z) mapped to depth 0…1.
 */
export function orthographicProjection<T extends NumArray>(
  left: number, right: number, bottom: number, top: number, near: number, far: number, dst: T,
): T {
  dst.fill(0);
  dst[0] = 2 / (right - left);
  dst[5] = 2 / (top - bottom);
  dst[10] = 1 / (near - far);
  dst[12] = (right + left) / (left - right);
  dst[13] = (top + bottom) / (bottom - top);
  dst[14] = near / (near - far);
  dst[15] = 1;
  return dst;
}
