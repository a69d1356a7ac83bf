import { chainInfluences } from '../../src/builtin/geometry.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { composeTRS, multiplyMat4 } from '../../src/math/trs.ts';

/**
 * Closed skinned cylinders along +Y for the skinning-artifact tests: a chain of joints at
 * `knots` heights (joint 0 at the base), weights blended by smoothstep over ±`blend` around
 * each inner joint (src/builtin/geometry.ts `chainInfluences`), flat caps fanned to a centre
 * vertex so the mesh encloses a volume. Poses are local rotations per joint; the palettes are
 * skinning matrices (joint world × inverse bind), as skinPalette gives.
 */
export interface Cylinder {
  readonly prim: Primitive;
  readonly radius: number;
  /** Joint heights in the rest pose (joint 0 first). */
  readonly knots: readonly number[];
  readonly height: number;
  /** Skinning matrices (16 per joint, float64) for one local rotation (x y z w) per joint. */
  palette(rotations: readonly (readonly number[])[]): Float64Array;
  /** Joint positions in the posed skeleton, plus the tip (the bone polyline), for `rotations`. */
  skeleton(rotations: readonly (readonly number[])[]): number[][];
}

export function cylinder(options: { knots: number[]; height: number; blend: number; radius?: number; rings?: number; segments?: number }): Cylinder {
  const radius = options.radius ?? 0.25;
  const rings = options.rings ?? 81;
  const segments = options.segments ?? 32;
  const { knots, height, blend } = options;
  const joints = knots.map((_, i) => i);
  const influence = chainInfluences(joints, knots.slice(1), knots.slice(1).map(() => blend));
  const positions: number[] = [], normals: number[] = [], jointList: number[] = [], weightList: number[] = [], indices: number[] = [];
  const addVertex = (p: number[], n: number[], h: number) => {
    positions.push(...p); normals.push(...n);
    const w = influence(h).filter(([, x]) => x > 0).sort((a, b) => b[1] - a[1]).slice(0, 4);
    const sum = w.reduce((s, [, x]) => s + x, 0);
    for (let i = 0; i < 4; i++) { jointList.push(w[i]?.[0] ?? 0); weightList.push(w[i] ? w[i][1] / sum : 0); }
    return positions.length / 3 - 1;
  };
  const side: number[][] = [];
  for (let r = 0; r < rings; r++) {
    const h = (height * r) / (rings - 1);
    side.push([]);
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      side[r].push(addVertex([radius * Math.cos(a), h, radius * Math.sin(a)], [Math.cos(a), 0, Math.sin(a)], h));
    }
  }
  // Outward winding: seen from outside, counter-clockwise.
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = side[r][s], b = side[r][(s + 1) % segments], c = side[r + 1][s], d = side[r + 1][(s + 1) % segments];
      indices.push(a, c, b, b, c, d);
    }
  }
  for (const [h, ny, ring] of [[0, -1, side[0]], [height, 1, side[rings - 1]]] as const) {
    const centre = addVertex([0, h, 0], [0, ny, 0], h);
    const rim = ring.map((v) => addVertex(positions.slice(v * 3, v * 3 + 3), [0, ny, 0], h));
    for (let s = 0; s < segments; s++) {
      const a = rim[s], b = rim[(s + 1) % segments];
      if (ny < 0) indices.push(centre, a, b);
      else indices.push(centre, b, a);
    }
  }
  const vertexCount = positions.length / 3;
  const prim: Primitive = {
    mode: 4, vertexCount,
    positions: Float32Array.from(positions), normals: Float32Array.from(normals), tangents: undefined,
    texcoords0: undefined, texcoords1: undefined, colors0: undefined,
    indices: vertexCount > 0xffff ? Uint32Array.from(indices) : Uint16Array.from(indices), material: -1,
    influences: 4, joints: Uint16Array.from(jointList), weights: Float32Array.from(weightList),
    maxJoint: knots.length - 1, jointSets: [], weightSets: [], targets: [],
  };
  const worlds = (rotations: readonly (readonly number[])[]) => {
    const out: Float64Array[] = [];
    for (let j = 0; j < knots.length; j++) {
      const local = composeTRS([0, j === 0 ? knots[0] : knots[j] - knots[j - 1], 0], [...(rotations[j] ?? [0, 0, 0, 1])], [1, 1, 1], new Float64Array(16));
      out.push(j === 0 ? local : multiplyMat4(out[j - 1], local, new Float64Array(16)));
    }
    return out;
  };
  return {
    prim, radius, knots, height,
    palette(rotations) {
      const palette = new Float64Array(knots.length * 16);
      worlds(rotations).forEach((world, j) => {
        const inverseBind = composeTRS([0, -knots[j], 0], [0, 0, 0, 1], [1, 1, 1], new Float64Array(16));
        multiplyMat4(world, inverseBind, palette, 0, 0, j * 16);
      });
      return palette;
    },
    skeleton(rotations) {
      const w = worlds(rotations);
      const points = w.map((m) => [m[12], m[13], m[14]]);
      const last = w[w.length - 1], rest = height - knots[knots.length - 1];
      points.push([last[12] + last[4] * rest, last[13] + last[5] * rest, last[14] + last[6] * rest]);
      return points;
    },
  };
}

/** A unit quaternion (x y z w) about `axis` by `degrees`. */
export function axisAngle(axis: readonly number[], degrees: number): number[] {
  const len = Math.hypot(axis[0], axis[1], axis[2]), half = (degrees * Math.PI) / 360;
  const k = Math.sin(half) / len;
  return [axis[0] * k, axis[1] * k, axis[2] * k, Math.cos(half)];
}

/** Distance from point p to the polyline through `points`. */
export function distanceToPolyline(p: ArrayLike<number>, points: readonly number[][]): number {
  let best = Infinity;
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i], b = points[i + 1];
    const abx = b[0] - a[0], aby = b[1] - a[1], abz = b[2] - a[2];
    const apx = p[0] - a[0], apy = p[1] - a[1], apz = p[2] - a[2];
    const len2 = abx * abx + aby * aby + abz * abz;
    const t = len2 > 0 ? Math.min(1, Math.max(0, (apx * abx + apy * aby + apz * abz) / len2)) : 0;
    best = Math.min(best, Math.hypot(apx - t * abx, apy - t * aby, apz - t * abz));
  }
  return best;
}

/** Signed volume enclosed by a closed, outward-wound triangle mesh. */
export function enclosedVolume(positions: ArrayLike<number>, indices: ArrayLike<number>): number {
  let v = 0;
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t] * 3, b = indices[t + 1] * 3, c = indices[t + 2] * 3;
    v += positions[a] * (positions[b + 1] * positions[c + 2] - positions[b + 2] * positions[c + 1])
      - positions[a + 1] * (positions[b] * positions[c + 2] - positions[b + 2] * positions[c])
      + positions[a + 2] * (positions[b] * positions[c + 1] - positions[b + 1] * positions[c]);
  }
  return v / 6;
}
