import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import type { Primitive } from '../../src/gltf/model.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';

/** A one-vertex primitive bound to the given joints/weights. */
function vertex(position: number[], normal: number[], tangent: number[], joints: number[], weights: number[]): Primitive {
  const influences = joints.length as 4 | 8;
  return {
    mode: 4, vertexCount: 1, positions: Float32Array.from(position), normals: Float32Array.from(normal),
    tangents: Float32Array.from(tangent), texcoords0: undefined, texcoords1: undefined, colors0: undefined,
    indices: undefined, material: -1, influences, joints: Uint16Array.from(joints), weights: Float32Array.from(weights),
    maxJoint: Math.max(...joints), jointSets: [], weightSets: [], targets: [],
  };
}

const palette = (...matrices: Float32Array[]) => {
  const out = new Float64Array(matrices.length * 16);
  matrices.forEach((m, i) => out.set(m, i * 16));
  return out;
};

const close = (a: ArrayLike<number>, b: number[], eps = 1e-9) => b.forEach((v, i) => expect(Math.abs(a[i] - v), `component ${i}: ${a[i]} vs ${v}`).toBeLessThan(eps));

describe('skinPrimitive', () => {
  it('throws for a primitive without skinning attributes', () => {
    const p = { ...vertex([0, 0, 0], [0, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]), joints: undefined };
    expect(() => skinPrimitive(p, new Float64Array(16), createSkinnedVertices(p))).toThrow(/no JOINTS_0/);
  });

  it('blends positions by weight', () => {
    const p = vertex([1, 0, 0], [0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0], [0.25, 0.75, 0, 0]);
    const out = skinPrimitive(p, palette(mat4.translation([0, 4, 0]), mat4.translation([8, 0, 0])), createSkinnedVertices(p, 'float64'));
    close(out.positions, [1 + 6, 1, 0]);
  });

  it('reads the palette from a matrix offset', () => {
    const p = vertex([0, 0, 0], [0, 0, 1], [1, 0, 0, 1], [1, 0, 0, 0], [1, 0, 0, 0]);
    const pal = palette(mat4.identity(), mat4.identity(), mat4.identity(), mat4.translation([0, 0, 5]));
    close(skinPrimitive(p, pal, createSkinnedVertices(p, 'float64'), 2).positions, [0, 0, 5]);
  });

  it('skins normals by the inverse-transpose under non-uniform scale', () => {
    // A 45° normal in the xy-plane under scale (2, 1, 1) tilts towards y: n' ∝ (1/2, 1, 0).
    const s = Math.SQRT1_2;
    const p = vertex([0, 0, 0], [s, s, 0], [s, s, 0, -1], [0, 0, 0, 0], [1, 0, 0, 0]);
    const out = skinPrimitive(p, palette(mat4.scaling([2, 1, 1])), createSkinnedVertices(p, 'float64'));
    const len = Math.hypot(0.5, 1);
    close(out.normals!, [0.5 / len, 1 / len, 0]);
    // Tangents follow the surface (M·t), then renormalise; w is the handedness and is kept.
    const tl = Math.hypot(2, 1);
    close(out.tangents!, [2 / tl, 1 / tl, 0, -1]);
  });

  it('keeps normals outward under a mirroring joint', () => {
    const p = vertex([0, 0, 0], [1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]);
    const out = skinPrimitive(p, palette(mat4.scaling([-1, 1, 1])), createSkinnedVertices(p, 'float64'));
    close(out.normals!, [-1, 0, 0]);
  });

  it('uses all eight influences', () => {
    const p = vertex([0, 0, 0], [0, 0, 1], [1, 0, 0, 1], [0, 1, 2, 3, 4, 5, 6, 7], [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3]);
    const mats = Array.from({ length: 8 }, (_, i) => mat4.translation([i, 0, 0]));
    const out = skinPrimitive(p, palette(...mats), createSkinnedVertices(p, 'float64'));
    close(out.positions, [0.1 * (0 + 1 + 2 + 3 + 4 + 5 + 6) + 0.3 * 7, 0, 0], 1e-6); // float32 weights
  });

  it('writes float32 output when asked, and allocates nothing per call', () => {
    const p = vertex([1, 2, 3], [0, 1, 0], [1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]);
    const out = createSkinnedVertices(p);
    expect(out.positions).toBeInstanceOf(Float32Array);
    const again = skinPrimitive(p, palette(mat4.identity()), out);
    expect(again).toBe(out);
    close(out.positions, [1, 2, 3], 1e-7);
  });
});
