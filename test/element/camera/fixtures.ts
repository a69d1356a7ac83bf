/** Bounds of a 1 × 2 × 0.5 m figure standing on the ground (test/element/camera/framing.test.ts, test/element/allocation.test.ts). */
export const FRAMED_BOUNDS = {
  min: Float32Array.of(-0.5, 0, -0.25), max: Float32Array.of(0.5, 2, 0.25),
  center: Float32Array.of(0, 1, 0), radius: Math.hypot(1, 2, 0.5) / 2,
};
