import type { Model } from '../../gltf/model.ts';

/**
 * Turns a VRM 0.x avatar to face +Z, as three-vrm's `VRMUtils.rotateVRM0` does (it sets the
 * scene's rotation to a half turn about +Y): a 0.x avatar faces −Z, where VRM 1.0 and glTF
 * models face +Z. `dst` = `m` · (half turn about +Y) for a model whose `vrm.specVersion` is 0
 * — `m`'s first and third columns negated, exactly, so the turn adds no rounding — and a copy
 * of `m` for any other model. Returns whether it turned. `m` may be `dst`; allocates nothing.
 *
 * Use the result wherever the model's world matrix goes: what the renderer draws it with, and
 * `VrmRuntime.worldFromModel`, so the springs and the look-at see the avatar where it is drawn.
 * The element does this for every 0.x avatar unless `vrm0-turn="off"`.
 */
export function rotateVrm0<T extends Float64Array | Float32Array | number[]>(model: Model, m: ArrayLike<number>, dst: T): boolean {
  const turn = model.vrm?.specVersion === 0;
  for (let r = 0; r < 4; r++) {
    // 0 − x, not −x: a zero stays +0 (as the product with the turn gives it).
    dst[r] = turn ? 0 - m[r] : m[r];
    dst[4 + r] = m[4 + r];
    dst[8 + r] = turn ? 0 - m[8 + r] : m[8 + r];
    dst[12 + r] = m[12 + r];
  }
  return turn;
}
