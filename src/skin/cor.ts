/**
 * Reference centre-of-rotation skinning on the CPU (Le & Hodgins, "Real-time Skeletal Skinning
 * with Optimized Centers of Rotation", SIGGRAPH 2016) — the ground truth the WGSL
 * `blendCentersOfRotation` / `skinFrameCor` (shaders/skinning.wgsl) are checked against, and
 * the CPU skinning bake, bounds, culling and ray casts use for this method.
 *
 * Per vertex, with its precomputed centre p* (skin/centers-of-rotation/) and the same DQ
 * palette as dual-quaternion skinning (src/anim/dq-palette.ts: each joint's skinning matrix
 * split as Mⱼ = [Rⱼ|tⱼ]·Sⱼ, Rⱼ the rotation of its polar decomposition):
 *   q  = normalize(Σ ±wⱼ·qⱼ)   (qⱼ negated when it points away from the first weighted
 *                               influence's: q and −q are one rotation); R its matrix
 *   S̄  = Σ wⱼ·Sⱼ / Σ wⱼ        (the stretch, blended linearly as DQS does)
 *   c  = Σ wⱼ·Mⱼ·p* / Σ wⱼ     (the centre moved by linear blending)
 *   position = R·S̄·(v − p*) + c
 *   normal   = normalize(R · cofactor(S̄) · n), sign-corrected when det S̄ < 0
 *   tangent  = (normalize(R·S̄·t.xyz), t.w)
 * Without scale (every Sⱼ = I) this is the paper's v' = R·v + t with t = (Σ wⱼ·Mⱼ)·p* − R·p*;
 * the stretch, applied first as in DQS's two-phase skinning, keeps the identities the method
 * promises under scale too: one joint gives Mⱼ·v exactly, and equal joint rotations give the
 * linear blend. The rotations are those of the skinning matrices (joint world × inverse bind),
 * as the palette holds them.
 * Allocates nothing.
 */
import { DQ_JOINT_FLOATS, DqJointFloat } from '../anim/dq-palette.ts';
import type { Primitive } from '../gltf/model.ts';
import type { NumArray } from '../math/types.ts';
import type { SkinnedVertices } from './cpu-skin.ts';
import { VERTEX_BLEND_FLOATS, writeStretchRotated } from './stretch-rotate.ts';

/** The vertex's blend as stretch-rotate.ts takes it (VertexBlend offsets; from = p*, to = c). */
const blend = new Float64Array(VERTEX_BLEND_FLOATS);

/** Floats per joint in `jointAffine`: Mⱼ's 3×3 (column-major) then its translation. */
const AFFINE_FLOATS = 12;
/** Each joint's Mⱼ = [Rⱼ·Sⱼ | tⱼ] rebuilt from its DqJoint entry once per call; grows with the largest skin seen. */
let jointAffine = new Float64Array(AFFINE_FLOATS * 64);

/**
 * `jointAffine` ← joint j's affine matrix for j < count, from the DqJoint entries at `base`:
 * Rⱼ from the quaternion, times Sⱼ, and tⱼ = 2·d·q* (vector part). Once per joint, so a
 * vertex pays 12 multiply-adds per influence for Mⱼ·p*, not a quaternion rotation.
 */
function rebuildAffine(dq: NumArray, base: number, count: number): void {
  if (jointAffine.length < count * AFFINE_FLOATS) jointAffine = new Float64Array(count * AFFINE_FLOATS * 2);
  const F = DqJointFloat, a = jointAffine;
  for (let j = 0; j < count; j++) {
    const o = base + j * DQ_JOINT_FLOATS, t = j * AFFINE_FLOATS;
    const x = dq[o + F.REAL], y = dq[o + F.REAL + 1], z = dq[o + F.REAL + 2], w = dq[o + F.REAL + 3];
    // R (rRC: row R, column C) of the unit quaternion.
    const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - w * z), r02 = 2 * (x * z + w * y);
    const r10 = 2 * (x * y + w * z), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - w * x);
    const r20 = 2 * (x * z - w * y), r21 = 2 * (y * z + w * x), r22 = 1 - 2 * (x * x + y * y);
    const sxx = dq[o + F.STRETCH_DIAGONAL], syy = dq[o + F.STRETCH_DIAGONAL + 1], szz = dq[o + F.STRETCH_DIAGONAL + 2];
    const sxy = dq[o + F.STRETCH_OFF_DIAGONAL], sxz = dq[o + F.STRETCH_OFF_DIAGONAL + 1], syz = dq[o + F.STRETCH_OFF_DIAGONAL + 2];
    // Columns of R·S.
    a[t] = r00 * sxx + r01 * sxy + r02 * sxz; a[t + 1] = r10 * sxx + r11 * sxy + r12 * sxz; a[t + 2] = r20 * sxx + r21 * sxy + r22 * sxz;
    a[t + 3] = r00 * sxy + r01 * syy + r02 * syz; a[t + 4] = r10 * sxy + r11 * syy + r12 * syz; a[t + 5] = r20 * sxy + r21 * syy + r22 * syz;
    a[t + 6] = r00 * sxz + r01 * syz + r02 * szz; a[t + 7] = r10 * sxz + r11 * syz + r12 * szz; a[t + 8] = r20 * sxz + r21 * syz + r22 * szz;
    const dx = dq[o + F.DUAL], dy = dq[o + F.DUAL + 1], dz = dq[o + F.DUAL + 2], dw = dq[o + F.DUAL + 3];
    a[t + 9] = 2 * (w * dx - dw * x + y * dz - z * dy);
    a[t + 10] = 2 * (w * dy - dw * y + z * dx - x * dz);
    a[t + 11] = 2 * (w * dz - dw * z + x * dy - y * dx);
  }
}

export function skinPrimitiveCor(
  prim: Primitive,
  dqPalette: NumArray,
  centers: ArrayLike<number>,
  out: SkinnedVertices,
  paletteJointOffset = 0,
  source: { positions: Float32Array; normals?: Float32Array; tangents?: Float32Array } = prim,
): SkinnedVertices {
  const joints = prim.joints;
  const weights = prim.weights;
  if (!joints || !weights) throw new Error('skinPrimitiveCor: primitive has no JOINTS_0/WEIGHTS_0');
  if (centers.length < prim.vertexCount * 3) throw new RangeError(`skinPrimitiveCor: ${centers.length / 3} centres for ${prim.vertexCount} vertices`);
  const influences = prim.influences;
  const pos = source.positions, nrm = source.normals, tan = source.tangents;
  const outPos = out.positions, outNrm = out.normals, outTan = out.tangents;
  const F = DqJointFloat;
  const base = paletteJointOffset * DQ_JOINT_FLOATS;
  rebuildAffine(dqPalette, base, prim.maxJoint + 1);
  const affine = jointAffine;
  for (let v = 0; v < prim.vertexCount; v++) {
    const iv = v * influences;
    const px = centers[v * 3], py = centers[v * 3 + 1], pz = centers[v * 3 + 2];
    let pivot = -1;
    for (let i = 0; i < influences && pivot < 0; i++) if (weights[iv + i] !== 0) pivot = base + joints[iv + i] * DQ_JOINT_FLOATS;
    let rx = 0, ry = 0, rz = 0, rw = 0, cx = 0, cy = 0, cz = 0;
    let sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0, wsum = 0;
    if (pivot >= 0) {
      const ox = dqPalette[pivot + F.REAL], oy = dqPalette[pivot + F.REAL + 1];
      const oz = dqPalette[pivot + F.REAL + 2], ow = dqPalette[pivot + F.REAL + 3];
      for (let i = 0; i < influences; i++) {
        const w = weights[iv + i];
        if (w === 0) continue;
        const o = base + joints[iv + i] * DQ_JOINT_FLOATS;
        const qx = dqPalette[o + F.REAL], qy = dqPalette[o + F.REAL + 1], qz = dqPalette[o + F.REAL + 2], qw = dqPalette[o + F.REAL + 3];
        const sw = ox * qx + oy * qy + oz * qz + ow * qw < 0 ? -w : w;
        rx += sw * qx; ry += sw * qy; rz += sw * qz; rw += sw * qw;
        const jxx = dqPalette[o + F.STRETCH_DIAGONAL], jyy = dqPalette[o + F.STRETCH_DIAGONAL + 1], jzz = dqPalette[o + F.STRETCH_DIAGONAL + 2];
        const jxy = dqPalette[o + F.STRETCH_OFF_DIAGONAL], jxz = dqPalette[o + F.STRETCH_OFF_DIAGONAL + 1], jyz = dqPalette[o + F.STRETCH_OFF_DIAGONAL + 2];
        sxx += w * jxx; syy += w * jyy; szz += w * jzz; sxy += w * jxy; sxz += w * jxz; syz += w * jyz;
        // Mⱼ·p*, from the joint's rebuilt affine matrix.
        const m = joints[iv + i] * AFFINE_FLOATS;
        cx += w * (affine[m] * px + affine[m + 3] * py + affine[m + 6] * pz + affine[m + 9]);
        cy += w * (affine[m + 1] * px + affine[m + 4] * py + affine[m + 7] * pz + affine[m + 10]);
        cz += w * (affine[m + 2] * px + affine[m + 5] * py + affine[m + 8] * pz + affine[m + 11]);
        wsum += w;
      }
    }
    // The rotation's length vanishing (no weight at all) leaves the identity, and S̄ = 0, c = 0
    // collapse the vertex as the linear blend would.
    const len = Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
    if (len > 0) {
      const il = 1 / len;
      rx *= il; ry *= il; rz *= il; rw *= il;
    } else {
      rw = 1;
    }
    if (wsum !== 0) {
      const iw = 1 / wsum;
      sxx *= iw; syy *= iw; szz *= iw; sxy *= iw; sxz *= iw; syz *= iw;
      cx *= iw; cy *= iw; cz *= iw;
    }

    // Position R·S̄·(v − p*) + c; normal and tangent as DQS's (stretch-rotate.ts).
    const b = blend;
    b[0] = rx; b[1] = ry; b[2] = rz; b[3] = rw;
    b[4] = sxx; b[5] = syy; b[6] = szz; b[7] = sxy; b[8] = sxz; b[9] = syz;
    b[10] = px; b[11] = py; b[12] = pz; b[13] = cx; b[14] = cy; b[15] = cz;
    writeStretchRotated(b, v, pos, nrm, tan, outPos, outNrm, outTan);
  }
  return out;
}
