import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { beforeAll, describe, expect, it } from 'vitest';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import {
  decodeMeshoptBufferView, decodeMeshoptView, EXT_MESHOPT_COMPRESSION, KHR_MESHOPT_COMPRESSION, leastEncodedBytes,
  MeshoptMode, parseMeshoptView, type MeshoptExtensionName, type MeshoptFilter,
} from '../../../src/gltf/extensions/meshopt.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';
import { Rng } from '../../support/fuzz.ts';
import { expectEach } from '../../support/expect-each.ts';

const BIG_BUDGET = 1 << 30;

function budget(limit = BIG_BUDGET): LoadBudget {
  return new LoadBudget(limit, 0);
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

interface Encoded {
  /** Buffer 0: some leading bytes, then the compressed stream. */
  readonly buffer: Uint8Array;
  readonly bufferView: JsonObject;
}

/** A bufferView whose meshopt extension points at `stream`, placed at byte 8 of buffer 0. */
function viewFor(
  extension: MeshoptExtensionName, stream: Uint8Array, count: number, byteStride: number, mode: string,
  filter?: string, parentStride?: number,
): Encoded {
  const buffer = new Uint8Array(8 + stream.byteLength);
  buffer.set(stream, 8);
  const ext: JsonObject = { buffer: 0, byteOffset: 8, byteLength: stream.byteLength, byteStride, count, mode };
  if (filter) ext.filter = filter;
  const bufferView: JsonObject = { buffer: 1, byteLength: count * byteStride, extensions: { [extension]: ext } };
  if (parentStride !== undefined) bufferView.byteStride = parentStride;
  return { buffer, bufferView };
}

async function decode(enc: Encoded, limit?: number): Promise<Uint8Array> {
  const out = await decodeMeshoptBufferView(enc.bufferView, 'bufferViews[3]', [enc.buffer, undefined], budget(limit));
  if (!out) throw new Error('no extension found');
  return out;
}

function randomBytes(rng: Rng, n: number, smooth: boolean): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = smooth ? (i * 7 + (rng.u32() & 3)) & 0xff : rng.u32() & 0xff;
  return out;
}

/** Unit vectors spread over the sphere (a Fibonacci lattice). */
function unitVectors(count: number, components: 3 | 4): Float32Array {
  const out = new Float32Array(count * components);
  for (let i = 0; i < count; i++) {
    const z = 1 - (2 * (i + 0.5)) / count;
    const r = Math.sqrt(1 - z * z);
    const a = i * 2.399963;
    out.set([r * Math.cos(a), r * Math.sin(a), z], i * components);
    if (components === 4) out[i * components + 3] = i % 2 ? 1 : -1;
  }
  return out;
}

beforeAll(async () => {
  await MeshoptEncoder.ready;
});

describe('parseMeshoptView: every rule of the spec, before any decoding', () => {
  const ok = (): JsonObject => ({ buffer: 0, byteLength: 100, byteStride: 12, count: 10, mode: 'ATTRIBUTES' });
  const parent = (byteLength = 120, extra: JsonObject = {}): JsonObject => ({ buffer: 1, byteLength, ...extra });
  const cases: { name: string; ext: JsonObject; parent?: JsonObject; extension?: MeshoptExtensionName; path: string; message: RegExp }[] = [
    { name: 'buffer out of range', ext: { ...ok(), buffer: 5 }, path: '.buffer', message: /out of range/ },
    { name: 'buffer not fetched (fallback)', ext: { ...ok(), buffer: 1 }, path: '.buffer', message: /holds no data/ },
    { name: 'bytes past the buffer', ext: { ...ok(), byteOffset: 150 }, path: '', message: /exceeds buffers\[0\]/ },
    { name: 'missing byteLength', ext: { ...ok(), byteLength: undefined }, path: '.byteLength', message: /required/ },
    { name: 'negative byteStride', ext: { ...ok(), byteStride: -4 }, path: '.byteStride', message: /non-negative integer/ },
    { name: 'fractional count', ext: { ...ok(), count: 2.5 }, path: '.count', message: /non-negative integer/ },
    { name: 'zero count', ext: { ...ok(), count: 0 }, parent: parent(0), path: '.count', message: /at least 1/ },
    { name: 'unknown mode', ext: { ...ok(), mode: 'STRIPS' }, path: '.mode', message: /not one of/ },
    { name: 'unknown filter', ext: { ...ok(), filter: 'DELTA' }, path: '.filter', message: /not one of/ },
    { name: 'COLOR under the EXT name', ext: { ...ok(), byteStride: 4, count: 30, filter: 'COLOR' }, path: '.filter', message: /KHR_meshopt_compression only/ },
    { name: 'ATTRIBUTES stride not a multiple of 4', ext: { ...ok(), byteStride: 6, count: 20 }, path: '.byteStride', message: /multiple of 4/ },
    { name: 'ATTRIBUTES stride over 256', ext: { ...ok(), byteStride: 260, count: 1 }, parent: parent(260), path: '.byteStride', message: /multiple of 4/ },
    { name: 'TRIANGLES stride 8', ext: { ...ok(), mode: 'TRIANGLES', byteStride: 8, count: 15 }, path: '.byteStride', message: /2 or 4/ },
    { name: 'INDICES stride 1', ext: { ...ok(), mode: 'INDICES', byteStride: 1, count: 120 }, path: '.byteStride', message: /2 or 4/ },
    { name: 'TRIANGLES with a filter', ext: { ...ok(), mode: 'TRIANGLES', byteStride: 4, count: 30, filter: 'OCTAHEDRAL' }, path: '.filter', message: /must be NONE/ },
    { name: 'TRIANGLES count not a multiple of 3', ext: { ...ok(), mode: 'TRIANGLES', byteStride: 2, count: 60 - 2 }, parent: parent(116), path: '.count', message: /multiple of 3/ },
    { name: 'OCTAHEDRAL stride 12', ext: { ...ok(), filter: 'OCTAHEDRAL' }, path: '.byteStride', message: /4 or 8/ },
    { name: 'QUATERNION stride 4', ext: { ...ok(), byteStride: 4, count: 30, filter: 'QUATERNION' }, path: '.byteStride', message: /must be 8/ },
    { name: 'COLOR stride 12', ext: { ...ok(), filter: 'COLOR' }, extension: KHR_MESHOPT_COMPRESSION, path: '.byteStride', message: /4 or 8/ },
    { name: 'count × stride ≠ parent byteLength', ext: ok(), parent: parent(124), path: '', message: /= 120 bytes, but bufferViews\[3\]\.byteLength is 124/ },
    { name: 'parent byteStride disagrees (EXT)', ext: ok(), parent: parent(120, { byteStride: 16 }), path: '.byteStride', message: /differs/ },
    { name: 'count beyond what the bytes can hold', ext: { ...ok(), byteLength: 20, count: 1000, byteStride: 4 }, parent: parent(4000), path: '', message: /too short/ },
    { name: 'INDICES count beyond the bytes', ext: { ...ok(), mode: 'INDICES', byteLength: 20, byteStride: 4, count: 30 }, parent: parent(120), path: '', message: /too short/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const extension = c.extension ?? EXT_MESHOPT_COMPRESSION;
      const extPath = `bufferViews[3].extensions.${extension}`;
      let error: unknown;
      try {
        parseMeshoptView(extension, c.ext, c.parent ?? parent(), 'bufferViews[3]', [160, undefined]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GltfError);
      expect((error as GltfError).path).toBe(extPath + c.path);
      expect((error as GltfError).problem).toMatch(c.message);
    });
  }

  it('accepts a parent byteStride that differs under the KHR name (its rules drop that one)', () => {
    const view = parseMeshoptView(KHR_MESHOPT_COMPRESSION, ok(), parent(120, { byteStride: 16 }), 'bufferViews[3]', [160]);
    expect(view.decodedByteLength).toBe(120);
    expect(view.filter).toBe('NONE');
  });

  it('refuses a view carrying both names', async () => {
    const both = { buffer: 1, byteLength: 120, extensions: { [EXT_MESHOPT_COMPRESSION]: ok(), [KHR_MESHOPT_COMPRESSION]: ok() } };
    await expect(decodeMeshoptBufferView(both, 'bufferViews[0]', [new Uint8Array(160)], budget())).rejects.toMatchObject({
      name: 'GltfError', path: 'bufferViews[0].extensions',
    });
  });

  it('returns undefined for a view without the extension', async () => {
    expect(await decodeMeshoptBufferView({ buffer: 0, byteLength: 4 }, 'bufferViews[0]', [new Uint8Array(4)], budget())).toBeUndefined();
  });

  it('the least-size bound never refuses what the encoder writes', () => {
    const rng = new Rng(7);
    for (const stride of [4, 8, 12, 16, 64, 256]) {
      for (const count of [1, 15, 16, 17, 255, 256, 257, 1000]) {
        const data = new Uint8Array(count * stride); // all zeros: the smallest stream there is
        for (const version of [0, 1]) {
          const enc = MeshoptEncoder.encodeGltfBuffer(data, count, stride, 'ATTRIBUTES', version);
          expect(enc.byteLength).toBeGreaterThanOrEqual(leastEncodedBytes(MeshoptMode.ATTRIBUTES, count, stride));
        }
      }
    }
    for (const count of [3, 30, 3000]) {
      const tri = new Uint32Array(count);
      for (let i = 0; i < count; i++) tri[i] = i; // every triangle new: one code byte each
      expect(MeshoptEncoder.encodeGltfBuffer(bytesOf(tri), count, 4, 'TRIANGLES').byteLength)
        .toBeGreaterThanOrEqual(leastEncodedBytes(MeshoptMode.TRIANGLES, count, 4));
      const seq = new Uint32Array(count).fill(rng.u32() & 0xffff);
      expect(MeshoptEncoder.encodeGltfBuffer(bytesOf(seq), count, 4, 'INDICES').byteLength)
        .toBeGreaterThanOrEqual(leastEncodedBytes(MeshoptMode.INDICES, count, 4));
    }
  });
});

describe('decodeMeshoptView: lossless modes are exact', () => {
  for (const [extension, version] of [[EXT_MESHOPT_COMPRESSION, 0], [KHR_MESHOPT_COMPRESSION, 1]] as const) {
    for (const stride of [4, 12, 16, 36]) {
      it(`ATTRIBUTES, stride ${stride}, ${extension} (bitstream v${version})`, async () => {
        const rng = new Rng(stride);
        const count = 1000 + stride;
        const data = randomBytes(rng, count * stride, stride !== 36);
        const stream = MeshoptEncoder.encodeGltfBuffer(data, count, stride, 'ATTRIBUTES', version);
        const out = await decode(viewFor(extension, stream, count, stride, 'ATTRIBUTES'));
        expect(out).toEqual(data);
      });
    }
  }

  it('float positions round-trip bit for bit', async () => {
    const positions = new Float32Array(3 * 500);
    for (let i = 0; i < positions.length; i++) positions[i] = Math.sin(i * 0.37) * 10.125;
    const stream = MeshoptEncoder.encodeGltfBuffer(bytesOf(positions), 500, 12, 'ATTRIBUTES');
    const out = await decode(viewFor(EXT_MESHOPT_COMPRESSION, stream, 500, 12, 'ATTRIBUTES', undefined, 12));
    expect(new Float32Array(out.buffer)).toEqual(positions);
  });

  for (const stride of [2, 4] as const) {
    it(`TRIANGLES and INDICES with ${stride * 8}-bit indices`, async () => {
      // A grid of quads: the order a real index buffer has.
      const side = 40;
      const list: number[] = [];
      for (let y = 0; y < side - 1; y++) {
        for (let x = 0; x < side - 1; x++) {
          const a = y * side + x;
          list.push(a, a + 1, a + side, a + side, a + 1, a + side + 1);
        }
      }
      const indices = stride === 2 ? new Uint16Array(list) : new Uint32Array(list);
      for (const mode of ['TRIANGLES', 'INDICES'] as const) {
        const stream = MeshoptEncoder.encodeGltfBuffer(bytesOf(indices), indices.length, stride, mode);
        const out = await decode(viewFor(KHR_MESHOPT_COMPRESSION, stream, indices.length, stride, mode));
        const decoded = stride === 2 ? new Uint16Array(out.buffer) : new Uint32Array(out.buffer);
        if (mode === 'INDICES') {
          expect(decoded).toEqual(indices);
        } else {
          // The triangle codec keeps triangle order and winding but may rotate a triangle's
          // three indices; compare each triangle from its smallest index.
          expect(decoded.length).toBe(indices.length);
          for (let t = 0; t < indices.length; t += 3) {
            expect(canonical(decoded, t)).toEqual(canonical(indices, t));
          }
        }
      }
    });
  }
});

function canonical(a: ArrayLike<number>, t: number): number[] {
  const tri = [a[t], a[t + 1], a[t + 2]];
  const m = tri.indexOf(Math.min(...tri));
  return [tri[m], tri[(m + 1) % 3], tri[(m + 2) % 3]];
}

describe('decodeMeshoptView: filters land within their quantization step', () => {
  const count = 300;

  async function filtered(extension: MeshoptExtensionName, filter: MeshoptFilter, stride: number, encoded: Uint8Array): Promise<Uint8Array> {
    const stream = MeshoptEncoder.encodeGltfBuffer(encoded, count, stride, 'ATTRIBUTES', extension === KHR_MESHOPT_COMPRESSION ? 1 : 0);
    return decode(viewFor(extension, stream, count, stride, 'ATTRIBUTES', filter));
  }

  for (const [stride, bits] of [[4, 8], [8, 12]] as const) {
    it(`OCTAHEDRAL, ${stride} bytes, ${bits} bits: unit normals as snorm, w passed through`, async () => {
      const normals = unitVectors(count, 4);
      const out = await filtered(EXT_MESHOPT_COMPRESSION, 'OCTAHEDRAL', stride, MeshoptEncoder.encodeFilterOct(normals, count, stride, bits));
      const ints = stride === 4 ? new Int8Array(out.buffer) : new Int16Array(out.buffer);
      const max = stride === 4 ? 127 : 32767;
      // Octahedral encoding with K bits is good to about 2/2^K per component, plus rounding.
      const tolerance = 4 / (1 << bits) + 1 / max;
      for (let i = 0; i < count * 4; i++) {
        if (i % 4 === 3) expect(Math.sign(ints[i])).toBe(Math.sign(normals[i]));
        else expect(Math.abs(ints[i] / max - normals[i])).toBeLessThanOrEqual(tolerance);
      }
    });
  }

  it('QUATERNION, 12 bits: unit rotations up to sign', async () => {
    const q = unitVectors(count, 4);
    for (let i = 0; i < count; i++) {
      const s = Math.SQRT1_2;
      q.set([q[i * 4] * s, q[i * 4 + 1] * s, q[i * 4 + 2] * s, s], i * 4);
    }
    const out = await filtered(KHR_MESHOPT_COMPRESSION, 'QUATERNION', 8, MeshoptEncoder.encodeFilterQuat(q, count, 8, 12));
    const ints = new Int16Array(out.buffer);
    for (let i = 0; i < count; i++) {
      const dot = [0, 1, 2, 3].reduce((sum, c) => sum + (ints[i * 4 + c] / 32767) * q[i * 4 + c], 0);
      expect(Math.abs(dot)).toBeGreaterThan(1 - 1e-4);
    }
  });

  it('EXPONENTIAL, 15 bits of mantissa: floats within the step of their vector\'s exponent', async () => {
    const values = new Float32Array(count * 3);
    for (let i = 0; i < values.length; i++) values[i] = Math.sin(i) * 10 ** ((i % 7) - 3);
    const out = await filtered(EXT_MESHOPT_COMPRESSION, 'EXPONENTIAL', 12, MeshoptEncoder.encodeFilterExp(values, count, 12, 15));
    const floats = new Float32Array(out.buffer);
    for (let i = 0; i < values.length; i++) {
      // The encoder's default shares one exponent per element, set by its largest component.
      const e = i - (i % 3);
      const largest = Math.max(Math.abs(values[e]), Math.abs(values[e + 1]), Math.abs(values[e + 2]));
      expect(Math.abs(floats[i] - values[i])).toBeLessThanOrEqual(largest * 2 ** -14);
    }
  });

  for (const [stride, bits] of [[4, 8], [8, 12]] as const) {
    it(`COLOR, ${stride} bytes, ${bits} bits (KHR only): RGBA as unorm`, async () => {
      const colors = new Float32Array(count * 4);
      for (let i = 0; i < colors.length; i++) colors[i] = ((i * 37) % 101) / 100;
      const out = await filtered(KHR_MESHOPT_COMPRESSION, 'COLOR', stride, MeshoptEncoder.encodeFilterColor(colors, count, stride, bits));
      const ints = stride === 4 ? out : new Uint16Array(out.buffer);
      const max = stride === 4 ? 255 : 65535;
      // YCoCg at K bits: a few steps of 1/2^K after the colour transform, plus rounding.
      const tolerance = 4 / (1 << bits) + 1 / max;
      expectEach(colors.length, `colour components within ${tolerance}`, (i) => (Math.abs(ints[i] / max - colors[i]) <= tolerance ? undefined : `${ints[i]} / ${max} vs ${colors[i]}`));
    });
  }
});

describe('decodeMeshoptView: budget and output', () => {
  const count = 64;
  const data = new Uint8Array(count * 16).map((_, i) => i & 0xff);
  const stream = () => MeshoptEncoder.encodeGltfBuffer(data, count, 16, 'ATTRIBUTES');

  it('charges the decoded size to the budget before allocating', async () => {
    const b = budget();
    const enc = viewFor(EXT_MESHOPT_COMPRESSION, stream(), count, 16, 'ATTRIBUTES');
    await decodeMeshoptBufferView(enc.bufferView, 'bufferViews[0]', [enc.buffer], b);
    expect(b.usedBytes).toBe(count * 16);
    await expect(decode(enc, count * 16 - 1)).rejects.toMatchObject({ name: 'GltfError', path: 'bufferViews[3].extensions.EXT_meshopt_compression' });
  });

  it('decodes into a caller-owned array of the exact size, and refuses any other size', async () => {
    const enc = viewFor(EXT_MESHOPT_COMPRESSION, stream(), count, 16, 'ATTRIBUTES');
    const ext = (enc.bufferView.extensions as JsonObject)[EXT_MESHOPT_COMPRESSION];
    const view = parseMeshoptView(EXT_MESHOPT_COMPRESSION, ext, enc.bufferView, 'bufferViews[3]', [enc.buffer.byteLength]);
    const out = new Uint8Array(count * 16);
    const b = budget();
    expect(await decodeMeshoptView(view, enc.buffer, b, out)).toBe(out);
    expect(out).toEqual(data);
    expect(b.usedBytes).toBe(0);
    await expect(decodeMeshoptView(view, enc.buffer, b, new Uint8Array(count * 16 + 4))).rejects.toThrow(RangeError);
  });
});

describe('decodeMeshoptView: corrupt streams', () => {
  it('bit flips, truncation, extension and lying counts give a GltfError or exactly count × stride bytes', async () => {
    const rng = new Rng(2024);
    const sources: { name: string; mode: string; stride: number; count: number; filter?: string; stream: Uint8Array; extension: MeshoptExtensionName }[] = [];
    const attrs = randomBytes(rng, 700 * 12, true);
    sources.push({ name: 'attributes v0', mode: 'ATTRIBUTES', stride: 12, count: 700, stream: MeshoptEncoder.encodeGltfBuffer(attrs, 700, 12, 'ATTRIBUTES', 0), extension: EXT_MESHOPT_COMPRESSION });
    sources.push({ name: 'attributes v1', mode: 'ATTRIBUTES', stride: 12, count: 700, stream: MeshoptEncoder.encodeGltfBuffer(attrs, 700, 12, 'ATTRIBUTES', 1), extension: KHR_MESHOPT_COMPRESSION });
    const normals = MeshoptEncoder.encodeFilterOct(unitVectors(400, 4), 400, 8, 12);
    sources.push({ name: 'octahedral', mode: 'ATTRIBUTES', stride: 8, count: 400, filter: 'OCTAHEDRAL', stream: MeshoptEncoder.encodeGltfBuffer(normals, 400, 8, 'ATTRIBUTES'), extension: EXT_MESHOPT_COMPRESSION });
    const tris = new Uint16Array(600).map((_, i) => (i % 3 === 0 ? i / 3 : (i + 1) % 200));
    sources.push({ name: 'triangles', mode: 'TRIANGLES', stride: 2, count: 600, stream: MeshoptEncoder.encodeGltfBuffer(bytesOf(tris), 600, 2, 'TRIANGLES'), extension: EXT_MESHOPT_COMPRESSION });
    sources.push({ name: 'indices', mode: 'INDICES', stride: 4, count: 600, stream: MeshoptEncoder.encodeGltfBuffer(bytesOf(new Uint32Array(tris)), 600, 4, 'INDICES'), extension: KHR_MESHOPT_COMPRESSION });

    const tally = { decoded: 0, refused: 0 };
    const CASES_PER_SOURCE = 400;
    for (const src of sources) {
      for (let c = 0; c < CASES_PER_SOURCE; c++) {
        let stream = src.stream.slice();
        let count = src.count;
        const kind = c % 5;
        if (kind <= 1) {
          // 1 to 8 bit flips anywhere.
          const flips = 1 + (rng.u32() % 8);
          for (let f = 0; f < flips; f++) stream[rng.u32() % stream.length] ^= 1 << (rng.u32() & 7);
        } else if (kind === 2) {
          stream = stream.subarray(0, rng.u32() % stream.length);
        } else if (kind === 3) {
          const longer = new Uint8Array(stream.length + 1 + (rng.u32() % 64));
          longer.set(stream);
          for (let i = stream.length; i < longer.length; i++) longer[i] = rng.u32() & 0xff;
          stream = longer;
        } else {
          // A count that lies (up or down), with the parent byteLength made to agree.
          count = Math.max(src.mode === 'TRIANGLES' ? 3 : 1, src.count + ((rng.u32() % 2001) - 1000) * (src.mode === 'TRIANGLES' ? 3 : 1));
        }
        const enc = viewFor(src.extension, stream, count, src.stride, src.mode, src.filter);
        let out: Uint8Array | undefined;
        try {
          out = await decode(enc);
        } catch (e) {
          if (!(e instanceof GltfError)) throw new Error(`${src.name} case ${c}: ${String(e)}`);
          expect(e.path).toMatch(/^bufferViews\[3\]\.extensions\.(EXT|KHR)_meshopt_compression/);
          tally.refused++;
          continue;
        }
        expect(out.byteLength).toBe(count * src.stride);
        tally.decoded++;
      }
    }
    // Both outcomes occur: flips in the data bytes decode to other values, flips in headers and
    // every truncation are refused.
    expect(tally.refused).toBeGreaterThan(sources.length * CASES_PER_SOURCE * 0.3);
    expect(tally.decoded).toBeGreaterThan(0);
  });
});
