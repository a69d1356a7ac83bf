import draco3d from 'draco3dgltf';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AccessorData } from '../../../src/gltf/accessors.ts';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { ComponentType } from '../../../src/gltf/constants.ts';
import {
  decodeDracoPrimitive, KHR_DRACO_MESH_COMPRESSION, loadDracoDecoderModule, readDracoPrimitive, type DracoPrimitive,
} from '../../../src/gltf/extensions/draco.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';
import { Rng } from '../../support/fuzz.ts';
import { closeTo, expectEach } from '../../support/expect-each.ts';

type EncoderModule = Awaited<ReturnType<typeof draco3d.createEncoderModule>>;
let encoderModule: EncoderModule;

beforeAll(async () => {
  encoderModule = await draco3d.createEncoderModule({});
});

const SIDE = 24;
const VERTICES = SIDE * SIDE;
/** Quantization bits the encoder is given, and so the error each attribute may carry. */
const POSITION_BITS = 14;
const NORMAL_BITS = 10;
const TEXCOORD_BITS = 12;
const GENERIC_BITS = 12;

type Attr = Float32Array | Uint8Array | Uint16Array;

interface SourceAttribute {
  readonly semantic: string;
  readonly data: Attr;
  readonly components: number;
  /** Draco's attribute kind (POSITION, NORMAL, TEX_COORD, GENERIC). */
  readonly kind: 'POSITION' | 'NORMAL' | 'TEX_COORD' | 'GENERIC';
  /** The accessor the glTF declares for it. */
  readonly componentType: number;
  readonly normalized?: boolean;
  /** Set Draco's own normalized flag on the stored integers. */
  readonly dracoNormalized?: boolean;
}

/** A skinned grid in the xy plane: each vertex bound to two of four joints along x. */
function skinnedGrid(options: { joints?: 'u8' | 'u16' | 'float'; weights?: 'float' | 'u8' } = {}): { attributes: SourceAttribute[]; indices: Uint32Array } {
  const positions = new Float32Array(VERTICES * 3);
  const normals = new Float32Array(VERTICES * 3);
  const uvs = new Float32Array(VERTICES * 2);
  const joints = new Uint16Array(VERTICES * 4);
  const weights = new Float32Array(VERTICES * 4);
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const v = y * SIDE + x;
      positions.set([x * 0.1 - 1.2, y * 0.1, Math.sin(x * 0.3) * 0.05], v * 3);
      const n = [Math.cos(x * 0.3) * -0.015, 0, 1];
      const len = Math.hypot(n[0], n[1], n[2]);
      normals.set([n[0] / len, n[1] / len, n[2] / len], v * 3);
      uvs.set([x / (SIDE - 1), y / (SIDE - 1)], v * 2);
      const j = Math.min(2, Math.floor((x / SIDE) * 3));
      const t = (x % 8) / 8;
      // Joint 300 appears when joints are u16 so that the values cannot have come from a byte.
      joints.set([j, j + 1, options.joints === 'u16' && v % 5 === 0 ? 300 : 0, 0], v * 4);
      weights.set([1 - t, t, 0, 0], v * 4);
    }
  }
  const indices: number[] = [];
  for (let y = 0; y < SIDE - 1; y++) {
    for (let x = 0; x < SIDE - 1; x++) {
      const a = y * SIDE + x;
      indices.push(a, a + 1, a + SIDE, a + SIDE, a + 1, a + SIDE + 1);
    }
  }
  const attributes: SourceAttribute[] = [
    { semantic: 'POSITION', data: positions, components: 3, kind: 'POSITION', componentType: ComponentType.FLOAT },
    { semantic: 'NORMAL', data: normals, components: 3, kind: 'NORMAL', componentType: ComponentType.FLOAT },
    { semantic: 'TEXCOORD_0', data: uvs, components: 2, kind: 'TEX_COORD', componentType: ComponentType.FLOAT },
  ];
  const jointsKind = options.joints ?? 'u8';
  if (jointsKind === 'float') {
    attributes.push({ semantic: 'JOINTS_0', data: new Float32Array(joints), components: 4, kind: 'GENERIC', componentType: ComponentType.UNSIGNED_BYTE });
  } else {
    const data = jointsKind === 'u8' ? new Uint8Array(joints) : joints;
    attributes.push({ semantic: 'JOINTS_0', data, components: 4, kind: 'GENERIC', componentType: jointsKind === 'u8' ? ComponentType.UNSIGNED_BYTE : ComponentType.UNSIGNED_SHORT });
  }
  if (options.weights === 'u8') {
    const bytes = new Uint8Array(VERTICES * 4);
    for (let v = 0; v < VERTICES; v++) {
      bytes[v * 4] = Math.round(weights[v * 4] * 255);
      bytes[v * 4 + 1] = 255 - bytes[v * 4];
    }
    attributes.push({ semantic: 'WEIGHTS_0', data: bytes, components: 4, kind: 'GENERIC', componentType: ComponentType.UNSIGNED_BYTE, normalized: true });
  } else {
    attributes.push({ semantic: 'WEIGHTS_0', data: weights, components: 4, kind: 'GENERIC', componentType: ComponentType.FLOAT });
  }
  return { attributes, indices: new Uint32Array(indices) };
}

const BITS: Record<SourceAttribute['kind'], number> = { POSITION: POSITION_BITS, NORMAL: NORMAL_BITS, TEX_COORD: TEXCOORD_BITS, GENERIC: GENERIC_BITS };

/** Encodes with Google's encoder (the same package's), as an exporter would. */
function encodeDraco(attributes: readonly SourceAttribute[], indices: Uint32Array, sequential: boolean): { bytes: Uint8Array; ids: Record<string, number> } {
  const e = encoderModule;
  const builder = new e.MeshBuilder();
  const mesh = new e.Mesh();
  const ids: Record<string, number> = {};
  for (const a of attributes) {
    const count = a.data.length / a.components;
    const kind = e[a.kind];
    const id = a.data instanceof Float32Array
      ? builder.AddFloatAttribute(mesh, kind, count, a.components, a.data)
      : a.data instanceof Uint8Array
        ? builder.AddUInt8Attribute(mesh, kind, count, a.components, a.data)
        : builder.AddUInt16Attribute(mesh, kind, count, a.components, a.data);
    if (a.dracoNormalized) builder.SetNormalizedFlagForAttribute(mesh, id, true);
    ids[a.semantic] = id;
  }
  builder.AddFacesToMesh(mesh, indices.length / 3, indices);
  const encoder = new e.ExpertEncoder(mesh);
  for (const a of attributes) encoder.SetAttributeQuantization(ids[a.semantic], BITS[a.kind]);
  encoder.SetEncodingMethod(sequential ? e.MESH_SEQUENTIAL_ENCODING : e.MESH_EDGEBREAKER_ENCODING);
  const out = new e.DracoInt8Array();
  // Sequential keeps the vertex order only when duplicate vertices are not merged.
  const length = encoder.EncodeToDracoBuffer(!sequential, out);
  if (length <= 0) throw new Error('Draco encoding failed');
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = out.GetValue(i);
  for (const o of [out, encoder, mesh, builder]) e.destroy(o);
  return { bytes, ids };
}

const TYPE_OF: Record<number, string> = { 1: 'SCALAR', 2: 'VEC2', 3: 'VEC3', 4: 'VEC4' };

interface DracoGltf {
  readonly primitive: JsonObject;
  readonly accessors: JsonObject[];
  readonly bufferViews: JsonObject[];
  readonly buffers: (Uint8Array | undefined)[];
}

/** The glTF JSON of one Draco primitive over `bytes`, with accessors as the file would declare them. */
function dracoGltf(attributes: readonly SourceAttribute[], ids: Record<string, number>, bytes: Uint8Array, vertexCount: number, indexCount: number): DracoGltf {
  const accessors: JsonObject[] = [{ componentType: ComponentType.UNSIGNED_SHORT, type: 'SCALAR', count: indexCount }];
  const primAttributes: JsonObject = {};
  for (const a of attributes) {
    primAttributes[a.semantic] = accessors.length;
    const acc: JsonObject = { componentType: a.componentType, type: TYPE_OF[a.components], count: vertexCount };
    if (a.normalized) acc.normalized = true;
    accessors.push(acc);
  }
  const buffer = new Uint8Array(16 + bytes.byteLength);
  buffer.set(bytes, 16);
  return {
    primitive: {
      attributes: primAttributes, indices: 0, mode: 4,
      extensions: { [KHR_DRACO_MESH_COMPRESSION]: { bufferView: 0, attributes: { ...ids } } },
    },
    accessors,
    bufferViews: [{ buffer: 0, byteOffset: 16, byteLength: bytes.byteLength }],
    buffers: [buffer],
  };
}

const PATH = 'meshes[0].primitives[0]';
const EXT_PATH = `${PATH}.extensions.${KHR_DRACO_MESH_COMPRESSION}`;

function budget(limit = 1 << 30): LoadBudget {
  return new LoadBudget(limit, 0);
}

async function decodeGltf(g: DracoGltf, limit?: number): Promise<DracoPrimitive> {
  const request = readDracoPrimitive(g.primitive, PATH, g);
  if (!request) throw new Error('no Draco extension found');
  return decodeDracoPrimitive(request, budget(limit));
}

function encodeGrid(options: Parameters<typeof skinnedGrid>[0] & { sequential?: boolean; tweak?: (a: SourceAttribute[]) => SourceAttribute[] } = {}) {
  const grid = skinnedGrid(options);
  const attributes = options.tweak ? options.tweak(grid.attributes) : grid.attributes;
  const { bytes, ids } = encodeDraco(attributes, grid.indices, options.sequential ?? true);
  return { ...grid, attributes, bytes, ids, gltf: dracoGltf(attributes, ids, bytes, VERTICES, grid.indices.length) };
}

/** Largest |a - b| over all components. */
function maxError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/** Draco quantizes each attribute over its own range in `bits` bits; half a step after rounding. */
function quantizationStep(data: Float32Array, components: number, bits: number): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < data.length; i++) {
    lo = Math.min(lo, data[i]);
    hi = Math.max(hi, data[i]);
  }
  void components;
  return (hi - lo) / ((1 << bits) - 1);
}

function attribute(p: DracoPrimitive, semantic: string): AccessorData {
  const a = p.attributes.get(semantic);
  if (!a) throw new Error(`no ${semantic}`);
  return a;
}

describe('decodeDracoPrimitive: a skinned mesh round-trips through Google\'s encoder', () => {
  for (const joints of ['u8', 'u16'] as const) {
    for (const weights of ['float', 'u8'] as const) {
      it(`sequential, JOINTS_0 ${joints}, WEIGHTS_0 ${weights}: order kept, integers exact, floats within a step`, async () => {
        const src = encodeGrid({ joints, weights });
        const p = await decodeGltf(src.gltf);
        expect(p.vertexCount).toBe(VERTICES);
        for (const a of src.attributes) {
          const got = attribute(p, a.semantic);
          expect(got.componentType).toBe(a.componentType);
          expect(got.components).toBe(a.components);
          expect(got.count).toBe(VERTICES);
          expect(got.normalized).toBe(a.normalized ?? false);
          if (a.data instanceof Float32Array) {
            expect(got.array).toBeInstanceOf(Float32Array);
            // Normals are octahedral-quantized: a few steps of 2/2^bits per component.
            const step = a.kind === 'NORMAL' ? 4 / (1 << NORMAL_BITS) : quantizationStep(a.data, a.components, BITS[a.kind]);
            expect(maxError(got.array, a.data)).toBeLessThanOrEqual(step);
          } else {
            expect(got.array).toEqual(a.data);
          }
        }
        // The known bug class elsewhere: joints decoded to floats. Here they are the accessor's integers.
        expect(attribute(p, 'JOINTS_0').array).toBeInstanceOf(joints === 'u8' ? Uint8Array : Uint16Array);
        expect(p.indices.array).toBeInstanceOf(Uint16Array);
        expect(p.indices.array).toEqual(new Uint16Array(src.indices));
      });
    }
  }

  it('edgebreaker (vertices reordered): every decoded vertex matches its source vertex', async () => {
    const src = encodeGrid({ joints: 'u16', weights: 'u8', sequential: false });
    const p = await decodeGltf(src.gltf);
    expect(p.vertexCount).toBe(VERTICES);
    const uv = attribute(p, 'TEXCOORD_0').array;
    const joints = attribute(p, 'JOINTS_0').array;
    const weights = attribute(p, 'WEIGHTS_0').array;
    const positions = attribute(p, 'POSITION').array;
    const srcPositions = src.attributes[0].data as Float32Array;
    const srcJoints = src.attributes.find((a) => a.semantic === 'JOINTS_0')!.data;
    const srcWeights = src.attributes.find((a) => a.semantic === 'WEIGHTS_0')!.data;
    const step = quantizationStep(srcPositions, 3, POSITION_BITS);
    const seen = new Set<number>();
    expectEach(VERTICES, 'decoded vertex = the source vertex at its uv: position within a step, the same joints and weights', (v) => {
      // Each source vertex has its own uv on the grid, far apart compared with a 12-bit step.
      const s = Math.round(uv[v * 2 + 1] * (SIDE - 1)) * SIDE + Math.round(uv[v * 2] * (SIDE - 1));
      seen.add(s);
      for (let c = 0; c < 3; c++) if (!(Math.abs(positions[v * 3 + c] - srcPositions[s * 3 + c]) <= step)) return `position[${c}] ${positions[v * 3 + c]} vs ${srcPositions[s * 3 + c]}`;
      for (let c = 0; c < 4; c++) {
        if (!Object.is(joints[v * 4 + c], srcJoints[s * 4 + c])) return `joint[${c}] ${joints[v * 4 + c]} vs ${srcJoints[s * 4 + c]}`;
        if (!Object.is(weights[v * 4 + c], srcWeights[s * 4 + c])) return `weight[${c}] ${weights[v * 4 + c]} vs ${srcWeights[s * 4 + c]}`;
      }
      return undefined;
    });
    expect(seen.size).toBe(VERTICES);
    // Same triangles, in the decoded numbering.
    expect(p.indices.count).toBe(src.indices.length);
    expectEach(p.indices.count, `indices below ${VERTICES}`, (i) => (p.indices.array[i] < VERTICES ? undefined : `${p.indices.array[i]}`));
  });

  it('indices come out in the accessor\'s type: u8 and u32 too, u16 or u32 without an accessor', async () => {
    const src = encodeGrid();
    for (const [componentType, Ctor] of [[ComponentType.UNSIGNED_INT, Uint32Array], [ComponentType.UNSIGNED_SHORT, Uint16Array]] as const) {
      src.gltf.accessors[0].componentType = componentType;
      const p = await decodeGltf(src.gltf);
      expect(p.indices.array).toBeInstanceOf(Ctor);
      expect(p.indices.componentType).toBe(componentType);
    }
    const noIndices = { ...src.gltf, primitive: { ...src.gltf.primitive, indices: undefined } };
    const p = await decodeGltf(noIndices);
    expect(p.indices.array).toBeInstanceOf(Uint16Array);
    expect(p.indices.count).toBe(src.indices.length);
    // 576 vertices: a byte cannot index them.
    src.gltf.accessors[0].componentType = ComponentType.UNSIGNED_BYTE;
    await expect(decodeGltf(src.gltf)).rejects.toMatchObject({ name: 'GltfError', path: 'accessors[0].componentType' });
  });

  it('integers Draco marks normalized fill a FLOAT accessor as [0, 1]; unmarked ones are refused', async () => {
    const normalizedBytes = (marked: boolean) => (attrs: SourceAttribute[]) => attrs.map((a) => (a.semantic === 'WEIGHTS_0'
      ? { ...a, data: new Uint8Array(Array.from(a.data, (w) => Math.round(w * 255))), componentType: ComponentType.FLOAT, dracoNormalized: marked }
      : a));
    const marked = encodeGrid({ tweak: normalizedBytes(true) });
    const w = attribute(await decodeGltf(marked.gltf), 'WEIGHTS_0');
    expect(w.array).toBeInstanceOf(Float32Array);
    const source = marked.attributes.find((a) => a.semantic === 'WEIGHTS_0')!.data;
    expectEach(source.length, 'weights are the bytes / 255 (toBeCloseTo, 6 digits)', (i) => (closeTo(w.array[i], source[i] / 255, 6) ? undefined : `${w.array[i]} vs ${source[i]} / 255`));
    const unmarked = encodeGrid({ tweak: normalizedBytes(false) });
    await expect(decodeGltf(unmarked.gltf)).rejects.toMatchObject({ name: 'GltfError', path: 'accessors[5].componentType' });
  });

  it('joints some encoder stored as (quantized) floats come out as the accessor\'s integers', async () => {
    const src = encodeGrid({ joints: 'float' });
    const joints = attribute(await decodeGltf(src.gltf), 'JOINTS_0');
    expect(joints.array).toBeInstanceOf(Uint8Array);
    expect(Array.from(joints.array)).toEqual(Array.from(src.attributes.find((a) => a.semantic === 'JOINTS_0')!.data));
    // Further from a whole number than Draco's quantization explains: refused, not rounded.
    const bad = encodeGrid({
      joints: 'float',
      tweak: (attrs) => attrs.map((a) => (a.semantic === 'JOINTS_0' ? { ...a, data: (a.data as Float32Array).map((j) => j + 0.25) } : a)),
    });
    await expect(decodeGltf(bad.gltf)).rejects.toMatchObject({ name: 'GltfError', path: `${EXT_PATH}.attributes.JOINTS_0` });
  });

  it('charges the declared output to the budget first', async () => {
    const src = encodeGrid();
    const request = readDracoPrimitive(src.gltf.primitive, PATH, src.gltf)!;
    const b = budget();
    await decodeDracoPrimitive(request, b);
    const expected = src.indices.length * 2 + VERTICES * (12 + 12 + 8 + 4 + 16);
    expect(b.usedBytes).toBe(expected);
    await expect(decodeGltf(src.gltf, expected - 1)).rejects.toMatchObject({ name: 'GltfError', path: EXT_PATH });
  });
});

describe('readDracoPrimitive and decodeDracoPrimitive: refusals name the JSON path', () => {
  let base: ReturnType<typeof encodeGrid>;
  beforeAll(() => {
    base = encodeGrid();
  });
  const clone = (): DracoGltf => structuredClone(base.gltf);
  const ext = (g: DracoGltf) => (g.primitive.extensions as JsonObject)[KHR_DRACO_MESH_COMPRESSION] as JsonObject;

  const cases: { name: string; edit: (g: DracoGltf) => void; path: string; message: RegExp }[] = [
    { name: 'a mode other than triangles', edit: (g) => { g.primitive.mode = 1; }, path: `${PATH}.mode`, message: /TRIANGLES or TRIANGLE_STRIP/ },
    { name: 'no bufferView', edit: (g) => { delete ext(g).bufferView; }, path: `${EXT_PATH}.bufferView`, message: /required/ },
    { name: 'a bufferView past its buffer', edit: (g) => { g.bufferViews[0].byteLength = 1e6; }, path: 'bufferViews[0]', message: /exceeds buffers\[0\]/ },
    { name: 'a buffer that was not loaded', edit: (g) => { g.buffers[0] = undefined; }, path: 'bufferViews[0].buffer', message: /not loaded/ },
    { name: 'an attribute the primitive lacks', edit: (g) => { ext(g).attributes = { ...(ext(g).attributes as JsonObject), COLOR_0: 9 }; }, path: `${EXT_PATH}.attributes.COLOR_0`, message: /does not have/ },
    { name: 'a unique id that is not an integer', edit: (g) => { (ext(g).attributes as JsonObject).NORMAL = 'one'; }, path: `${EXT_PATH}.attributes.NORMAL`, message: /non-negative integer/ },
    { name: 'an empty attributes map', edit: (g) => { ext(g).attributes = {}; }, path: `${EXT_PATH}.attributes`, message: /names no attribute/ },
    { name: 'a unique id not in the data', edit: (g) => { (ext(g).attributes as JsonObject).NORMAL = 42; }, path: `${EXT_PATH}.attributes.NORMAL`, message: /no attribute with unique id 42/ },
    { name: 'an accessor count that lies', edit: (g) => { g.accessors[2].count = VERTICES + 1; }, path: 'accessors[2].count', message: /decodes to 576 vertices/ },
    { name: 'an accessor type that lies', edit: (g) => { g.accessors[2].type = 'VEC4'; }, path: 'accessors[2].type', message: /has 4 components but Draco's NORMAL .* has 3/ },
    { name: 'a matrix accessor', edit: (g) => { g.accessors[2].type = 'MAT4'; }, path: 'accessors[2].type', message: /not a vertex attribute type/ },
    { name: 'an indices count that lies', edit: (g) => { g.accessors[0].count = 3; }, path: 'accessors[0].count', message: /decodes to 1058 triangles/ },
    { name: 'float indices', edit: (g) => { g.accessors[0].componentType = ComponentType.FLOAT; }, path: 'accessors[0]', message: /SCALAR of unsigned integers/ },
    { name: 'joints as normalized UNSIGNED_INT', edit: (g) => { g.accessors[4].componentType = ComponentType.UNSIGNED_INT; g.accessors[4].normalized = true; }, path: 'accessors[4].normalized', message: /only allowed/ },
    { name: 'a stream that is not Draco', edit: (g) => { g.buffers[0]!.fill(7, 16); }, path: EXT_PATH, message: /cannot be decoded/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const g = clone();
      c.edit(g);
      let error: unknown;
      try {
        await decodeGltf(g);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GltfError);
      expect((error as GltfError).path).toBe(c.path);
      expect((error as GltfError).problem).toMatch(c.message);
    });
  }

  it('refuses joints that do not fit the accessor\'s type (u16 data, u8 accessor)', async () => {
    const wide = encodeGrid({ joints: 'u16' });
    wide.gltf.accessors[4].componentType = ComponentType.UNSIGNED_BYTE;
    await expect(decodeGltf(wide.gltf)).rejects.toMatchObject({
      name: 'GltfError', path: `${EXT_PATH}.attributes.JOINTS_0`, problem: expect.stringMatching(/do not fit/),
    });
  });

  it('a normalized FLOAT accessor (as three.js r187 reads it): warned once, decoded as plain floats', async () => {
    const g = clone();
    g.accessors[2].normalized = true;
    const warnings: string[] = [];
    const request = readDracoPrimitive(g.primitive, PATH, g, (at, message) => warnings.push(`${at}: ${message}`));
    expect(warnings).toEqual([expect.stringMatching(/^accessors\[2\]\.normalized: is true on a FLOAT accessor .*ignored/)]);
    const plain = await decodeGltf(clone());
    const normals = attribute(await decodeDracoPrimitive(request!, budget()), 'NORMAL');
    expect(normals.normalized).toBe(false);
    expect(Array.from(normals.array)).toEqual(Array.from(attribute(plain, 'NORMAL').array));
  });

  it('returns undefined for a primitive without the extension', () => {
    expect(readDracoPrimitive({ attributes: { POSITION: 0 } }, PATH, base.gltf)).toBeUndefined();
  });
});

describe('decodeDracoPrimitive: corrupt streams and memory', () => {
  it('bit flips and truncation give a GltfError or exactly the declared arrays', async () => {
    const sources = [encodeGrid({ sequential: true }), encodeGrid({ sequential: false, joints: 'u16', weights: 'u8' })];
    const rng = new Rng(99);
    const tally = { decoded: 0, refused: 0 };
    const CASES_PER_SOURCE = Number(process.env.DRACO_FUZZ_CASES ?? 150);
    for (const src of sources) {
      for (let c = 0; c < CASES_PER_SOURCE; c++) {
        const g = structuredClone(src.gltf);
        const stream = g.buffers[0]!.subarray(16);
        if (c % 3 === 2) {
          g.bufferViews[0].byteLength = rng.u32() % stream.length;
        } else {
          // Every other mutation aims at the header and the counts that follow it (the first
          // 40 bytes); the rest land anywhere, mostly in connectivity and attribute data.
          const span = c % 3 === 1 ? Math.min(40, stream.length) : stream.length;
          const flips = 1 + (rng.u32() % 6);
          for (let f = 0; f < flips; f++) stream[rng.u32() % span] ^= 1 << (rng.u32() & 7);
        }
        let p: DracoPrimitive;
        try {
          p = await decodeGltf(g);
        } catch (e) {
          if (!(e instanceof GltfError)) throw new Error(`case ${c}: ${String(e)}`);
          tally.refused++;
          continue;
        }
        tally.decoded++;
        expect(p.vertexCount).toBe(VERTICES);
        for (const a of src.attributes) expect(attribute(p, a.semantic).array.length).toBe(VERTICES * a.components);
        expect(p.indices.count).toBe(src.indices.length);
      }
    }
    expect(tally.refused).toBeGreaterThan(0);
    expect(tally.refused + tally.decoded).toBe(sources.length * CASES_PER_SOURCE);
    // Lying counts in a damaged header did not make the decoder reserve room for them.
    expect((await loadDracoDecoderModule()).HEAPU8.byteLength).toBeLessThanOrEqual(64 * 1024 * 1024);
  });

  it('frees every Draco object: 200 decodes leave the decoder\'s heap where 20 left it', async () => {
    const src = encodeGrid({ sequential: false, joints: 'u16' });
    for (let i = 0; i < 20; i++) await decodeGltf(src.gltf);
    const draco = await loadDracoDecoderModule();
    const heapAfterWarmUp = draco.HEAPU8.byteLength;
    // A probe allocation lands at the same place when nothing in between was leaked.
    const probe = () => {
      const ptr = draco._malloc(64 * 1024);
      draco._free(ptr);
      return ptr;
    };
    const before = probe();
    for (let i = 0; i < 200; i++) await decodeGltf(src.gltf);
    expect(draco.HEAPU8.byteLength).toBe(heapAfterWarmUp);
    expect(probe()).toBe(before);
    // A leaked Mesh of this grid would be tens of KB per decode: megabytes after 200.
  });
});
