import { describe, expect, it } from 'vitest';
import { DQ_JOINT_FLOATS, DqJointFloat } from '../../src/anim/dq-palette.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { triangleList } from '../../src/gltf/topology.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { computeCentersOfRotation } from '../../src/skin/centers-of-rotation/precompute.ts';
import { skinPrimitiveCor } from '../../src/skin/cor.ts';
import { createSkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { axisAngle, cylinder, distanceToPolyline, enclosedVolume, type Cylinder } from '../support/cylinders.ts';
import { close, dqs, JOINTS, lbs, matrices, SPOTS, toDq, vertices } from '../support/skin-fixtures.ts';

const cor = (prim: Primitive, palette: ArrayLike<number>, centers: ArrayLike<number>) => skinPrimitiveCor(prim, palette as Float64Array, centers, createSkinnedVertices(prim, 'float64'));

/** Arbitrary centres, far from the vertices: identities must hold whatever the centres are. */
const anyCenters = (n: number) => Float64Array.from({ length: n * 3 }, (_, i) => Math.sin(i * 1.7) * 3);

describe('skinPrimitiveCor: invalid inputs', () => {
  it('throws for a primitive without skinning attributes, and for fewer centres than vertices', () => {
    const p = vertices([{ p: [0, 0, 0], j: [0, 0, 0, 0], w: [1, 0, 0, 0] }, { p: [1, 0, 0], j: [0, 0, 0, 0], w: [1, 0, 0, 0] }]);
    expect(() => skinPrimitiveCor({ ...p, joints: undefined }, new Float64Array(DQ_JOINT_FLOATS), anyCenters(2), createSkinnedVertices(p))).toThrow(/no JOINTS_0/);
    expect(() => skinPrimitiveCor(p, toDq(JOINTS), anyCenters(1), createSkinnedVertices(p))).toThrow(/1 centres for 2 vertices/);
  });
});

describe('skinPrimitiveCor: the identities', () => {
  it('a rigidly bound vertex (one joint, weight 1) moves exactly as under linear blending, whatever its centre; rigid, scaled, sheared and mirrored joints', () => {
    const palette = Float64Array.from([
      ...JOINTS,
      // A general affine matrix: shear, non-uniform scale and a mirror.
      1, 0.2, -0.3, 0, 0.7, -1.4, 0.1, 0, -0.2, 0.5, 0.9, 0, 3, 2, 1, 1,
    ]);
    const prim = vertices([0, 1, 2, 3, 4].flatMap((j) => SPOTS.map((s) => ({ ...s, j: [j, 0, 0, 0], w: [1, 0, 0, 0] }))));
    const a = cor(prim, toDq(palette), anyCenters(prim.vertexCount)), b = lbs(prim, palette);
    close(a.positions, b.positions, 1e-12);
    close(a.normals!, b.normals!, 1e-12);
    close(a.tangents!, b.tangents!, 1e-12);
  });

  it('the rest pose (every skinning matrix the identity) reproduces the rest mesh', () => {
    const identity = matrices(...[0, 1, 2, 3].map(() => [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]] as [number[], number[], number[]]));
    const prim = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const out = cor(prim, toDq(identity), anyCenters(prim.vertexCount));
    close(out.positions, prim.positions, 1e-12);
    close(out.normals!, prim.normals!, 1e-7);
    close(out.tangents!, prim.tangents!, 1e-7);
  });

  it('with every joint rotation equal (translations and scales differing), the result equals linear blending', () => {
    const r = axisAngle([0.3, -1, 0.5], 123);
    const palette = matrices([[1, 2, 3], r, [1, 1, 1]], [[-4, 0, 1], r, [2, 0.5, 1.3]], [[0, 5, 0], r, [0.7, 0.7, 0.7]], [[2, -2, 2], r, [1, 3, 1]]);
    const prim = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const a = cor(prim, toDq(palette), anyCenters(prim.vertexCount)), b = lbs(prim, palette);
    close(a.positions, b.positions, 1e-6); // float32 weights sum to 1 within 1e-7
    close(a.normals!, b.normals!, 1e-9);
    close(a.tangents!, b.tangents!, 1e-9);
  });
});

describe('skinPrimitiveCor: the blend', () => {
  it('rigid joints: v\' = R·v + (Σ wⱼ·Mⱼ)·p* − R·p*, the paper\'s formula, with R the normalised blend of the joints\' quaternions', () => {
    const q0 = axisAngle([1, 2, 3], 75), q1 = axisAngle([0, 1, -1], 140);
    const palette = matrices([[1, 2, 3], q0, [1, 1, 1]], [[-1, 0.5, 2], q1, [1, 1, 1]]);
    const prim = vertices([{ p: [0.3, -1, 2], j: [0, 1, 0, 0], w: [0.3, 0.7, 0, 0] }]);
    const center = [0.5, 0.2, -0.4];
    const out = cor(prim, toDq(palette), center);
    // Independently: the quaternion blend on q0's hemisphere, its matrix, and the matrices' blend at p*.
    const sign = q0.reduce((s, x, i) => s + x * q1[i], 0) < 0 ? -1 : 1;
    const q = q0.map((x, i) => 0.3 * x + 0.7 * sign * q1[i]);
    const ql = Math.hypot(...q);
    const R = composeTRS([0, 0, 0], q.map((x) => x / ql), [1, 1, 1], new Float64Array(16));
    const apply = (m: ArrayLike<number>, o: number, p: number[], w = 1) => [0, 1, 2].map((r) => m[o + r] * p[0] + m[o + 4 + r] * p[1] + m[o + 8 + r] * p[2] + w * m[o + 12 + r]);
    const blended = [0, 1, 2].map((r) => 0.3 * apply(palette, 0, center)[r] + 0.7 * apply(palette, 16, center)[r]);
    const Rv = apply(R, 0, [0.3, -1, 2], 0), Rp = apply(R, 0, center, 0);
    close(out.positions, [0, 1, 2].map((r) => Rv[r] + blended[r] - Rp[r]), 1e-6);
  });

  it('two joints half-way, centre at the pivot: rotates by half the angle and keeps the distance (LBS shrinks it)', () => {
    const palette = matrices([[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]], [[0, 0, 0], axisAngle([0, 0, 1], 90), [1, 1, 1]]);
    const prim = vertices([{ p: [1, 0, 0], n: [1, 0, 0], t: [0, 1, 0, 1], j: [0, 1, 0, 0], w: [0.5, 0.5, 0, 0] }]);
    const s = Math.SQRT1_2;
    const out = cor(prim, toDq(palette), [0, 0, 0]);
    close(out.positions, [s, s, 0], 1e-7);
    close(out.normals!, [s, s, 0], 1e-7);
    close(out.tangents!, [-s, s, 0, 1], 1e-7);
  });

  it('antipodality: negating a joint\'s dual quaternion (the same transform) changes nothing', () => {
    const prim = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const palette = toDq(JOINTS), centers = anyCenters(prim.vertexCount);
    const reference = cor(prim, palette, centers);
    for (let joint = 0; joint < 4; joint++) {
      const flipped = Float64Array.from(palette);
      for (let k = 0; k < 8; k++) flipped[joint * DQ_JOINT_FLOATS + DqJointFloat.REAL + k] *= -1;
      const out = cor(prim, flipped, centers);
      close(out.positions, reference.positions, 1e-12);
      close(out.normals!, reference.normals!, 1e-12);
      close(out.tangents!, reference.tangents!, 1e-12);
    }
  });

  it('the hemisphere follows the first influence with a weight, not a zero-weight slot', () => {
    const palette = toDq(matrices(
      [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]],
      [[0, 0, 0], axisAngle([0, 0, 1], 200), [1, 1, 1]],
      [[0, 0, 0], axisAngle([1, 0, 0], 180), [1, 1, 1]],
    ));
    const withPadding = vertices([{ p: [1, 0, 0], j: [2, 0, 1, 2], w: [0, 0.5, 0.5, 0] }]);
    const minus80 = (-80 * Math.PI) / 180;
    close(cor(withPadding, palette, [0, 0, 0]).positions, [Math.cos(minus80), Math.sin(minus80), 0], 1e-12);
  });

  it('eight influences: the same blend as four when the weights split across both sets', () => {
    const four = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3], w: [0.4, 0.3, 0.2, 0.1] })));
    const eight = vertices(SPOTS.map((s) => ({ ...s, j: [0, 1, 2, 3, 3, 2, 1, 0], w: [0.1, 0.2, 0.05, 0.05, 0.05, 0.15, 0.1, 0.3] })));
    const palette = toDq(JOINTS), centers = anyCenters(3);
    const a = cor(eight, palette, centers), b = cor(four, palette, centers);
    close(a.positions, b.positions, 1e-6);
    close(a.normals!, b.normals!, 1e-6);
    close(a.tangents!, b.tangents!, 1e-6);
  });

  it('reads from a joint offset, writes float32 when asked, and returns the output it was given', () => {
    const prim = vertices([{ p: [1, 2, 3], j: [1, 0, 0, 0], w: [1, 0, 0, 0] }]);
    const palette = toDq(matrices([[9, 9, 9], [0, 0, 0, 1], [1, 1, 1]], [[9, 9, 9], [0, 0, 0, 1], [1, 1, 1]], [[0, 0, 5], [0, 0, 0, 1], [1, 1, 1]]));
    const out = createSkinnedVertices(prim);
    expect(out.positions).toBeInstanceOf(Float32Array);
    expect(skinPrimitiveCor(prim, palette, [7, 7, 7], out, 1)).toBe(out);
    close(out.positions, [1, 2, 8], 1e-6);
  });
});

/** The three methods' positions for one pose of a generated cylinder (centres precomputed). */
function skinAll(c: Cylinder, rotations: number[][]) {
  const prim = c.prim;
  const result = computeCentersOfRotation({ ...prim, joints: prim.joints!, weights: prim.weights!, triangles: triangleList(prim) });
  if (!result.ok) throw new Error(result.reason);
  const palette = c.palette(rotations), dq = toDq(palette) as Float64Array;
  return {
    linear: lbs(prim, palette).positions,
    'dual-quaternion': dqs(prim, dq).positions,
    'center-of-rotation': cor(prim, dq, result.centers).positions,
  };
}
const METHODS = ['linear', 'dual-quaternion', 'center-of-rotation'] as const;
const REST = [0, 0, 0, 1];

/** Min distance from the y axis, over the rest radius, of the ring at y = 1 (the twisting joint). */
function twistRadius(): Record<(typeof METHODS)[number], number> {
  const c = cylinder({ knots: [0, 1], height: 2, blend: 0.5 });
  const out = skinAll(c, [REST, axisAngle([0, 1, 0], 180)]);
  const p = c.prim.positions;
  const ring: number[] = [];
  for (let v = 0; v < c.prim.vertexCount; v++) {
    if (Math.abs(p[v * 3 + 1] - 1) < 1e-6 && Math.abs(Math.hypot(p[v * 3], p[v * 3 + 2]) - c.radius) < 1e-6) ring.push(v);
  }
  expect(ring.length).toBe(32);
  const radius = (q: ArrayLike<number>) => Math.min(...ring.map((v) => Math.hypot(q[v * 3], q[v * 3 + 2]))) / c.radius;
  return { linear: radius(out.linear), 'dual-quaternion': radius(out['dual-quaternion']), 'center-of-rotation': radius(out['center-of-rotation']) };
}

/**
 * A three-joint cylinder bent 90° at the middle joint: the largest outward displacement beyond
 * the rest radius (distance to the posed bones minus distance to the rest bones, over the
 * radius), and the change of the enclosed volume (the loss sits at the elbow's inner side).
 */
function bend(): Record<(typeof METHODS)[number], { bulge: number; volume: number }> {
  const c = cylinder({ knots: [0, 1, 2], height: 3, blend: 0.2 });
  const pose = [REST, axisAngle([0, 0, 1], 90), REST];
  const out = skinAll(c, pose);
  const restBones = c.skeleton([REST, REST, REST]), bones = c.skeleton(pose);
  const restVolume = enclosedVolume(c.prim.positions, c.prim.indices!);
  const measure = (q: Float32Array | Float64Array) => {
    let bulge = 0;
    for (let v = 0; v < c.prim.vertexCount; v++) {
      bulge = Math.max(bulge, distanceToPolyline(q.subarray(v * 3, v * 3 + 3), bones) - distanceToPolyline(c.prim.positions.subarray(v * 3, v * 3 + 3), restBones));
    }
    return { bulge: bulge / c.radius, volume: (enclosedVolume(q, c.prim.indices!) - restVolume) / restVolume };
  };
  return { linear: measure(out.linear), 'dual-quaternion': measure(out['dual-quaternion']), 'center-of-rotation': measure(out['center-of-rotation']) };
}

describe('the artifacts on generated cylinders, all three methods (the README\'s table)', () => {
  it('180° twist: centres of rotation keep ≥ 90% of the radius at the joint; linear blending collapses towards 0', () => {
    const r = twistRadius();
    expect(r.linear).toBeLessThan(0.05);
    expect(r['dual-quaternion']).toBeGreaterThanOrEqual(0.9);
    expect(r['center-of-rotation']).toBeGreaterThanOrEqual(0.9);
  });

  it('90° bend: less outward bulge than dual quaternions, less volume lost than linear blending', () => {
    const b = bend();
    expect(b['center-of-rotation'].bulge).toBeLessThan(0.75 * b['dual-quaternion'].bulge);
    expect(-b['center-of-rotation'].volume).toBeLessThan(0.25 * -b.linear.volume);
    expect(b.linear.volume).toBeLessThan(-0.01);
    const r = twistRadius();
    const row = (m: (typeof METHODS)[number]) => `| ${m} | ${(100 * r[m]).toFixed(0)}% | ${(100 * b[m].bulge).toFixed(1)}% | ${(100 * b[m].volume).toFixed(2)}% |`;
    console.log(['| method | twist 180°: min radius | bend 90°: max bulge | bend 90°: volume change |', ...METHODS.map(row)].join('\n'));
  });
});
