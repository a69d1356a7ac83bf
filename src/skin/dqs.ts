/**
 * Reference dual-quaternion skinning on the CPU — the ground truth the WGSL
 * `blendDualQuats` / `skinFrameDq` (shaders/skinning.wgsl) are checked against.
 *
 * Per vertex, from a DQ palette (src/anim/dq-palette.ts: each joint's M = [R|t]·S):
 *   pivot = the first influence with a non-zero weight
 *   b     = Σ ±wᵢ · q̂ᵢ      (q̂ᵢ negated when real(pivot)·real(q̂ᵢ) < 0: q and −q are one
 *                            rotation, and DLB must blend on one hemisphere)
 *   c     = b / ‖real(b)‖   (Kavan et al. 2008, DLB)
 *   S     = Σ wᵢ · Sᵢ / Σ wᵢ (scale/shear blended linearly, applied first)
 *   position = c · (S · p)
 *   normal   = normalize(rotate(c, cofactor(S) · n)), sign-corrected when det S < 0
 *   tangent  = (normalize(rotate(c, S · t.xyz)), t.w)
 * With one influence (or all on one joint) this is exactly M·p, the linear result.
 * Zero-weight slots are padding (often joint 0), so they must not pick the hemisphere.
 * Allocates nothing.
 */
import { DQ_JOINT_FLOATS, DqJointFloat } from '../anim/dq-palette.ts';
import type { Primitive } from '../gltf/model.ts';
import type { NumArray } from '../math/types.ts';
import type { SkinnedVertices } from './cpu-skin.ts';

export function skinPrimitiveDq(
  prim: Primitive,
  dqPalette: NumArray,
  out: SkinnedVertices,
  paletteJointOffset = 0,
  source: { positions: Float32Array; normals?: Float32Array; tangents?: Float32Array } = prim,
): SkinnedVertices {
  const joints = prim.joints;
  const weights = prim.weights;
  if (!joints || !weights) throw new Error('skinPrimitiveDq: primitive has no JOINTS_0/WEIGHTS_0');
  const influences = prim.influences;
  const pos = source.positions, nrm = source.normals, tan = source.tangents;
  const outPos = out.positions, outNrm = out.normals, outTan = out.tangents;
  const F = DqJointFloat;
  const base = paletteJointOffset * DQ_JOINT_FLOATS;
  for (let v = 0; v < prim.vertexCount; v++) {
    const iv = v * influences;
    let pivot = -1;
    for (let i = 0; i < influences && pivot < 0; i++) if (weights[iv + i] !== 0) pivot = base + joints[iv + i] * DQ_JOINT_FLOATS;
    let rx = 0, ry = 0, rz = 0, rw = 0, dx = 0, dy = 0, dz = 0, dw = 0;
    let sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0, wsum = 0;
    if (pivot >= 0) {
      const px = dqPalette[pivot + F.REAL], py = dqPalette[pivot + F.REAL + 1];
      const pz = dqPalette[pivot + F.REAL + 2], pw = dqPalette[pivot + F.REAL + 3];
      for (let i = 0; i < influences; i++) {
        const w = weights[iv + i];
        if (w === 0) continue;
        const o = base + joints[iv + i] * DQ_JOINT_FLOATS;
        const qx = dqPalette[o + F.REAL], qy = dqPalette[o + F.REAL + 1], qz = dqPalette[o + F.REAL + 2], qw = dqPalette[o + F.REAL + 3];
        const sw = px * qx + py * qy + pz * qz + pw * qw < 0 ? -w : w;
        rx += sw * qx; ry += sw * qy; rz += sw * qz; rw += sw * qw;
        dx += sw * dqPalette[o + F.DUAL]; dy += sw * dqPalette[o + F.DUAL + 1];
        dz += sw * dqPalette[o + F.DUAL + 2]; dw += sw * dqPalette[o + F.DUAL + 3];
        sxx += w * dqPalette[o + F.STRETCH_DIAGONAL]; syy += w * dqPalette[o + F.STRETCH_DIAGONAL + 1];
        szz += w * dqPalette[o + F.STRETCH_DIAGONAL + 2];
        sxy += w * dqPalette[o + F.STRETCH_OFF_DIAGONAL]; sxz += w * dqPalette[o + F.STRETCH_OFF_DIAGONAL + 1];
        syz += w * dqPalette[o + F.STRETCH_OFF_DIAGONAL + 2];
        wsum += w;
      }
    }
    // DLB: divide by the real part's length. Its vanishing (no weight at all) leaves the
    // identity rotation, and S = 0 collapses the vertex as the linear blend would.
    const len = Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
    if (len > 0) {
      const il = 1 / len;
      rx *= il; ry *= il; rz *= il; rw *= il; dx *= il; dy *= il; dz *= il; dw *= il;
    } else {
      rw = 1;
    }
    if (wsum !== 0) {
      const iw = 1 / wsum;
      sxx *= iw; syy *= iw; szz *= iw; sxy *= iw; sxz *= iw; syz *= iw;
    }
    // Translation 2·(w·d − dw·r + r × d): the vector part of 2·d·r*, which ignores the
    // component of d along r that the blend leaves (no need to re-orthogonalise).
    const tx = 2 * (rw * dx - dw * rx + ry * dz - rz * dy);
    const ty = 2 * (rw * dy - dw * ry + rz * dx - rx * dz);
    const tz = 2 * (rw * dz - dw * rz + rx * dy - ry * dx);

    // Position: stretch, rotate (v + 2 r × (r × v + w v)), translate.
    const p0 = pos[v * 3], p1 = pos[v * 3 + 1], p2 = pos[v * 3 + 2];
    const qx = sxx * p0 + sxy * p1 + sxz * p2, qy = sxy * p0 + syy * p1 + syz * p2, qz = sxz * p0 + syz * p1 + szz * p2;
    let cx = ry * qz - rz * qy + rw * qx, cy = rz * qx - rx * qz + rw * qy, cz = rx * qy - ry * qx + rw * qz;
    outPos[v * 3] = qx + 2 * (ry * cz - rz * cy) + tx;
    outPos[v * 3 + 1] = qy + 2 * (rz * cx - rx * cz) + ty;
    outPos[v * 3 + 2] = qz + 2 * (rx * cy - ry * cx) + tz;

    if (outNrm && nrm) {
      // cofactor(S) = det(S)·S⁻ᵀ, symmetric like S; flipped for mirrors so normals stay outward.
      const kxx = syy * szz - syz * syz, kyy = sxx * szz - sxz * sxz, kzz = sxx * syy - sxy * sxy;
      const kxy = sxz * syz - sxy * szz, kxz = sxy * syz - sxz * syy, kyz = sxy * sxz - sxx * syz;
      const det = sxx * kxx + sxy * kxy + sxz * kxz;
      const n0 = nrm[v * 3], n1 = nrm[v * 3 + 1], n2 = nrm[v * 3 + 2];
      let mx = kxx * n0 + kxy * n1 + kxz * n2, my = kxy * n0 + kyy * n1 + kyz * n2, mz = kxz * n0 + kyz * n1 + kzz * n2;
      if (det < 0) { mx = -mx; my = -my; mz = -mz; }
      cx = ry * mz - rz * my + rw * mx; cy = rz * mx - rx * mz + rw * my; cz = rx * my - ry * mx + rw * mz;
      const nx = mx + 2 * (ry * cz - rz * cy), ny = my + 2 * (rz * cx - rx * cz), nz = mz + 2 * (rx * cy - ry * cx);
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const il = nl > 0 ? 1 / nl : 0;
      outNrm[v * 3] = nx * il; outNrm[v * 3 + 1] = ny * il; outNrm[v * 3 + 2] = nz * il;
    }
    if (outTan && tan) {
      const t0 = tan[v * 4], t1 = tan[v * 4 + 1], t2 = tan[v * 4 + 2];
      const mx = sxx * t0 + sxy * t1 + sxz * t2, my = sxy * t0 + syy * t1 + syz * t2, mz = sxz * t0 + syz * t1 + szz * t2;
      cx = ry * mz - rz * my + rw * mx; cy = rz * mx - rx * mz + rw * my; cz = rx * my - ry * mx + rw * mz;
      const ux = mx + 2 * (ry * cz - rz * cy), uy = my + 2 * (rz * cx - rx * cz), uz = mz + 2 * (rx * cy - ry * cx);
      const tl = Math.sqrt(ux * ux + uy * uy + uz * uz);
      const il = tl > 0 ? 1 / tl : 0;
      outTan[v * 4] = ux * il; outTan[v * 4 + 1] = uy * il; outTan[v * 4 + 2] = uz * il;
      outTan[v * 4 + 3] = tan[v * 4 + 3];
    }
  }
  return out;
}
