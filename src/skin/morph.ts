import type { Primitive } from '../gltf/model.ts';

/** Morphed vertex attributes, the input to skinning (the glTF order: morph, then skin). */
export interface MorphedVertices {
  readonly positions: Float32Array;
  readonly normals: Float32Array | undefined;
  readonly tangents: Float32Array | undefined;
}

/** Output arrays for `applyMorphTargets`, sized once per primitive. */
export function createMorphedVertices(prim: Primitive): MorphedVertices {
  return {
    positions: new Float32Array(prim.positions.length),
    normals: prim.normals ? new Float32Array(prim.normals.length) : undefined,
    tangents: prim.tangents ? new Float32Array(prim.tangents.length) : undefined,
  };
}

/**
 * glTF morph targets (§3.7.2.2): attribute = base + Σ weightᵢ · deltaᵢ for POSITION,
 * NORMAL and TANGENT (xyz; the handedness w is not morphed). `weights[offset + i]` is
 * target i's weight; a target beyond `count` weights counts as weight 0. Normals and
 * tangents are left unnormalised: skinning renormalises after transforming them.
 * Returns `out`, or the primitive itself when no target has a non-zero weight.
 */
export function applyMorphTargets(
  prim: Primitive, weights: Float32Array, offset: number, count: number, out: MorphedVertices,
): MorphedVertices | Primitive {
  const targets = prim.targets;
  const n = Math.min(targets.length, count);
  let active = false;
  for (let t = 0; t < n; t++) if (weights[offset + t] !== 0) active = true;
  if (!active) return prim;
  out.positions.set(prim.positions);
  if (out.normals && prim.normals) out.normals.set(prim.normals);
  if (out.tangents && prim.tangents) out.tangents.set(prim.tangents);
  for (let t = 0; t < n; t++) {
    const w = weights[offset + t];
    if (w === 0) continue;
    const target = targets[t];
    addScaled(out.positions, target.positions, w, 3);
    if (out.normals) addScaled(out.normals, target.normals, w, 3);
    if (out.tangents) addScaled(out.tangents, target.tangents, w, 4);
  }
  return out;
}

/** out[v·stride + c] += w · delta[v·3 + c] for c < 3 (deltas are VEC3 even for tangents). */
function addScaled(out: Float32Array, delta: Float32Array | undefined, w: number, stride: number): void {
  if (!delta) return;
  const vertices = delta.length / 3;
  for (let v = 0; v < vertices; v++) {
    out[v * stride] += w * delta[v * 3];
    out[v * stride + 1] += w * delta[v * 3 + 1];
    out[v * stride + 2] += w * delta[v * 3 + 2];
  }
}
