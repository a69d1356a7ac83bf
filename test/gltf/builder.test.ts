import { describe, expect, it } from 'vitest';
import { GltfBuilder, encodeGlb, type ComponentArray, type GltfJson } from '../../src/gltf/builder.ts';

// The GLB and accessor readers below are deliberately independent of
// src/gltf (hand-written from the spec), so the builder is checked against
// the format, not against our own loader.

const MAGIC = 0x46546c67;
const JSON_CHUNK = 0x4e4f534a;
const BIN_CHUNK = 0x004e4942;

interface ParsedGlb {
  json: GltfJson;
  bin: Uint8Array | undefined;
  jsonChunk: Uint8Array;
  binChunk: Uint8Array | undefined;
}

function parseGlb(glb: Uint8Array): ParsedGlb {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  expect(dv.getUint32(0, true)).toBe(MAGIC);
  expect(dv.getUint32(4, true)).toBe(2);
  expect(dv.getUint32(8, true)).toBe(glb.byteLength);
  const jsonLength = dv.getUint32(12, true);
  expect(dv.getUint32(16, true)).toBe(JSON_CHUNK);
  expect(jsonLength % 4).toBe(0);
  const jsonChunk = glb.subarray(20, 20 + jsonLength);
  const json = JSON.parse(new TextDecoder().decode(jsonChunk)) as GltfJson;
  let p = 20 + jsonLength;
  let binChunk: Uint8Array | undefined;
  if (p < glb.byteLength) {
    const binLength = dv.getUint32(p, true);
    expect(dv.getUint32(p + 4, true)).toBe(BIN_CHUNK);
    expect(binLength % 4).toBe(0);
    binChunk = glb.subarray(p + 8, p + 8 + binLength);
    p += 8 + binLength;
  }
  expect(p).toBe(glb.byteLength);
  const bin = binChunk && json.buffers ? binChunk.subarray(0, json.buffers[0].byteLength) : undefined;
  return { json, bin, jsonChunk, binChunk };
}

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
const READERS: Record<number, [number, (dv: DataView, o: number) => number]> = {
  5120: [1, (dv, o) => dv.getInt8(o)],
  5121: [1, (dv, o) => dv.getUint8(o)],
  5122: [2, (dv, o) => dv.getInt16(o, true)],
  5123: [2, (dv, o) => dv.getUint16(o, true)],
  5125: [4, (dv, o) => dv.getUint32(o, true)],
  5126: [4, (dv, o) => dv.getFloat32(o, true)],
};

function readView(json: GltfJson, bin: Uint8Array, view: number, byteOffset: number, componentType: number, count: number, components: number, stride?: number): number[] {
  const bv = json.bufferViews[view];
  const [size, read] = READERS[componentType];
  const elementStride = stride ?? bv.byteStride ?? size * components;
  const dv = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  const out: number[] = [];
  for (let e = 0; e < count; e++) {
    for (let c = 0; c < components; c++) {
      out.push(read(dv, (bv.byteOffset ?? 0) + byteOffset + e * elementStride + c * size));
    }
  }
  return out;
}

/** Raw (not normalised) accessor values with stride and sparse substitution applied. */
function readAccessor(json: GltfJson, bin: Uint8Array, index: number): number[] {
  const a = json.accessors[index];
  const n = COMPONENTS[a.type];
  const out =
    a.bufferView === undefined
      ? new Array<number>(a.count * n).fill(0)
      : readView(json, bin, a.bufferView, a.byteOffset ?? 0, a.componentType, a.count, n);
  if (a.sparse) {
    const s = a.sparse;
    const idx = readView(json, bin, s.indices.bufferView, s.indices.byteOffset ?? 0, s.indices.componentType, s.count, 1);
    const vals = readView(json, bin, s.values.bufferView, s.values.byteOffset ?? 0, a.componentType, s.count, n);
    idx.forEach((e, i) => {
      for (let c = 0; c < n; c++) out[e * n + c] = vals[i * n + c];
    });
  }
  return out;
}

/** Every accessor and bufferView stays inside what it points into, aligned as the spec requires. */
function expectLayoutValid(json: GltfJson): void {
  const bufferLength = json.buffers?.[0].byteLength ?? 0;
  for (const bv of json.bufferViews) {
    expect((bv.byteOffset ?? 0) % 4).toBe(0);
    expect((bv.byteOffset ?? 0) + bv.byteLength).toBeLessThanOrEqual(bufferLength);
  }
  for (const a of json.accessors) {
    const [size] = READERS[a.componentType];
    const element = size * COMPONENTS[a.type];
    if (a.bufferView !== undefined) {
      const bv = json.bufferViews[a.bufferView];
      const stride = bv.byteStride ?? element;
      expect((a.byteOffset ?? 0) % size).toBe(0);
      expect((a.byteOffset ?? 0) + stride * (a.count - 1) + element).toBeLessThanOrEqual(bv.byteLength);
    }
  }
}

function floats(...v: number[]): Float32Array {
  return new Float32Array(v);
}

describe('GltfBuilder.toGlb container', () => {
  it('writes header, space-padded JSON chunk and zero-padded BIN chunk', () => {
    const b = new GltfBuilder();
    b.addBufferView(new Uint8Array([1, 2, 3, 4, 5])); // 5 bytes: BIN needs 3 bytes of padding
    const glb = b.toGlb();
    const { json, jsonChunk, binChunk, bin } = parseGlb(glb);

    const text = new TextDecoder().decode(jsonChunk);
    expect(text.trimEnd()).toBe(JSON.stringify(json));
    // Padding is spaces (JSON stays parseable), and there is at most 3 of it.
    const pad = jsonChunk.length - new TextEncoder().encode(text.trimEnd()).length;
    expect(pad).toBeLessThan(4);
    for (let i = jsonChunk.length - pad; i < jsonChunk.length; i++) expect(jsonChunk[i]).toBe(0x20);

    expect(json.asset.version).toBe('2.0');
    expect(json.buffers).toEqual([{ byteLength: 5 }]);
    expect(binChunk?.length).toBe(8);
    expect(Array.from(binChunk!)).toEqual([1, 2, 3, 4, 5, 0, 0, 0]);
    expect(Array.from(bin!)).toEqual([1, 2, 3, 4, 5]);
  });

  it('omits the BIN chunk and buffers when there is no binary data', () => {
    const b = new GltfBuilder();
    b.addScene({ nodes: [b.addNode({ name: 'empty' })] });
    const glb = b.toGlb();
    const { json, binChunk } = parseGlb(glb);
    expect(binChunk).toBeUndefined();
    expect(json.buffers).toBeUndefined();
    expect(json.bufferViews).toBeUndefined();
    expect(json.nodes).toEqual([{ name: 'empty' }]);
  });

  it('pads by UTF-8 byte length, not string length', () => {
    const b = new GltfBuilder();
    b.addNode({ name: 'Läufer→ü' }); // multi-byte characters shift the padding
    b.addBufferView(new Uint8Array([9]));
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.nodes[0].name).toBe('Läufer→ü');
    expect(Array.from(bin!)).toEqual([9]);
  });

  it('writes JSON keys in canonical order, drops empty arrays and starts with asset', () => {
    const b = new GltfBuilder();
    b.addAccessor(floats(1), 'SCALAR');
    b.addScene({ nodes: [b.addNode({})] });
    const { json } = parseGlb(b.toGlb());
    expect(Object.keys(json)).toEqual(['asset', 'scene', 'scenes', 'nodes', 'accessors', 'bufferViews', 'buffers']);
  });

  it('is deterministic', () => {
    const build = () => {
      const b = new GltfBuilder();
      b.addAccessor(floats(0.1, 0.2, 0.3), 'VEC3', { minMax: true });
      b.addAnimationTracks('a', [{ node: b.addNode({}), path: 'scale', input: floats(0, 1), output: floats(1, 1, 1, 2, 2, 2) }]);
      return b.toGlb();
    };
    expect(build()).toEqual(build());
  });

  it('encodeGlb re-encodes arbitrary JSON (for deliberately broken fixtures)', () => {
    const glb = encodeGlb({ asset: { version: '2.0' }, accessors: [{ count: -1 }] }, new Uint8Array([7, 7]));
    const { json, binChunk } = parseGlb(glb);
    expect(json.accessors[0].count).toBe(-1);
    expect(Array.from(binChunk!)).toEqual([7, 7, 0, 0]);
  });
});

describe('GltfBuilder.addBufferView', () => {
  it('aligns every view to 4 bytes and returns consecutive indices', () => {
    const b = new GltfBuilder();
    expect(b.addBufferView(new Uint8Array([1, 2, 3]))).toBe(0);
    expect(b.addBufferView(new Uint16Array([0x0605]), { target: 34963 })).toBe(1);
    expect(b.addBufferView(new Float32Array([1.5]), { byteStride: 4, target: 34962 })).toBe(2);
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.bufferViews).toEqual([
      { buffer: 0, byteOffset: 0, byteLength: 3 },
      { buffer: 0, byteOffset: 4, byteLength: 2, target: 34963 },
      { buffer: 0, byteOffset: 8, byteLength: 4, byteStride: 4, target: 34962 },
    ]);
    expect(Array.from(bin!.subarray(0, 6))).toEqual([1, 2, 3, 0, 5, 6]);
    expect(new DataView(bin!.buffer, bin!.byteOffset).getFloat32(8, true)).toBe(1.5);
  });

  it('copies only the view of a subarray, and copies it at call time', () => {
    const b = new GltfBuilder();
    const big = new Uint8Array([10, 11, 12, 13, 14, 15]);
    b.addBufferView(big.subarray(2, 4));
    big[2] = 99; // must not leak into the file
    const { bin } = parseGlb(b.toGlb());
    expect(Array.from(bin!)).toEqual([12, 13]);
  });

  it('rejects empty views and invalid strides', () => {
    const b = new GltfBuilder();
    expect(() => b.addBufferView(new Uint8Array(0))).toThrow(/at least one byte/);
    expect(() => b.addBufferView(new Uint8Array(8), { byteStride: 6 })).toThrow(/byteStride/);
    expect(() => b.addBufferView(new Uint8Array(8), { byteStride: 256 })).toThrow(/byteStride/);
  });
});

describe('GltfBuilder.addAccessor', () => {
  it.each<[string, ComponentArray, number]>([
    ['Float32Array', new Float32Array([1, 2]), 5126],
    ['Uint32Array', new Uint32Array([1, 2]), 5125],
    ['Uint16Array', new Uint16Array([1, 2]), 5123],
    ['Uint8Array', new Uint8Array([1, 2]), 5121],
    ['Int16Array', new Int16Array([-1, 2]), 5122],
    ['Int8Array', new Int8Array([-1, 2]), 5120],
  ])('derives componentType from %s and reads back exactly', (_, data, componentType) => {
    const b = new GltfBuilder();
    const i = b.addAccessor(data, 'VEC2');
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.accessors[i]).toEqual({ bufferView: 0, componentType, count: 1, type: 'VEC2' });
    expect(readAccessor(json, bin!, i)).toEqual(Array.from(data));
  });

  it('writes min/max per component, exactly as float32', () => {
    const b = new GltfBuilder();
    const positions = floats(0.1, -2, 3, -0.3, 5.5, -0, 0.2, 1, 7);
    const i = b.addAccessor(positions, 'VEC3', { minMax: true, target: 34962 });
    const j = b.addAccessor(floats(1, 2, 3), 'VEC3');
    const { json } = parseGlb(b.toGlb());
    expect(json.accessors[i].min).toEqual([Math.fround(-0.3), -2, 0]);
    expect(json.accessors[i].max).toEqual([Math.fround(0.2), 5.5, 7]);
    // Exactness matters: the validator compares min/max with the data bit for bit.
    expect(Math.fround(json.accessors[i].max![0])).toBe(json.accessors[i].max![0]);
    expect(json.accessors[j].min).toBeUndefined();
    expect(json.bufferViews[json.accessors[i].bufferView!].target).toBe(34962);
  });

  it('writes raw integer min/max for normalized data', () => {
    const b = new GltfBuilder();
    const i = b.addAccessor(new Uint16Array([0, 65535, 100, 200]), 'VEC2', { normalized: true, minMax: true });
    const { json } = parseGlb(b.toGlb());
    expect(json.accessors[i]).toMatchObject({ normalized: true, min: [0, 200], max: [100, 65535] });
  });

  it('pads vertex attributes to 4-byte elements with a stride', () => {
    const b = new GltfBuilder();
    const colors = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const normals = new Int16Array([1, -2, 3, -4, 5, -6]);
    const c = b.addAccessor(colors, 'VEC3', { target: 34962, normalized: true });
    const n = b.addAccessor(normals, 'VEC3', { target: 34962, normalized: true });
    const plain = b.addAccessor(new Uint8Array([1, 2, 3]), 'VEC3'); // not a vertex attribute: packed
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.bufferViews[json.accessors[c].bufferView!].byteStride).toBe(4);
    expect(json.bufferViews[json.accessors[n].bufferView!].byteStride).toBe(8);
    expect(json.bufferViews[json.accessors[plain].bufferView!].byteStride).toBeUndefined();
    expect(readAccessor(json, bin!, c)).toEqual(Array.from(colors));
    expect(readAccessor(json, bin!, n)).toEqual(Array.from(normals));
    expectLayoutValid(json);
  });

  it('honours an explicit byteStride with padding between elements', () => {
    const b = new GltfBuilder();
    const data = floats(1, 2, 3, 4, 5, 6, 7, 8, 9);
    const i = b.addAccessor(data, 'VEC3', { byteStride: 16, target: 34962 });
    const { json, bin } = parseGlb(b.toGlb());
    const bv = json.bufferViews[json.accessors[i].bufferView!];
    expect(bv.byteStride).toBe(16);
    expect(bv.byteLength).toBe(16 * 2 + 12);
    expect(readAccessor(json, bin!, i)).toEqual(Array.from(data));
  });

  it('adds accessors into an existing interleaved bufferView', () => {
    const b = new GltfBuilder();
    // Two VEC2 floats interleaved by hand: [a0 b0 a1 b1]
    const view = b.addBufferView(floats(1, 2, 10, 20, 3, 4, 30, 40), { byteStride: 16, target: 34962 });
    const a = b.addAccessor(floats(1, 2, 3, 4), 'VEC2', { bufferView: view, minMax: true });
    const c = b.addAccessor(floats(10, 20, 30, 40), 'VEC2', { bufferView: view, byteOffset: 8 });
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.bufferViews).toHaveLength(1);
    expect(json.accessors[c].byteOffset).toBe(8);
    expect(json.accessors[a].byteOffset).toBeUndefined();
    expect(readAccessor(json, bin!, a)).toEqual([1, 2, 3, 4]);
    expect(readAccessor(json, bin!, c)).toEqual([10, 20, 30, 40]);
    expect(json.accessors[a]).toMatchObject({ min: [1, 2], max: [3, 4] });
  });

  it('rejects accessors that would not fit or align in an existing view', () => {
    const b = new GltfBuilder();
    const view = b.addBufferView(new Float32Array(8), { byteStride: 16 });
    expect(() => b.addAccessor(new Float32Array(4), 'VEC2', { bufferView: view, byteOffset: 12 })).toThrow(/needs 36 bytes/);
    expect(() => b.addAccessor(new Float32Array(4), 'VEC2', { bufferView: view, byteOffset: 2 })).toThrow(/multiple/);
    expect(() => b.addAccessor(new Float32Array(4), 'VEC2', { bufferView: view, byteStride: 8 })).toThrow(/byteStride/);
    expect(() => b.addAccessor(new Float32Array(4), 'VEC2', { bufferView: 5 })).toThrow(/does not exist/);
  });

  it('rejects data that does not form whole elements, empty data and unsupported arrays', () => {
    const b = new GltfBuilder();
    expect(() => b.addAccessor(floats(1, 2), 'VEC3')).toThrow(/whole VEC3/);
    expect(() => b.addAccessor(new Float32Array(0), 'SCALAR')).toThrow(/count/);
    expect(() => b.addAccessor(floats(1), 'SCALAR', { normalized: true })).toThrow(/normalized/);
    expect(() => b.addAccessor(new Float64Array([1]) as unknown as Float32Array, 'SCALAR')).toThrow(/Float64Array/);
    expect(() => b.addAccessor(new Uint8ClampedArray([1]) as unknown as Uint8Array, 'SCALAR')).toThrow(/Uint8ClampedArray/);
    expect(() => b.addAccessor(floats(1), 'SCALAR', { byteOffset: 4 })).toThrow(/existing bufferView/);
    expect(() => b.addAccessor(floats(1, 2, 3, 4), 'SCALAR', { minMax: true, count: 3 })).toThrow(/count 3/);
  });

  it('writes MAT4 accessors column by column', () => {
    const b = new GltfBuilder();
    const m = new Float32Array(32).map((_, i) => i);
    const i = b.addAccessor(m, 'MAT4');
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.accessors[i]).toMatchObject({ count: 2, type: 'MAT4', componentType: 5126 });
    expect(readAccessor(json, bin!, i)).toEqual(Array.from(m));
  });
});

describe('GltfBuilder.addSparseAccessor', () => {
  it('stores base data plus substitutions, with min/max after substitution', () => {
    const b = new GltfBuilder();
    // Element 1's base value (100) is overridden and must not reach max; element 2's (-9, 20) must.
    const base = floats(0, 0, 0, 100, 1, 1, -9, 20, 2, 3, 3, 3);
    const i = b.addSparseAccessor(base, 'VEC3', { indices: new Uint16Array([1, 3]), values: floats(-5, 9, 1, 7, 7, 7) }, { minMax: true });
    const { json, bin } = parseGlb(b.toGlb());
    const a = json.accessors[i];
    expect(a.count).toBe(4);
    expect(a.sparse).toMatchObject({ count: 2, indices: { componentType: 5123 } });
    expect(readAccessor(json, bin!, i)).toEqual([0, 0, 0, -5, 9, 1, -9, 20, 2, 7, 7, 7]);
    expect(a.min).toEqual([-9, 0, 0]);
    expect(a.max).toEqual([7, 20, 7]);
    // Sparse index/value views must not carry a target or a stride.
    for (const v of [a.sparse!.indices.bufferView, a.sparse!.values.bufferView]) {
      expect(json.bufferViews[v].target).toBeUndefined();
      expect(json.bufferViews[v].byteStride).toBeUndefined();
    }
    expectLayoutValid(json);
  });

  it('supports sparse accessors without a bufferView (implicit zeros)', () => {
    const b = new GltfBuilder();
    const i = b.addSparseAccessor(null, 'SCALAR', { indices: new Uint8Array([0, 4]), values: new Int16Array([-3, 8]) }, { count: 6, minMax: true });
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.accessors[i].bufferView).toBeUndefined();
    expect(json.accessors[i]).toMatchObject({ componentType: 5122, count: 6, min: [-3], max: [8] });
    expect(json.accessors[i].sparse!.indices.componentType).toBe(5121);
    expect(readAccessor(json, bin!, i)).toEqual([-3, 0, 0, 0, 8, 0]);
  });

  it('rejects invalid sparse data', () => {
    const b = new GltfBuilder();
    const base = floats(1, 2, 3);
    const values = floats(0, 0);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([2, 1]), values })).toThrow(/strictly increase/);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([1, 1]), values })).toThrow(/strictly increase/);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([1, 3]), values })).toThrow(/not below count/);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([1]), values })).toThrow(/need 1 values/);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([1]), values: new Uint16Array([1]) })).toThrow(/same component type/);
    expect(() => b.addSparseAccessor(null, 'SCALAR', { indices: new Uint8Array([1]), values: floats(1) })).toThrow(/opts.count/);
    expect(() => b.addSparseAccessor(base, 'SCALAR', { indices: new Uint8Array([]), values: floats() })).toThrow(/at least one/);
  });
});

describe('GltfBuilder.addInterleaved', () => {
  it('interleaves attributes at 4-byte aligned offsets in one view', () => {
    const b = new GltfBuilder();
    const pos = floats(0, 1, 2, 3, 4, 5);
    const uv = new Uint16Array([0, 65535, 32768, 1]);
    const joints = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const color = new Uint8Array([9, 8, 7, 6, 5, 4]); // 3 bytes per element → padded to 4
    const [p, u, j, c] = b.addInterleaved([
      { data: pos, type: 'VEC3', minMax: true },
      { data: uv, type: 'VEC2', normalized: true },
      { data: joints, type: 'VEC4' },
      { data: color, type: 'VEC3', normalized: true },
    ]);
    const { json, bin } = parseGlb(b.toGlb());
    expect(json.bufferViews).toHaveLength(1);
    expect(json.bufferViews[0]).toMatchObject({ byteStride: 24, byteLength: 48, target: 34962 });
    expect([p, u, j, c].map((i) => json.accessors[i].byteOffset ?? 0)).toEqual([0, 12, 16, 20]);
    expect(readAccessor(json, bin!, p)).toEqual(Array.from(pos));
    expect(readAccessor(json, bin!, u)).toEqual(Array.from(uv));
    expect(readAccessor(json, bin!, j)).toEqual(Array.from(joints));
    expect(readAccessor(json, bin!, c)).toEqual(Array.from(color));
    expect(json.accessors[p]).toMatchObject({ min: [0, 1, 2], max: [3, 4, 5] });
    expect(json.accessors[u].normalized).toBe(true);
    expectLayoutValid(json);
  });

  it('rejects attributes with different counts', () => {
    const b = new GltfBuilder();
    expect(() => b.addInterleaved([{ data: floats(1, 2, 3), type: 'VEC3' }, { data: floats(1, 2, 3, 4), type: 'VEC2' }])).toThrow(/disagree/);
  });
});

describe('GltfBuilder scene objects and animations', () => {
  it('returns indices and makes the first scene the default', () => {
    const b = new GltfBuilder();
    expect(b.addNode({ name: 'a' })).toBe(0);
    expect(b.addNode({ name: 'b', children: [0] })).toBe(1);
    expect(b.addMaterial({ name: 'm' })).toBe(0);
    expect(b.addMesh({ primitives: [{ attributes: {} }] })).toBe(0);
    expect(b.addSkin({ joints: [0] })).toBe(0);
    expect(b.addScene({ nodes: [1] })).toBe(0);
    expect(b.addScene({ nodes: [0] })).toBe(1);
    expect(b.json.scene).toBe(0);
  });

  it('adds keyframe tracks with shared, min/max-bounded inputs', () => {
    const b = new GltfBuilder();
    const node = b.addNode({});
    const times = floats(0, 0.5, 2);
    const other = floats(0, 1);
    const anim = b.addAnimationTracks('Clip', [
      { node, path: 'translation', input: times, output: new Float32Array(9) },
      { node, path: 'rotation', input: times, output: floats(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1), interpolation: 'STEP' },
      { node, path: 'scale', input: other, output: new Float32Array(18).fill(1), interpolation: 'CUBICSPLINE' },
    ]);
    const { json } = parseGlb(b.toGlb());
    const a = json.animations[anim];
    expect(a.name).toBe('Clip');
    expect(a.channels.map((c) => c.target)).toEqual([
      { node, path: 'translation' },
      { node, path: 'rotation' },
      { node, path: 'scale' },
    ]);
    expect(a.samplers.map((s) => s.interpolation)).toEqual(['LINEAR', 'STEP', 'CUBICSPLINE']);
    expect(a.samplers[0].input).toBe(a.samplers[1].input);
    expect(a.samplers[2].input).not.toBe(a.samplers[0].input);
    expect(json.accessors[a.samplers[0].input]).toMatchObject({ min: [0], max: [2], count: 3 });
    expect(json.accessors[a.samplers[1].output]).toMatchObject({ type: 'VEC4', count: 3 });
    expect(json.accessors[a.samplers[2].output]).toMatchObject({ type: 'VEC3', count: 6 });
  });

  it('rejects tracks with unordered times or mismatched outputs', () => {
    const b = new GltfBuilder();
    expect(() => b.addAnimationTracks('x', [{ node: 0, path: 'scale', input: floats(0, 0), output: new Float32Array(6) }])).toThrow(/strictly increase/);
    expect(() => b.addAnimationTracks('x', [{ node: 0, path: 'rotation', input: floats(0, 1), output: new Float32Array(6) }])).toThrow(/do not fit/);
    expect(() => b.addAnimationTracks('x', [])).toThrow(/no tracks/);
  });
});

describe('GltfBuilder .gltf output', () => {
  function sample(): GltfBuilder {
    const b = new GltfBuilder();
    b.addAccessor(new Uint8Array([1, 2, 3]), 'SCALAR');
    b.addAccessor(floats(1.25, -8), 'VEC2', { minMax: true });
    return b;
  }

  it('embeds the buffer as a base64 data URI with the same bytes as the GLB', () => {
    const b = sample();
    const { json } = b.toGltf();
    const glb = parseGlb(b.toGlb());
    const uri = json.buffers![0].uri!;
    expect(uri.startsWith('data:application/octet-stream;base64,')).toBe(true);
    const decoded = Uint8Array.from(atob(uri.slice(uri.indexOf(',') + 1)), (ch) => ch.charCodeAt(0));
    expect(decoded).toEqual(glb.bin);
    expect(json.buffers![0].byteLength).toBe(decoded.length);
    const { buffers: _a, ...restGltf } = json;
    const { buffers: _b, ...restGlb } = glb.json;
    expect(restGltf).toEqual(restGlb);
  });

  it('can reference an external .bin instead', () => {
    const b = sample();
    const { json, bin } = b.toGltfWithExternalBuffer('model.bin');
    expect(json.buffers).toEqual([{ byteLength: bin.length, uri: 'model.bin' }]);
    expect(bin).toEqual(parseGlb(b.toGlb()).bin);
  });

  it('returns a copy: editing the output does not change the builder', () => {
    const b = sample();
    const { json } = b.toGltf();
    json.accessors[0].count = 999;
    expect(b.json.accessors[0].count).toBe(3);
    expect(b.json.buffers).toBeUndefined();
  });
});
