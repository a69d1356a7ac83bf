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

  it('welds each primitive once: the upload and the load-time bounds share the result', () => {
    const p = { ...base };
    expect(weldPrimitive(p)).toBe(weldPrimitive(p));
    expect(weldPrimitive({ ...base })).not.toBe(weldPrimitive(p));
  });

  it('leaves indexed, morphed, non-list and already distinct primitives alone', () => {
    for (const p of [
      { ...base, indices: Uint16Array.of(0, 1, 2, 3, 4, 5) },
      { ...base, targets: [{}] },
      { ...base, mode: PrimitiveMode.TRIANGLE_STRIP },
      { ...base, vertexCount: 3, positions: positions.slice(0, 9), joints: undefined, weights: undefined, influences: 0, jointSets: [], weightSets: [] },
    ] as unknown as Primitive[]) expect(weldPrimitive(p)).toBe(p);
  });

  it('merges exactly the vertices a string of their values would, on 3000 corners of 400 vertices', () => {
    // 3000 corners drawn from 400 vertices, where vertex k + 200 differs from k in one
    // attribute only (a weight's last bit, a u8 joint, a texcoord, -0): the numeric hash must
    // still tell every pair apart, and first appearances keep their order.
    const pool = 400, n = 3000;
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = Array.from({ length: n }, () => Math.floor(random() * pool));
    const poolPositions = Float32Array.from({ length: pool * 3 }, () => Math.round(random() * 8) / 4);
    const poolTexcoords = Float32Array.from({ length: pool * 2 }, () => Math.round(random() * 4) / 4);
    const poolJoints = Uint8Array.from({ length: pool * 4 }, () => Math.floor(random() * 3));
    const poolWeights = Float32Array.from({ length: pool * 4 }, () => 0.25);
    for (let k = 0; k < pool / 2; k++) {
      const twin = k + pool / 2;
      poolPositions.copyWithin(twin * 3, k * 3, k * 3 + 3);
      poolTexcoords.copyWithin(twin * 2, k * 2, k * 2 + 2);
      poolJoints.copyWithin(twin * 4, k * 4, k * 4 + 4);
      if (k % 4 === 0) poolWeights[twin * 4 + 3] = Math.fround(0.25 + 2 ** -25);
      else if (k % 4 === 1) poolJoints[twin * 4 + 2] += 1;
      else if (k % 4 === 2) poolTexcoords[twin * 2] += 0.125;
      else { poolPositions[k * 3] = 0; poolPositions[twin * 3] = -0; }
    }
    const gather = <T extends Float32Array | Uint8Array>(from: T, width: number): T => {
      const out = new (from.constructor as new (length: number) => T)(n * width);
      pick.forEach((k, v) => out.set(from.subarray(k * width, k * width + width), v * width));
      return out;
    };
    const p = {
      ...base, vertexCount: n, positions: gather(poolPositions, 3), texcoords0: gather(poolTexcoords, 2),
      joints: Uint16Array.from(gather(poolJoints, 4)), weights: gather(poolWeights, 4),
      jointSets: [{ ...set(gather(poolJoints, 4)), count: n }], weightSets: [{ ...set(gather(poolWeights, 4)), count: n }],
    } as unknown as Primitive;

    // The reference: one string per corner of every array's bits.
    const bits = (a: Float32Array | Uint8Array | Uint16Array, v: number, width: number) =>
      Array.from((a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a).subarray(v * width, v * width + width)).join(',');
    const ids = new Map<string, number>();
    const expected = Array.from({ length: n }, (_, v) => {
      const key = [bits(p.positions, v, 3), bits(p.texcoords0!, v, 2), bits(p.joints!, v, 4), bits(p.weights!, v, 4), bits(p.jointSets[0].array as Uint8Array, v, 4), bits(p.weightSets[0].array as Float32Array, v, 4)].join('|');
      if (!ids.has(key)) ids.set(key, ids.size);
      return ids.get(key)!;
    });

    const w = weldPrimitive(p);
    expect(w.vertexCount).toBe(ids.size);
    expect(ids.size).toBeGreaterThan(pool * 0.9);
    expect(Array.from(w.indices!)).toEqual(expected);
    // Every corner reads back its own bits through the index buffer (one comparison: 3000 expects take seconds).
    const reread = (a: Float32Array | Uint8Array, width: number) => Array.from({ length: n }, (_, v) => bits(a, w.indices![v], width));
    const own = (a: Float32Array | Uint8Array, width: number) => Array.from({ length: n }, (_, v) => bits(a, v, width));
    expect(reread(w.positions, 3)).toEqual(own(p.positions, 3));
    expect(reread(w.weights!, 4)).toEqual(own(p.weights!, 4));
    expect(reread(w.jointSets[0].array as Uint8Array, 4)).toEqual(own(p.jointSets[0].array as Uint8Array, 4));
  });
});
