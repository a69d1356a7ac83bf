import { describe, expect, it } from 'vitest';
import { DQ_JOINT_FLOATS, DqJointFloat } from '../../src/anim/dq-palette.ts';
import { skinPalette } from '../../src/anim/palette.ts';
import { poseForBake } from '../../src/bake/bake.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { createSkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { skinPrimitiveDq } from '../../src/skin/dqs.ts';
import { axisAngle } from '../support/cylinders.ts';
import { close, dqs, JOINTS, lbs, matrices, SPOTS, toDq, vertices } from '../support/skin-fixtures.ts';

describe('skinPrimitiveDq: invalid inputs', () => {
  it('throws for a primitive without skinning attributes', () => {
    const p = { ...vertices([{ p: [0, 0, 0], j: [0, 0, 0, 0], w: [1, 0, 0, 0] }]), joints: undefined };
    expect(() => skinPrimitiveDq(p, new Float64Array(DQ_JOINT_FLOATS), createSkinnedVertices(p))).toThrow(/no JOINTS_0/);
  });
});

describe('skinPrimitiveDq equals linear blend skinning where blending plays no part', () => {
  it('one influence per vertex, rigid and scaled/sheared/mirrored joints alike', () => {
    const palette = Float64Array.from([
      ...JOINTS,
      // A general affine matrix: shear, non-uniform scale and a mirror.
      1, 0.2, -0.3, 0, 0.7, -1.4, 0.1, 0, -0.2, 0.5, 0.9, 0, 3, 2, 1, 1,
    ]);
    const prim = vertices([0, 1, 2, 3, 4].flatMap((j) => SPOTS.map((s) => ({ ...s, j: [j, 0, 0, 0], w: [1, 0, 0, 0] }))));
    const a = dqs(prim, toDq(palette)), b = lbs(prim, palette);
    close(a.positions, b.positions, 1e-12);
    close(a.normals!, b.normals!, 1e-12);
    close(a.tangents!, b.tangents!, 1e-12);
  });

  it('every influence on one joint (weights spread over the four slots)', () => {
    const prim = vertices([0, 1, 2, 3].flatMap((j) => SPOTS.map((s) => ({ ...s, j: [j, j, j, j], w: [0.1, 0.2, 0.3, 0.4] }))));
    const a = dqs(prim, toDq(JOINTS)), b = lbs(prim, JOINTS);
    close(a.positions, b.positions, 1e-6); // float32 weights sum to 1 within 1e-7
    close(a.normals!, b.normals!, 1e-9);
    close(a.tangents!, b.tangents!, 1e-9);
  });
});

describe('skinPrimitiveDq: blending', () => {
  it('two joints half-way: rotates by half the angle and keeps the distance from the pivot (LBS shrinks it)', () => {
    // Joint 1 turns 90° about z through the origin; a vertex at (1, 0, 0) half on each joint.
    const palette = matrices([[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]], [[0, 0, 0], axisAngle([0, 0, 1], 90), [1, 1, 1]]);
    const prim = vertices([{ p: [1, 0, 0], n: [1, 0, 0], t: [0, 1, 0, 1], j: [0, 1, 0, 0], w: [0.5, 0.5, 0, 0] }]);
    const s = Math.SQRT1_2;
    const out = dqs(prim, toDq(palette));
    close(out.positions, [s, s, 0], 1e-7);
    close(out.normals!, [s, s, 0], 1e-7);
    close(out.tangents!, [-s, s, 0, 1], 1e-7);
    close(lbs(prim, palette).positions, [0.5, 0.5, 0], 1e-7);
  });

  it('scale blends linearly before the rigid part: half of scale 3 and scale 1 is scale 2', () => {
    const palette = matrices([[0, 0, 0], [0, 0, 0, 1], [3, 3, 3]], [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]]);
    const prim = vertices([{ p: [1, 2, 3], j: [0, 1, 0, 0], w: [0.5, 0.5, 0, 0] }]);
    close(dqs(prim, toDq(palette)).positions, [2, 4, 6], 1e-7);
  });

  it('antipodality: negating a joint\'s dual quaternion (the same transform) changes nothing', () => {
    const prim = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const palette = toDq(JOINTS);
    const reference = dqs(prim, palette);
    for (let joint = 0; joint < 4; joint++) {
      const flipped = Float64Array.from(palette);
      for (let k = 0; k < 8; k++) flipped[joint * DQ_JOINT_FLOATS + DqJointFloat.REAL + k] *= -1; // real and dual
      const out = dqs(prim, flipped);
      close(out.positions, reference.positions, 1e-12);
      close(out.normals!, reference.normals!, 1e-12);
      close(out.tangents!, reference.tangents!, 1e-12);
    }
  });

  it('the hemisphere follows the first influence with a weight, not a zero-weight slot', () => {
    // Joint 1 turns 200°: on the hemisphere of joint 0 that is −160°, so the half blend is −80°.
    // Joint 2 (180° about x) is orthogonal to both; were it the pivot, neither would flip (+100°).
    const palette = toDq(matrices(
      [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]],
      [[0, 0, 0], axisAngle([0, 0, 1], 200), [1, 1, 1]],
      [[0, 0, 0], axisAngle([1, 0, 0], 180), [1, 1, 1]],
    ));
    const withPadding = vertices([{ p: [1, 0, 0], j: [2, 0, 1, 2], w: [0, 0.5, 0.5, 0] }]);
    const minus80 = (-80 * Math.PI) / 180;
    close(dqs(withPadding, palette).positions, [Math.cos(minus80), Math.sin(minus80), 0], 1e-12);
  });

  it('eight influences: the same blend as four when the weights split across both sets', () => {
    const four = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const eight = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3, 3, 2, 1, 0], w: [0.1, 0.2, 0.05, 0.05, 0.05, 0.15, 0.1, 0.3] })));
    const palette = toDq(JOINTS);
    const a = dqs(eight, palette), b = dqs(four, palette);
    close(a.positions, b.positions, 1e-6);
    close(a.normals!, b.normals!, 1e-6);
    close(a.tangents!, b.tangents!, 1e-6);
  });

  it('normals take the inverse-transpose of the blended stretch; mirrors keep them outward; tangent w is kept', () => {
    const s = Math.SQRT1_2;
    const stretch = vertices([{ p: [0, 0, 0], n: [s, s, 0], t: [s, s, 0, -1], j: [0, 0, 0, 0], w: [1, 0, 0, 0] }]);
    const out = dqs(stretch, toDq(matrices([[0, 0, 0], [0, 0, 0, 1], [2, 1, 1]])));
    const nl = Math.hypot(0.5, 1), tl = Math.hypot(2, 1);
    close(out.normals!, [0.5 / nl, 1 / nl, 0], 1e-12);
    close(out.tangents!, [2 / tl, 1 / tl, 0, -1], 1e-12);
    const mirror = vertices([{ p: [0, 0, 0], n: [1, 0, 0], t: [0, 1, 0, 1], j: [0, 0, 0, 0], w: [1, 0, 0, 0] }]);
    close(dqs(mirror, toDq(matrices([[0, 0, 0], [0, 0, 0, 1], [-1, 1, 1]]))).normals!, [-1, 0, 0], 1e-12);
  });

  it('reads from a joint offset, writes float32 when asked, and returns the output it was given', () => {
    const prim = vertices([{ p: [1, 2, 3], j: [1, 0, 0, 0], w: [1, 0, 0, 0] }]);
    const palette = toDq(matrices([[9, 9, 9], [0, 0, 0, 1], [1, 1, 1]], [[9, 9, 9], [0, 0, 0, 1], [1, 1, 1]], [[0, 0, 5], [0, 0, 0, 1], [1, 1, 1]]));
    const out = createSkinnedVertices(prim);
    expect(out.positions).toBeInstanceOf(Float32Array);
    expect(skinPrimitiveDq(prim, palette, out, 1)).toBe(out);
    close(out.positions, [1, 2, 8], 1e-6);
  });
});

describe('the candy wrapper: the built-in twist-cylinder at 180° of twist', () => {
  const RADIUS = 0.25;

  /** Mean distance from the y axis of the ring of side vertices at the joint's height (y = 1). */
  async function ringRadius(): Promise<{ linear: number; dualQuaternion: number; rest: number }> {
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'twist-cylinder' });
    const clip = model.animations.findIndex((c) => c.name === 'Twist');
    const { nodeMatrices } = poseForBake(model, { animation: clip, time: model.animations[clip].duration });
    const prim = model.meshes[0].primitives[0];
    const ring: number[] = [];
    for (let v = 0; v < prim.vertexCount; v++) {
      const x = prim.positions[v * 3], y = prim.positions[v * 3 + 1], z = prim.positions[v * 3 + 2];
      if (Math.abs(y - 1) < 1e-6 && Math.abs(Math.hypot(x, z) - RADIUS) < 1e-6) ring.push(v);
    }
    expect(ring.length).toBeGreaterThanOrEqual(32);
    const skin = model.skins[model.meshNodes[0].skin];
    const matrixPalette = skinPalette(skin, nodeMatrices, -1, new Float64Array(skin.joints.length * 16)) as Float64Array;
    const mean = (positions: ArrayLike<number>) => ring.reduce((sum, v) => sum + Math.hypot(positions[v * 3], positions[v * 3 + 2]), 0) / ring.length;
    return {
      rest: mean(prim.positions),
      linear: mean(lbs(prim, matrixPalette).positions),
      dualQuaternion: mean(dqs(prim, toDq(matrixPalette)).positions),
    };
  }

  it('linear blend skinning collapses the mid ring (< 0.1 of the radius); DQS keeps ≥ 0.9 of it', async () => {
    const r = await ringRadius();
    expect(r.rest).toBeCloseTo(RADIUS, 6);
    expect(r.linear / r.rest).toBeLessThan(0.1);
    expect(r.dualQuaternion / r.rest).toBeGreaterThanOrEqual(0.9);
  });
});
