import type { Primitive } from '../gltf/model.ts';
import type { NumArray } from '../math/types.ts';

/** Output arrays of `skinPrimitive`, sized by `createSkinnedVertices`. */
export interface SkinnedVertices {
  readonly positions: Float32Array | Float64Array;
  readonly normals: Float32Array | Float64Array | undefined;
  readonly tangents: Float32Array | Float64Array | undefined;
}

/**
 * Allocates the output arrays `skinPrimitive` writes a primitive's skinned positions, normals and tangents
 * into, in float32 or float64.
 */
export function createSkinnedVertices(prim: Primitive, precision: 'float32' | 'float64' = 'float32'): SkinnedVertices {
  const A = precision === 'float64' ? Float64Array : Float32Array;
  const n = prim.vertexCount;
  return {
    positions: new A(n * 3),
    normals: prim.normals ? new A(n * 3) : undefined,
    tangents: prim.tangents ? new A(n * 4) : undefined,
  };
}

/**
 * Reference linear blend skinning on the CPU — the ground truth the WGSL shader is
 * checked against. For each vertex, M = Σ wᵢ · palette[jointᵢ] (affine part), then
 *   position = M · (p, 1)
 *   normal   = normalize(cofactor(M₃ₓ₃) · n)   — the inverse-transpose up to scale,
 *              sign-corrected so mirrored joints keep normals pointing outwards
 *   tangent  = (normalize(M₃ₓ₃ · t.xyz), t.w)
 * Vertex positions can be pre-morphed by the caller via `positions`/`normals`/`tangents`
 * overrides. Allocates nothing.
 */
export function skinPrimitive(
  prim: Primitive,
  palette: NumArray,
  out: SkinnedVertices,
  paletteMatrixOffset = 0,
  source: { positions: Float32Array; normals?: Float32Array; tangents?: Float32Array } = prim,
): SkinnedVertices {
  const joints = prim.joints;
  const weights = prim.weights;
  if (!joints || !weights) throw new Error('skinPrimitive: primitive has no JOINTS_0/WEIGHTS_0');
  const influences = prim.influences;
  const pos = source.positions, nrm = source.normals, tan = source.tangents;
  const outPos = out.positions, outNrm = out.normals, outTan = out.tangents;
  const base = paletteMatrixOffset * 16;
  for (let v = 0; v < prim.vertexCount; v++) {
    let m0 = 0, m1 = 0, m2 = 0, m4 = 0, m5 = 0, m6 = 0, m8 = 0, m9 = 0, m10 = 0, m12 = 0, m13 = 0, m14 = 0;
    const iv = v * influences;
    for (let i = 0; i < influences; i++) {
      const w = weights[iv + i];
      if (w === 0) continue;
      const o = base + joints[iv + i] * 16;
      m0 += w * palette[o]; m1 += w * palette[o + 1]; m2 += w * palette[o + 2];
      m4 += w * palette[o + 4]; m5 += w * palette[o + 5]; m6 += w * palette[o + 6];
      m8 += w * palette[o + 8]; m9 += w * palette[o + 9]; m10 += w * palette[o + 10];
      m12 += w * palette[o + 12]; m13 += w * palette[o + 13]; m14 += w * palette[o + 14];
    }
    const px = pos[v * 3], py = pos[v * 3 + 1], pz = pos[v * 3 + 2];
    outPos[v * 3] = m0 * px + m4 * py + m8 * pz + m12;
    outPos[v * 3 + 1] = m1 * px + m5 * py + m9 * pz + m13;
    outPos[v * 3 + 2] = m2 * px + m6 * py + m10 * pz + m14;

    if (outNrm && nrm) {
      // With columns a = (m0 m1 m2), b = (m4 m5 m6), c = (m8 m9 m10), the cofactor matrix
      // det·M⁻ᵀ has columns b×c, c×a, a×b: no division, and defined even when det = 0.
      const c0x = m5 * m10 - m6 * m9, c0y = m6 * m8 - m4 * m10, c0z = m4 * m9 - m5 * m8; // b × c
      const c1x = m9 * m2 - m10 * m1, c1y = m10 * m0 - m8 * m2, c1z = m8 * m1 - m9 * m0; // c × a
      const c2x = m1 * m6 - m2 * m5, c2y = m2 * m4 - m0 * m6, c2z = m0 * m5 - m1 * m4; // a × b
      const det = m0 * c0x + m1 * c0y + m2 * c0z;
      const nx = nrm[v * 3], ny = nrm[v * 3 + 1], nz = nrm[v * 3 + 2];
      let rx = nx * c0x + ny * c1x + nz * c2x;
      let ry = nx * c0y + ny * c1y + nz * c2y;
      let rz = nx * c0z + ny * c1z + nz * c2z;
      if (det < 0) { rx = -rx; ry = -ry; rz = -rz; }
      const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
      const il = len > 0 ? 1 / len : 0;
      outNrm[v * 3] = rx * il; outNrm[v * 3 + 1] = ry * il; outNrm[v * 3 + 2] = rz * il;
    }
    if (outTan && tan) {
      const tx = tan[v * 4], ty = tan[v * 4 + 1], tz = tan[v * 4 + 2];
      const rx = m0 * tx + m4 * ty + m8 * tz;
      const ry = m1 * tx + m5 * ty + m9 * tz;
      const rz = m2 * tx + m6 * ty + m10 * tz;
      const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
      const il = len > 0 ? 1 / len : 0;
      outTan[v * 4] = rx * il; outTan[v * 4 + 1] = ry * il; outTan[v * 4 + 2] = rz * il;
      outTan[v * 4 + 3] = tan[v * 4 + 3];
    }
  }
  return out;
}
