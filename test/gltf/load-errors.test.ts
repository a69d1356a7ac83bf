import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../src/gltf/load.ts';
import { GltfError, NotGltfError } from '../../src/gltf/errors.ts';
import { assetJson } from '../support/assets.ts';

const bytesOf = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

/** SimpleSkin (embedded buffers) with one mutation applied. */
function simpleSkinWith(mutate: (j: Record<string, any>) => void): Uint8Array {
  const json = assetJson('SimpleSkin');
  mutate(json);
  return bytesOf(json);
}

async function expectGltfError(bytes: Uint8Array, path: string, problem: RegExp): Promise<void> {
  const error = await loadGltf(bytes).then(() => undefined, (e: unknown) => e);
  expect(error, 'expected the load to fail').toBeInstanceOf(GltfError);
  const e = error as GltfError;
  expect(e.path).toBe(path);
  expect(e.problem).toMatch(problem);
  expect(e.message).toContain(path);
}

/** A raw JSON buffer entry holding `bytes` as a data URI. */
function dataBuffer(bytes: Uint8Array) {
  return { byteLength: bytes.byteLength, uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}` };
}

describe('loadGltf rejects invalid input with the JSON path and the problem', () => {
  it('bytes that are not JSON or GLB', () => expectGltfError(new Uint8Array([1, 2, 3]), '', /^not a glTF file: .*the bytes 01 02 03$/));
  it('a truncated GLB', async () => {
    const header = new Uint8Array(20);
    new DataView(header.buffer).setUint32(0, 0x46546c67, true);
    new DataView(header.buffer).setUint32(4, 2, true);
    new DataView(header.buffer).setUint32(8, 1000, true);
    await expectGltfError(header, 'glb.length', /truncated/);
  });
  it('a GLB chunk whose length runs past the file', async () => {
    const glb = new Uint8Array(28);
    const dv = new DataView(glb.buffer);
    dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, 28, true);
    dv.setUint32(12, 4000, true); dv.setUint32(16, 0x4e4f534a, true);
    await expectGltfError(glb, 'glb.chunks[0]', /past the end/);
  });
  it('GLB version 1', async () => {
    const glb = new Uint8Array(20);
    const dv = new DataView(glb.buffer);
    dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 1, true); dv.setUint32(8, 20, true);
    await expectGltfError(glb, 'glb.version', /not supported/);
  });
  it('a glTF 1.0 asset', () => expectGltfError(simpleSkinWith((j) => (j.asset.version = '1.0')), 'asset.version', /not supported/));
  it('a required extension we do not implement', () =>
    expectGltfError(simpleSkinWith((j) => (j.extensionsRequired = ['EXT_lights_image_based'])), 'extensionsRequired', /EXT_lights_image_based/));
  it('many required extensions: the first eight named, the rest elided', () => {
    const names = Array.from({ length: 10 }, (_, i) => `EXT_unknown_${i}`);
    return expectGltfError(simpleSkinWith((j) => (j.extensionsRequired = names)), 'extensionsRequired',
      /^unsupported required extension\(s\): EXT_unknown_0, EXT_unknown_1, .*EXT_unknown_7, …$/);
  });
  it('an accessor index out of range', () =>
    expectGltfError(simpleSkinWith((j) => (j.meshes[0].primitives[0].attributes.POSITION = 99)), 'meshes[0].primitives[0].attributes.POSITION', /out of range/));
  it('an accessor whose count overruns its bufferView', () =>
    expectGltfError(simpleSkinWith((j) => (j.accessors[1].count = 1000)), 'accessors[1]', /needs \d+ bytes/));
  it('a huge count on an accessor without bufferView (no giant allocation)', () =>
    expectGltfError(simpleSkinWith((j) => { delete j.accessors[1].bufferView; j.accessors[1].count = 2 ** 31; }), 'accessors[1].count', /exceeds the limit/));
  it('a negative count', () => expectGltfError(simpleSkinWith((j) => (j.accessors[1].count = -5)), 'accessors[1].count', /non-negative integer/));
  it('a bufferView beyond its buffer', () =>
    expectGltfError(simpleSkinWith((j) => (j.bufferViews[1].byteLength = 100000)), 'bufferViews[1]', /exceeds buffers\[0\]/));
  it('a buffer shorter than its byteLength', () =>
    expectGltfError(simpleSkinWith((j) => (j.buffers[0].byteLength = 1e6)), 'buffers[0].byteLength', /only \d+ are available/));
  it('an external buffer without a base location', () =>
    expectGltfError(simpleSkinWith((j) => (j.buffers[0].uri = 'missing.bin')), 'buffers[0].uri', /cannot be loaded without a base/));
  it('a joint index at or past the skin joint count', () =>
    expectGltfError(simpleSkinWith((j) => (j.skins[0].joints = [1])), 'meshes[0].primitives[0].attributes.JOINTS_0', /joint index 1 is out of range for skins\[0\].*1 joints/));
  it('JOINTS_0 without WEIGHTS_0', () =>
    expectGltfError(simpleSkinWith((j) => delete j.meshes[0].primitives[0].attributes.WEIGHTS_0), 'meshes[0].primitives[0].attributes.WEIGHTS_0', /required/));
  it('a node that is its own ancestor', () =>
    expectGltfError(simpleSkinWith((j) => (j.nodes[2].children = [1])), 'nodes[1]', /cycle/));
  it('a node with two parents', () =>
    expectGltfError(simpleSkinWith((j) => (j.nodes[0].children = [2])), 'nodes[1].children[0]', /already has parent nodes\[0\]/));
  it('NaN-like values in node transforms', () =>
    expectGltfError(simpleSkinWith((j) => (j.nodes[2].translation = [0, 'x', 0])), 'nodes[2].translation[1]', /finite number/));
  it('an inverseBindMatrices accessor with too few matrices', () =>
    expectGltfError(simpleSkinWith((j) => (j.accessors[4].count = 1)), 'skins[0].inverseBindMatrices', /1 matrices for 2 joints/));
  it('animation key times that decrease', async () => {
    const json = assetJson('SimpleSkin');
    // Rewrite the time accessor's buffer with a decreasing key.
    const times = new Float32Array(12).map((_, i) => i * 0.5);
    times[5] = 0.1;
    const values = new Float32Array(48).map((_, i) => (i % 4 === 3 ? 1 : 0));
    const bytes = new Uint8Array(240);
    bytes.set(new Uint8Array(times.buffer), 0);
    bytes.set(new Uint8Array(values.buffer), 48);
    json.buffers[3] = dataBuffer(bytes);
    await expectGltfError(bytesOf(json), 'animations[0].samplers[0].input', /decrease at key 5/);
  });
  it('an unknown interpolation', () =>
    expectGltfError(simpleSkinWith((j) => (j.animations[0].samplers[0].interpolation = 'SMOOTH')), 'animations[0].samplers[0].interpolation', /not LINEAR, STEP or CUBICSPLINE/));
  it('a channel pointing at a sampler that does not exist', () =>
    expectGltfError(simpleSkinWith((j) => (j.animations[0].channels[0].sampler = 3)), 'animations[0].channels[0].sampler', /out of range/));
  it('a sampler output of the wrong size for its target', () =>
    expectGltfError(simpleSkinWith((j) => (j.animations[0].channels[0].target.path = 'translation')), 'animations[0].samplers[0].output', /need 36/));
  it('two channels animating the same property', () =>
    expectGltfError(simpleSkinWith((j) => j.animations[0].channels.push(j.animations[0].channels[0])), 'animations[0].channels[1].target', /already animated/));
  it('a scene naming a non-root node', () =>
    expectGltfError(simpleSkinWith((j) => (j.scenes[0].nodes = [0, 2])), 'scenes[0].nodes[1]', /not a root node/));
  it('indices past the vertex count', async () => {
    const json = assetJson('SimpleSkin');
    json.accessors[0].componentType = 5121; // read the u16 index bytes as u8: value 3 stays in range, but a count of 48 exposes high bytes
    json.accessors[0].count = 48;
    json.accessors[1].count = 3;
    json.accessors[2].count = 3; json.accessors[3].count = 3;
    await expectGltfError(bytesOf(json), 'meshes[0].primitives[0].indices', /out of range \(3 vertices\)/);
  });
  // Found by the fuzzer (test/gltf/fuzz.test.ts) or by reviewing what it exercises;
  // each escaped as a non-GltfError or loaded a model nothing could use.
  it('a data: URI with bad percent-encoding (was a URIError)', () =>
    expectGltfError(simpleSkinWith((j) => (j.buffers[0].uri = 'data:,%E0%A4%A')), 'buffers[0].uri', /bad percent-encoding/));
  it('extensionsRequired nested 200,000 deep (was a RangeError: call stack exceeded)', async () => {
    const text = JSON.stringify(assetJson('SimpleSkin')).replace(/^\{/, `{"extensionsRequired":[${'['.repeat(200_000)}1${']'.repeat(200_000)}],`);
    await expectGltfError(new TextEncoder().encode(text), 'extensionsRequired', /unsupported required extension\(s\): an array of 1/);
  });
  it('"constructor" as an interpolation (loaded with Object as its interpolation)', () =>
    expectGltfError(simpleSkinWith((j) => (j.animations[0].samplers[0].interpolation = 'constructor')), 'animations[0].samplers[0].interpolation', /"constructor" is not LINEAR/));
  it('"__proto__" and "constructor" as a channel path or accessor type', async () => {
    // An unknown channel path is ignored with a warning (as three.js does), never looked up on Object's prototype.
    const model = await loadGltf(simpleSkinWith((j) => (j.animations[0].channels[0].target.path = '__proto__')));
    expect(model.warnings).toContainEqual({ path: 'animations[0].channels[0].target.path', message: expect.stringMatching(/"__proto__" is not translation.*ignored/) });
    expect(model.animations[0].channels).toHaveLength(0);
    await expectGltfError(simpleSkinWith((j) => (j.accessors[1].type = 'constructor')), 'accessors[1].type', /"constructor" is not a glTF accessor type/);
  });
  it('a resolveUri that returns something other than bytes (was a TypeError)', async () => {
    const bytes = simpleSkinWith((j) => (j.buffers[0].uri = 'x.bin'));
    const error = await loadGltf(bytes, { resolveUri: async () => 'oops' as unknown as Uint8Array }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).message).toBe('buffers[0].uri: could not load "x.bin": the resolver returned "oops", not bytes');
  });
  it('morph weights too large for a 32-bit float (loaded with Infinity; fuzz case 43365)', async () => {
    const json = assetJson('SimpleMorph');
    json.meshes[0].weights = [0.5, 1e308];
    await expectGltfError(bytesOf(json), 'meshes[0].weights[1]', /1e\+308 does not fit a 32-bit float/);
    const node = assetJson('SimpleMorph');
    node.nodes[0].weights = [-1e39, 0];
    await expectGltfError(bytesOf(node), 'nodes[0].weights[0]', /-1e\+39 does not fit a 32-bit float/);
  });
  it('a huge view-less accessor over the file\'s memory budget', () =>
    expectGltfError(simpleSkinWith((j) => { delete j.accessors[1].bufferView; j.accessors[1].count = 5_000_000; }), 'accessors[1].count', /loading needs more than [\d.]+ MiB/));
  it('skin weights of a component type glTF does not allow', async () => {
    const json = assetJson('SimpleSkin');
    const loaded = await loadGltf(bytesOf(json));
    expect(loaded.meshes[0].primitives[0].weights![0]).toBe(1); // baseline loads
    json.accessors[3].componentType = 5122; // reinterpret float weights as normalized shorts: some negative
    json.accessors[3].normalized = true;
    await expectGltfError(bytesOf(json), 'meshes[0].primitives[0].attributes.WEIGHTS_0', /must be FLOAT or normalized/);
  });
});

describe('bytes that are not glTF at all: said so, with what they start with, not as "invalid JSON"', () => {
  const text = (s: string) => new TextEncoder().encode(s);
  const NEITHER = 'not a glTF file: neither a GLB (no "glTF" magic) nor glTF JSON (no "{" first); ';
  async function refusal(bytes: Uint8Array): Promise<NotGltfError> {
    const error = await loadGltf(bytes).then(() => undefined, (e: unknown) => e);
    expect(error, 'expected a NotGltfError').toBeInstanceOf(NotGltfError);
    // Still the loader's one error type, its message starting with its path (the fuzz test's rule).
    expect(error).toBeInstanceOf(GltfError);
    const e = error as NotGltfError;
    expect(e.message.startsWith(e.path)).toBe(true);
    return e;
  }

  it('plain text', async () => {
    expect((await refusal(text('Hello, this is not a model.\n'))).message).toBe(`${NEITHER}it begins "Hello, this is not a mod"…`);
  });
  it("a server's HTML error page", async () => {
    const e = await refusal(text('\n<!DOCTYPE html>\n<html><body><h1>404 Not Found</h1></body></html>'));
    expect(e.path).toBe('');
    expect(e.message).toBe(`${NEITHER}it begins "<!DOCTYPE html> <html><"… (markup: an HTML page, such as a server's error page?)`);
  });
  it('a PNG image', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    expect((await refusal(png)).message).toBe(`${NEITHER}it begins with the bytes 89 50 4E 47 0D 0A 1A 0A (a PNG image)`);
  });
  it('gzip-compressed bytes (a response the server did not decode)', async () => {
    expect((await refusal(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]))).message).toMatch(/the bytes 1F 8B 08 00 00 00 00 00 \(gzip-compressed data\)$/);
  });
  it('JSON that is not an object', async () => {
    expect((await refusal(text('[1, 2, 3]'))).message).toBe(`${NEITHER}it begins "[1, 2, 3]"`);
  });
  it('an empty file', async () => {
    expect((await refusal(new Uint8Array(0))).message).toBe('the file is empty (0 bytes), neither a GLB nor glTF JSON');
  });
  it('a GLB header cut short, before or after its magic', async () => {
    for (const bytes of [text('gl'), text('glT'), new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0])]) {
      const e = await refusal(bytes);
      expect(e.path).toBe('glb');
      expect(e.message).toBe(`glb: file is ${bytes.byteLength} bytes, shorter than the 12-byte GLB header (a truncated GLB?)`);
    }
  });
  it('glTF JSON that is broken is still told as invalid JSON (it is glTF, wrongly written)', async () => {
    for (const bytes of [text('{"asset": '), text('\uFEFF \n {"asset"'), new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const error = await loadGltf(bytes).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(GltfError);
      expect(error).not.toBeInstanceOf(NotGltfError);
      expect((error as GltfError).problem).toMatch(/^(invalid JSON \(|JSON is not valid UTF-8$)/);
    }
  });
  it('a caller names where the bytes came from', async () => {
    const e = (await refusal(text('nope'))).from('https://example.test/m/a.glb');
    expect(e.message).toBe(`https://example.test/m/a.glb: ${NEITHER}it begins "nope"`);
    expect(e.file).toBe('https://example.test/m/a.glb');
    expect(e.path).toBe('');
  });
});
