import { describe, expect, it } from 'vitest';
import { PrimitiveMode } from '../../src/gltf/constants.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { drawIndices, weldPrimitive } from '../../src/gltf/topology.ts';

describe('drawIndices', () => {
  const prim = (mode: number, vertexCount: number, indices?: number[]) =>
    ({ mode, vertexCount, indices: indices && Uint16Array.from(indices) }) as unknown as Primitive;
  it('turns fans into lists and loops into closed strips', () => {
    expect(Array.from(drawIndices(prim(PrimitiveMode.TRIANGLE_FAN, 5))!)).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4]);
    expect(Array.from(drawIndices(prim(PrimitiveMode.TRIANGLE_FAN, 9, [8, 7, 6, 5]))!)).toEqual([8, 7, 6, 8, 6, 5]);
    expect(Array.from(drawIndices(prim(PrimitiveMode.LINE_LOOP, 3))!)).toEqual([0, 1, 2, 0]);
  });
  it('leaves other modes alone (non-indexed stays non-indexed)', () => {
    expect(drawIndices(prim(PrimitiveMode.TRIANGLES, 3))).toBeUndefined();
    const indexed = prim(PrimitiveMode.TRIANGLES, 3, [2, 1, 0]);
    expect(drawIndices(indexed)).toBe(indexed.indices);
  });
});

describe('weldPrimitive', () => {
  // Two triangles sharing an edge, written as 6 corners; corner 5 differs from corner 0 only by
  // -0 against 0 in x and corner 4 from corner 2 only by a weight, so neither merges.
  const positions = Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, -0, 0, 0);
  const joints = Uint8Array.of(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0);
  const weights = Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0);
  const set = (array: Uint8Array | Float32Array) => ({ array, componentType: 0, components: 4, count: 6, normalized: false });
  const base = {
    mode: PrimitiveMode.TRIANGLES, vertexCount: 6, positions, normals: undefined, tangents: undefined, texcoords0: undefined,
    texcoords1: undefined, colors0: undefined, indices: undefined, material: 0, influences: 4, joints: Uint16Array.from(joints),
    weights, maxJoint: 2, jointSets: [set(joints)], weightSets: [set(weights)], targets: [],
  } as unknown as Primitive;

  it('merges bit-identical corners of a non-indexed triangle list and indexes the rest', () => {
    const w = weldPrimitive(base);
    expect(w.vertexCount).toBe(5);
    expect(Array.from(w.indices!)).toEqual([0, 1, 2, 1, 3, 4]);
    for (let v = 0; v < 6; v++) {
      const u = w.indices![v];
      for (let c = 0; c < 3; c++) expect(Object.is(w.positions[u * 3 + c], positions[v * 3 + c])).toBe(true);
      for (let c = 0; c < 4; c++) {
        expect(w.jointSets[0].array[u * 4 + c]).toBe(joints[v * 4 + c]);
        expect(w.weightSets[0].array[u * 4 + c]).toBe(weights[v * 4 + c]);
        expect(w.weights![u * 4 + c]).toBe(weights[v * 4 + c]);
      }
    }
    expect(w.jointSets[0].array).toBeInstanceOf(Uint8Array);
    expect(w.jointSets[0].count).toBe(5);
  });

  it('leaves indexed, morphed, non-list and already distinct primitives alone', () => {
    for (const p of [
      { ...base, indices: Uint16Array.of(0, 1, 2, 3, 4, 5) },
      { ...base, targets: [{}] },
      { ...base, mode: PrimitiveMode.TRIANGLE_STRIP },
      { ...base, vertexCount: 3, positions: positions.slice(0, 9), joints: undefined, weights: undefined, influences: 0, jointSets: [], weightSets: [] },
    ] as unknown as Primitive[]) expect(weldPrimitive(p)).toBe(p);
  });
});
