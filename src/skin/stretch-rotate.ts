/**
 * The last step both rotation-blending methods share (dqs.ts, cor.ts): a vertex moved by a
 * symmetric stretch S, then a rotation R (a unit quaternion), about a point:
 *   position = R·S·(p − from) + to
 *   normal   = normalize(R · cofactor(S) · n), flipped when det S < 0 (mirrors keep normals outward)
 *   tangent  = (normalize(R·S·t.xyz), t.w)
 * The blend goes in through a Float64Array laid out as `VertexBlend` says, not as arguments:
 * V8 boxes doubles passed to a call it does not inline, and skinning allocates nothing.
 */

/** Offsets into a vertex blend: rotation x y z w, stretch xx yy zz xy xz yz, `from` xyz, `to` xyz. */
export const VertexBlend = { ROTATION: 0, STRETCH: 4, FROM: 10, TO: 13 } as const;
export const VERTEX_BLEND_FLOATS = 16;

/** Writes vertex `v` of the outputs from vertex `v` of the inputs (normals and tangents where both sides have them). */
export function writeStretchRotated(
  blend: Float64Array, v: number,
  pos: ArrayLike<number>, nrm: ArrayLike<number> | undefined, tan: ArrayLike<number> | undefined,
  outPos: Float32Array | Float64Array, outNrm: Float32Array | Float64Array | undefined, outTan: Float32Array | Float64Array | undefined,
): void {
  const R = VertexBlend.ROTATION, S = VertexBlend.STRETCH;
  const rx = blend[R], ry = blend[R + 1], rz = blend[R + 2], rw = blend[R + 3];
  const sxx = blend[S], syy = blend[S + 1], szz = blend[S + 2], sxy = blend[S + 3], sxz = blend[S + 4], syz = blend[S + 5];
  // Position: stretch, rotate (v + 2 r × (r × v + w v)), move.
  const e0 = pos[v * 3] - blend[VertexBlend.FROM], e1 = pos[v * 3 + 1] - blend[VertexBlend.FROM + 1], e2 = pos[v * 3 + 2] - blend[VertexBlend.FROM + 2];
  const qx = sxx * e0 + sxy * e1 + sxz * e2, qy = sxy * e0 + syy * e1 + syz * e2, qz = sxz * e0 + syz * e1 + szz * e2;
  let ux = ry * qz - rz * qy + rw * qx, uy = rz * qx - rx * qz + rw * qy, uz = rx * qy - ry * qx + rw * qz;
  outPos[v * 3] = qx + 2 * (ry * uz - rz * uy) + blend[VertexBlend.TO];
  outPos[v * 3 + 1] = qy + 2 * (rz * ux - rx * uz) + blend[VertexBlend.TO + 1];
  outPos[v * 3 + 2] = qz + 2 * (rx * uy - ry * ux) + blend[VertexBlend.TO + 2];

  if (outNrm && nrm) {
    // cofactor(S) = det(S)·S⁻ᵀ, symmetric like S.
    const kxx = syy * szz - syz * syz, kyy = sxx * szz - sxz * sxz, kzz = sxx * syy - sxy * sxy;
    const kxy = sxz * syz - sxy * szz, kxz = sxy * syz - sxz * syy, kyz = sxy * sxz - sxx * syz;
    const det = sxx * kxx + sxy * kxy + sxz * kxz;
    const n0 = nrm[v * 3], n1 = nrm[v * 3 + 1], n2 = nrm[v * 3 + 2];
    let mx = kxx * n0 + kxy * n1 + kxz * n2, my = kxy * n0 + kyy * n1 + kyz * n2, mz = kxz * n0 + kyz * n1 + kzz * n2;
    if (det < 0) { mx = -mx; my = -my; mz = -mz; }
    ux = ry * mz - rz * my + rw * mx; uy = rz * mx - rx * mz + rw * my; uz = rx * my - ry * mx + rw * mz;
    const nx = mx + 2 * (ry * uz - rz * uy), ny = my + 2 * (rz * ux - rx * uz), nz = mz + 2 * (rx * uy - ry * ux);
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    const il = nl > 0 ? 1 / nl : 0;
    outNrm[v * 3] = nx * il; outNrm[v * 3 + 1] = ny * il; outNrm[v * 3 + 2] = nz * il;
  }
  if (outTan && tan) {
    const t0 = tan[v * 4], t1 = tan[v * 4 + 1], t2 = tan[v * 4 + 2];
    const mx = sxx * t0 + sxy * t1 + sxz * t2, my = sxy * t0 + syy * t1 + syz * t2, mz = sxz * t0 + syz * t1 + szz * t2;
    ux = ry * mz - rz * my + rw * mx; uy = rz * mx - rx * mz + rw * my; uz = rx * my - ry * mx + rw * mz;
    const bx = mx + 2 * (ry * uz - rz * uy), by = my + 2 * (rz * ux - rx * uz), bz = mz + 2 * (rx * uy - ry * ux);
    const tl = Math.sqrt(bx * bx + by * by + bz * bz);
    const il = tl > 0 ? 1 / tl : 0;
    outTan[v * 4] = bx * il; outTan[v * 4 + 1] = by * il; outTan[v * 4 + 2] = bz * il;
    outTan[v * 4 + 3] = tan[v * 4 + 3];
  }
}
