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
import { VERTEX_BLEND_FLOATS, writeStretchRotated } from './stretch-rotate.ts';

/** The vertex's blend as stretch-rotate.ts takes it (VertexBlend offsets; from = 0, to = t). */
const blend = new Float64Array(VERTEX_BLEND_FLOATS);

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

    const b = blend;
    b[0] = rx; b[1] = ry; b[2] = rz; b[3] = rw;
    b[4] = sxx; b[5] = syy; b[6] = szz; b[7] = sxy; b[8] = sxz; b[9] = syz;
    b[10] = 0; b[11] = 0; b[12] = 0; b[13] = tx; b[14] = ty; b[15] = tz;
    writeStretchRotated(b, v, pos, nrm, tan, outPos, outNrm, outTan);
  }
  return out;
}
