/**
 * src/gpu/model/morph-targets.ts: the vertex-major delta layout the vertex shader reads, and the
 * per-frame choice of at most MAX_ACTIVE_MORPH_TARGETS targets.
 */
import { describe, expect, it } from 'vitest';
import type { MorphTarget, Primitive } from '../../../src/gltf/model.ts';
import { DrawFlag } from '../../../src/gpu/layouts/bindings.ts';
import { MAX_ACTIVE_MORPH_TARGETS, MAX_MORPH_TARGETS, packMorphDeltas, selectMorphTargets } from '../../../src/gpu/model/morph-targets.ts';

/** A primitive of `n` vertices with the given attributes and targets (only what packing reads). */
function primitive(n: number, o: { normals?: boolean; tangents?: boolean; targets: MorphTarget[] }): Primitive {
  return {
    vertexCount: n,
    positions: new Float32Array(n * 3),
    normals: o.normals ? new Float32Array(n * 3) : undefined,
    tangents: o.tangents ? new Float32Array(n * 4) : undefined,
    targets: o.targets,
  } as unknown as Primitive;
}

/** Deltas whose value says where they came from: target·100 + vertex·10 + component (+ offset per attribute). */
function coded(n: number, t: number, attribute: number): Float32Array {
  return Float32Array.from({ length: n * 3 }, (_, i) => t * 100 + Math.floor(i / 3) * 10 + (i % 3) + attribute * 1000);
}

describe('packMorphDeltas', () => {
  it('no targets, or only targets of attributes the primitive does not draw: nothing to upload', () => {
    expect(packMorphDeltas(primitive(2, { targets: [] }))).toBeUndefined();
    // NORMAL deltas without NORMAL, TANGENT deltas without TANGENT (or without NORMAL: ignored tangents).
    expect(packMorphDeltas(primitive(2, { targets: [{ positions: undefined, normals: coded(2, 0, 1), tangents: undefined }] }))).toBeUndefined();
    expect(packMorphDeltas(primitive(2, { tangents: true, targets: [{ positions: undefined, normals: undefined, tangents: coded(2, 0, 2) }] }))).toBeUndefined();
  });

  it('refuses more targets than 16-bit indices can name, naming the primitive', () => {
    const many = { length: MAX_MORPH_TARGETS + 1 } as unknown as MorphTarget[];
    expect(() => packMorphDeltas(primitive(1, { targets: many }), 'meshes[3].primitives[1]')).toThrow(/meshes\[3\]\.primitives\[1\]\.targets: 65537 morph targets/);
  });

  it('vertex-major: (vertex v, target t) at (v × targets + t) × floatsPerTarget, attributes in order, zeros where a target lacks one', () => {
    const n = 3;
    const block = packMorphDeltas(primitive(n, {
      normals: true, tangents: true,
      targets: [
        { positions: coded(n, 0, 0), normals: coded(n, 0, 1), tangents: undefined },
        { positions: coded(n, 1, 0), normals: undefined, tangents: coded(n, 1, 2) },
      ],
    }))!;
    expect(block.flags).toBe(DrawFlag.MORPH_POSITIONS | DrawFlag.MORPH_NORMALS | DrawFlag.MORPH_TANGENTS);
    expect(block.targets).toBe(2);
    expect(block.floatsPerTarget).toBe(9);
    expect(block.floats.length).toBe(n * 2 * 9);
    for (let v = 0; v < n; v++) {
      for (let t = 0; t < 2; t++) {
        const at = (v * 2 + t) * 9;
        const slice = Array.from(block.floats.subarray(at, at + 9));
        const expected = (attribute: number, present: boolean) => [0, 1, 2].map((c) => (present ? t * 100 + v * 10 + c + attribute * 1000 : 0));
        expect(slice, `v${v} t${t}`).toEqual([...expected(0, true), ...expected(1, t === 0), ...expected(2, t === 1)]);
      }
    }
  });

  it('holds only the attributes some target has: POSITION alone is 3 floats per target', () => {
    const block = packMorphDeltas(primitive(2, { normals: true, targets: [{ positions: coded(2, 0, 0), normals: undefined, tangents: undefined }] }))!;
    expect(block.flags).toBe(DrawFlag.MORPH_POSITIONS);
    expect(block.floatsPerTarget).toBe(3);
    expect(Array.from(block.floats)).toEqual([0, 1, 2, 10, 11, 12]);
  });
});

describe('selectMorphTargets', () => {
  const targets = new Uint32Array(MAX_ACTIVE_MORPH_TARGETS);
  const weights = new Float32Array(MAX_ACTIVE_MORPH_TARGETS);
  const picked = (n: number) => Array.from(targets.subarray(0, n), (t, i) => [t, weights[i]]);

  it('zero and NaN weights are inactive; an empty range selects nothing', () => {
    expect(selectMorphTargets(Float32Array.of(0, 0, 0), 0, 3, targets, weights)).toBe(0);
    expect(selectMorphTargets(Float32Array.of(1, 2), 0, 0, targets, weights)).toBe(0);
    expect(selectMorphTargets(Float32Array.of(0, NaN, 0.5), 0, 3, targets, weights)).toBe(1);
    expect(picked(1)).toEqual([[2, 0.5]]);
  });

  it('up to the maximum: every non-zero weight, in target order, from the node offset on', () => {
    const all = Float32Array.of(9, 9, 0.25, 0, -0.5, 0.125, 0, 1, 0.5, 0.75, 0.0625, -1, 9);
    expect(selectMorphTargets(all, 2, 10, targets, weights)).toBe(8);
    expect(picked(8)).toEqual([[0, 0.25], [2, -0.5], [3, 0.125], [5, 1], [6, 0.5], [7, 0.75], [8, 0.0625], [9, -1]]);
  });

  it('more than the maximum: the largest magnitudes win (ties to the lower target), still in target order', () => {
    const w = Float32Array.of(0.1, 0.9, -0.8, 0.2, 0.3, 0.05, 0.7, 0.6, 0.4, 0.5, 0.2);
    const n = selectMorphTargets(w, 0, w.length, targets, weights);
    expect(n).toBe(MAX_ACTIVE_MORPH_TARGETS);
    // Dropped: 0.1 (t0), 0.05 (t5) and the later of the two 0.2s (t10).
    expect(picked(n).map(([t]) => t)).toEqual([1, 2, 3, 4, 6, 7, 8, 9]);
    expect(picked(n).map(([, x]) => x)).toEqual([0.9, -0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.5].map(Math.fround));
  });
});
