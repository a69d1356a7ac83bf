/**
 * Camera-relative rendering: what keeps a character 10 km from the origin from jittering.
 *
 * A float32 has 24 bits of mantissa: at 10 000 m one step is ~1 mm, so a world matrix or
 * a view matrix holding a translation of that size in float32 moves vertices by up to a
 * millimetre from frame to frame as the camera or the character moves — visible jitter
 * on a close-up. The large numbers cancel out anyway (world position − eye position), so
 * they are made to cancel before anything is rounded to float32:
 *
 *   - node world matrices are float64 (src/anim/instance.ts `nodeMatrices`), placements
 *     may be float64 too;
 *   - model = placement · nodeWorld is multiplied in float64 and the eye position (float64,
 *     `Camera.eye`) is subtracted from its translation — still in float64;
 *   - only this camera-relative matrix is converted to float32 for the draw record;
 *   - the view matrix the shaders get is the camera's rotation alone (the eye at the
 *     origin), and `frame.cameraPosition` is 0.
 *
 * The palettes need nothing: they are mesh-node relative (inverse(meshNodeWorld) ·
 * jointWorld · inverseBind), so their translations are the size of the character.
 * Every shader sees "world" positions in this camera-relative frame; directions (lights,
 * normals) are the same in both frames.
 */

/**
 * Writes `placement · node − eye` (column-major 4×4, the translation column minus `eye`) as
 * float32 into `dst` at `dstOffset`. `placement` (16 numbers at `placementOffset`) may be
 * omitted for the identity. All products and the subtraction are done in float64; only
 * the result is rounded. Allocates nothing; `dst` must not alias the inputs.
 */
export function cameraRelativeModel(
  node: ArrayLike<number>, nodeOffset: number,
  placement: ArrayLike<number> | undefined, placementOffset: number,
  eye: ArrayLike<number>,
  dst: Float32Array, dstOffset: number,
): Float32Array {
  const o = nodeOffset;
  if (placement) {
    const po = placementOffset;
    for (let c = 0; c < 4; c++) {
      const b0 = node[o + c * 4], b1 = node[o + c * 4 + 1], b2 = node[o + c * 4 + 2], b3 = node[o + c * 4 + 3];
      for (let r = 0; r < 4; r++) {
        let v = placement[po + r] * b0 + placement[po + 4 + r] * b1 + placement[po + 8 + r] * b2 + placement[po + 12 + r] * b3;
        if (c === 3 && r < 3) v -= eye[r];
        dst[dstOffset + c * 4 + r] = v;
      }
    }
  } else {
    for (let i = 0; i < 16; i++) dst[dstOffset + i] = i >= 12 && i < 15 ? node[o + i] - eye[i - 12] : node[o + i];
  }
  return dst;
}

/**
 * The rotation part of a world → view matrix (translation dropped): the view matrix of the
 * same camera standing at the origin. Column-major; `dst` may be `view`.
 */
export function viewRotation(view: ArrayLike<number>, dst: Float32Array): Float32Array {
  for (let i = 0; i < 12; i++) dst[i] = view[i];
  dst[12] = 0;
  dst[13] = 0;
  dst[14] = 0;
  dst[15] = 1;
  return dst;
}
