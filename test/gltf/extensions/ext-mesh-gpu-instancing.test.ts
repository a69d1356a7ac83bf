import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { buildInstancedQuad, EXT, translations, type InstancedQuadOptions } from '../../support/instancing.ts';

const PATH = `nodes[0].extensions.${EXT}.attributes`;

async function expectGltfError(o: InstancedQuadOptions, path: string, problem: RegExp): Promise<void> {
  const error = await loadGltf(buildInstancedQuad(o)).then(() => undefined, (e: unknown) => e);
  expect(error, 'expected the load to fail').toBeInstanceOf(GltfError);
  expect((error as GltfError).path).toBe(path);
  expect((error as GltfError).problem).toMatch(problem);
}

/** Instance k's matrix as an array. */
const matrixOf = (m: Float64Array, k: number) => Array.from(m.subarray(k * 16, k * 16 + 16));

describe('EXT_mesh_gpu_instancing in the loader', () => {
  it('reads one local TRS matrix per instance, and loads when the extension is required', async () => {
    const s = Math.SQRT1_2;
    const model = await loadGltf(buildInstancedQuad({
      required: true,
      attributes: {
        TRANSLATION: translations(1, 2, 3, -4, 0, 0),
        // Instance 1: 90° about z.
        ROTATION: { data: Float32Array.of(0, 0, 0, 1, 0, 0, s, s), type: 'VEC4' },
        SCALE: { data: Float32Array.of(1, 1, 1, 2, 3, 4), type: 'VEC3' },
      },
    }));
    expect(model.meshNodes).toHaveLength(1);
    const m = model.meshNodes[0].instances!;
    expect(m.length).toBe(32);
    expect(matrixOf(m, 0)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1]);
    // Rz(90°) · diag(2, 3, 4): x → y scaled 2, y → −x scaled 3.
    const expected = [0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, -4, 0, 0, 1];
    matrixOf(m, 1).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 6));
    expect(model.warnings).toEqual([]);
  });

  it('dequantizes normalized byte/short rotations and scales and renormalizes the quaternion', async () => {
    const model = await loadGltf(buildInstancedQuad({
      attributes: {
        // 90° about z as normalized shorts (≈ 0.7071 each, not exactly unit length).
        ROTATION: { data: Int16Array.of(0, 0, 23170, 23170), type: 'VEC4', normalized: true },
        SCALE: { data: Int8Array.of(127, 127, 127), type: 'VEC3', normalized: true },
      },
    }));
    const m = matrixOf(model.meshNodes[0].instances!, 0);
    const expected = [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    m.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 9));
  });

  it('allows integer translations and scales with KHR_mesh_quantization, and refuses them without', async () => {
    const quantized = { TRANSLATION: { data: Int16Array.of(5, -6, 7), type: 'VEC3' as const } };
    const model = await loadGltf(buildInstancedQuad({ attributes: quantized, extensionsUsed: ['KHR_mesh_quantization'] }));
    expect(matrixOf(model.meshNodes[0].instances!, 0).slice(12)).toEqual([5, -6, 7, 1]);
    await expectGltfError({ attributes: quantized }, `${PATH}.TRANSLATION`, /short components are not allowed \(allowed only with KHR_mesh_quantization\)/);
  });

  it('a node without the extension has no instances (unchanged)', async () => {
    const model = await loadGltf(buildInstancedQuad({ attributes: { TRANSLATION: translations(1, 0, 0) }, plainCopyAt: [0, 1, 0] }));
    expect(model.meshNodes.map((mn) => mn.instances === undefined)).toEqual([false, true]);
    expect(Object.keys(model.meshNodes[1])).toEqual(['node', 'mesh', 'skin']);
  });

  it('bad input: mismatched counts, wrong types, unknown names, bad accessor indices', async () => {
    await expectGltfError({ attributes: { TRANSLATION: translations(0, 0, 0, 1, 1, 1), SCALE: { data: Float32Array.of(1, 1, 1), type: 'VEC3' } } },
      `${PATH}.SCALE`, /has 1 elements but TRANSLATION has 2; every instance attribute needs one per instance/);
    await expectGltfError({ attributes: { ROTATION: { data: Float32Array.of(0, 0, 1), type: 'VEC3' } } }, `${PATH}.ROTATION`, /must be a VEC4 accessor/);
    await expectGltfError({ attributes: { ROTATION: { data: Uint16Array.of(0, 0, 0, 65535), type: 'VEC4', normalized: true } } },
      `${PATH}.ROTATION`, /unsigned short normalized components are not allowed; use float, byte normalized, short normalized/);
    await expectGltfError({ attributes: { SCALE: { data: Uint8Array.of(1, 1, 1, 0), type: 'VEC4' } } }, `${PATH}.SCALE`, /must be a VEC3 accessor/);
    await expectGltfError({ attributes: { TRANSLATE: translations(0, 0, 0) } }, `${PATH}.TRANSLATE`, /"TRANSLATE" is not TRANSLATION, ROTATION, SCALE or a custom attribute/);
    await expectGltfError({ attributes: { TRANSLATION: translations(0, 0, 0), _ID: { data: Float32Array.of(0, 1), type: 'SCALAR' } } },
      `${PATH}._ID`, /has 2 elements but TRANSLATION has 1/);
    const bytes = buildInstancedQuad({ attributes: { TRANSLATION: translations(0, 0, 0) } });
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true))));
    json.nodes[0].extensions[EXT].attributes.TRANSLATION = 99;
    json.buffers[0].uri = `data:application/octet-stream;base64,${Buffer.from(bytes.subarray(bytes.length - json.buffers[0].byteLength)).toString('base64')}`;
    const error = await loadGltf(new TextEncoder().encode(JSON.stringify(json))).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(`${PATH}.TRANSLATION`);
  });

  it('where three.js r187 ignores or changes it: lines drawn once, skinned drawn rigid, custom attributes listed', async () => {
    const lines = await loadGltf(buildInstancedQuad({ lines: true, attributes: { TRANSLATION: translations(1, 0, 0, 2, 0, 0) } }));
    expect(lines.meshNodes[0].instances).toBeUndefined();
    expect(lines.warnings.map((w) => w.path)).toContain(`nodes[0].extensions.${EXT}`);

    const skinned = await loadGltf(buildInstancedQuad({ skinned: true, attributes: { TRANSLATION: translations(1, 0, 0, 2, 0, 0) } }));
    const mn = skinned.meshNodes[0];
    expect(mn.skin).toBe(-1);
    expect(mn.instances!.length).toBe(32);
    expect(skinned.warnings.find((w) => w.path === `nodes[1].extensions.${EXT}`)?.message).toMatch(/on a skinned mesh: drawn as 2 rigid instance\(s\)/);

    const custom = await loadGltf(buildInstancedQuad({ attributes: { _ID: { data: Float32Array.of(0, 1, 2), type: 'SCALAR' } } }));
    expect(custom.meshNodes[0].instances!.length).toBe(48);
    expect(matrixOf(custom.meshNodes[0].instances!, 2)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    expect(custom.warnings.find((w) => w.path === PATH)?.message).toMatch(/custom attribute\(s\) _ID ignored/);
  });

  it('a zero rotation quaternion is no rotation, with a warning', async () => {
    const model = await loadGltf(buildInstancedQuad({ attributes: { ROTATION: { data: Float32Array.of(0, 0, 0, 0), type: 'VEC4' } } }));
    expect(matrixOf(model.meshNodes[0].instances!, 0)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    expect(model.warnings.find((w) => w.path === `${PATH}.ROTATION`)?.message).toMatch(/1 instance rotation\(s\) are zero quaternions/);
  });
});
