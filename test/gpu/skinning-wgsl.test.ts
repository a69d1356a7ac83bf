import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import preskinWgsl from '../../shaders/preskin.wgsl?raw';
import type { Primitive } from '../../src/gltf/model.ts';
import { PRESKIN_ENTRY_POINT, preskinPipeline } from '../../src/gpu/draw/preskin.ts';
import { PRESKIN_WGSL } from '../../src/gpu/draw/preskin-wgsl.ts';
import { compilationErrors as errorsOf } from '../../src/gpu/device/shader-module.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';
import { useTestDevice } from '../support/webgpu.ts';

const gpu = useTestDevice('skinning.wgsl tests');

const PALETTE_DECLARATION = '@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;\n';

/** The WGSL errors of `code` (the validation error Dawn also raises is caught here, not left uncaptured). */
async function compilationErrors(device: GPUDevice, code: string, label: string): Promise<string[]> {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label, code });
  await device.popErrorScope();
  return errorsOf(module);
}

describe('skinning WGSL sources (text)', () => {
  // The compute pass's bindings and PreskinParams are checked against src/gpu/draw/preskin.ts in test/gpu/draw/preskin.test.ts.
  it('preskin.wgsl (the compute pass of the Renderer and the GPU bake) reuses skinning.wgsl instead of defining its own skinning', () => {
    expect(preskinWgsl).not.toMatch(/fn\s+(blendJointMatrices|blendJointMatrices8|skinFrame)\s*\(/);
    expect(preskinWgsl).toMatch(/skinFrame\(/);
    expect(PRESKIN_WGSL.split(skinningWgsl)).toHaveLength(2); // included exactly once
    expect(preskinWgsl).toMatch(new RegExp(`fn\\s+${PRESKIN_ENTRY_POINT}\\s*\\(`));
  });
});

describe('skinning WGSL on the GPU', () => {
  it('skinning.wgsl compiles on its own (given the palette) and inside the compute module', async (ctx) => {
    const device = gpu.device(ctx);
    expect(await compilationErrors(device, PALETTE_DECLARATION + skinningWgsl, 'skinning.wgsl')).toEqual([]);
    expect(await compilationErrors(device, PRESKIN_WGSL, 'preskin.wgsl')).toEqual([]);
    // …and errors are reported, not swallowed: without the palette it must fail.
    expect((await compilationErrors(device, skinningWgsl, 'skinning.wgsl without palette')).join('\n')).toMatch(/jointPalette/);
    await expect(preskinPipeline(device, 'linear', { influenceSets: 2, morphed: false })).resolves.toHaveProperty('label');
  });

  it('blendJointMatrices / blendJointMatrices8 / skinFrame agree with the CPU reference', async (ctx) => {
    const device = gpu.device(ctx);
    const results = await runHarness(device, CASES);
    CASES.forEach((c, i) => {
      const r = results[i];
      const name = c.name;
      // The blended matrix: Σ wᵢ · palette[offset + jointᵢ] / Σ wᵢ.
      const m = new Float64Array(16);
      const sum = c.weights.reduce((a, b) => a + b, 0);
      for (let k = 0; k < c.joints.length; k++) {
        for (let e = 0; e < 16; e++) m[e] += (c.weights[k] / sum) * PALETTE[(c.paletteOffset + c.joints[k]) * 16 + e];
      }
      for (let e = 0; e < 16; e++) expect(Math.abs(r.matrix[e] - m[e]), `${name}: matrix[${e}] ${r.matrix[e]} vs ${m[e]}`).toBeLessThan(1e-5);

      const cpu = cpuFrame(c);
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(r.position[k] - cpu.position[k]), `${name}: position[${k}]`).toBeLessThan(1e-5);
        expect(Math.abs(r.tangent[k] - cpu.tangent[k]), `${name}: tangent[${k}]`).toBeLessThan(1e-5);
      }
      expect(r.tangent[3], `${name}: tangent w is passed through`).toBe(c.tangent[3]);
      const normal = c.exact ? cpu.normal : linearNormal(m, c.normal);
      for (let k = 0; k < 3; k++) expect(Math.abs(r.normal[k] - normal[k]), `${name}: normal[${k}] ${r.normal[k]} vs ${normal[k]}`).toBeLessThan(1e-5);
      if (c.expectNormal) {
        for (let k = 0; k < 3; k++) expect(Math.abs(r.normal[k] - c.expectNormal[k]), `${name}: expected normal[${k}]`).toBeLessThan(1e-5);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------
// Hand-picked cases. The palette has two "skins": matrices 0..3 and 4..7 (offset 4).

const rotation = mat4.axisRotation([1, 2, 3].map((x) => x / Math.hypot(1, 2, 3)), 0.9);
const PALETTE_MATRICES: Float32Array[] = [
  mat4.identity(),
  mat4.scaling([-1, 1, 1]), // a mirror
  mat4.multiply(mat4.translation([0.5, -1, 2]), mat4.multiply(rotation, mat4.scaling([2, 1, 0.25]))), // non-uniform scale
  mat4.multiply(mat4.translation([1, 2, 3]), mat4.multiply(rotation, mat4.uniformScaling(1.5))), // rotation × uniform scale
  mat4.rotationZ(Math.PI / 2),
  mat4.multiply(mat4.translation([0, 1, 0]), mat4.rotationX(-0.7)),
  // Finite but wild: only ever used with weight 0, where it must not contribute.
  Float32Array.from({ length: 16 }, (_, i) => 1e6 * (i + 1)),
  mat4.multiply(mat4.scaling([1, -1, 1]), mat4.rotationY(0.4)), // a mirror with rotation
];
const PALETTE = Float64Array.from(PALETTE_MATRICES.flatMap((m) => Array.from(m)));

interface Case {
  name: string;
  paletteOffset: number;
  joints: number[]; // 4 or 8
  weights: number[];
  exact: boolean;
  position: [number, number, number];
  normal: [number, number, number];
  tangent: [number, number, number, number];
  /** A value known independently of the CPU code, where there is one. */
  expectNormal?: [number, number, number];
}

const n0 = (() => { const l = Math.hypot(0.3, -0.5, 0.8); return [0.3 / l, -0.5 / l, 0.8 / l] as [number, number, number]; })();
const t0 = (() => { const l = Math.hypot(0.8, 0.6, 0.1); return [0.8 / l, 0.6 / l, 0.1 / l, -1] as [number, number, number, number]; })();
const base = { position: [0.25, -1.5, 0.75] as [number, number, number], normal: n0, tangent: t0, exact: true, paletteOffset: 0 };

const CASES: Case[] = [
  { ...base, name: 'identity', joints: [0, 0, 0, 0], weights: [1, 0, 0, 0], expectNormal: n0 },
  // A mirror in x: the cofactor path with the sign fix maps normals like the surface, (−x, y, z).
  { ...base, name: 'mirror', joints: [1, 0, 0, 0], weights: [1, 0, 0, 0], expectNormal: [-n0[0], n0[1], n0[2]] },
  { ...base, name: 'mirror with rotation', joints: [3, 0, 0, 0], weights: [1, 0, 0, 0], paletteOffset: 4 },
  { ...base, name: 'non-uniform scale', joints: [2, 0, 0, 0], weights: [1, 0, 0, 0] },
  { ...base, name: 'non-uniform scale blended with a mirror', joints: [2, 1, 3, 0], weights: [0.5, 0.3, 0.2, 0] },
  // Weights that do not sum to 1 (quantised or sloppy files): the shader divides by the sum,
  // as the loader renormalises for the CPU. (All-zero weights never reach the GPU: the loader repairs them.)
  { ...base, name: 'weights summing to 0.3', joints: [2, 1, 0, 0], weights: [0.2, 0.1, 0, 0] },
  { ...base, name: '8 weights summing to 1.6', joints: [0, 1, 2, 3, 3, 2, 1, 0], weights: [0.2, 0.1, 0.4, 0.1, 0.3, 0.1, 0.2, 0.2] },
  { ...base, name: 'zero weight on a wild matrix', joints: [2, 0, 1, 3], weights: [0, 0.5, 0.5, 0], paletteOffset: 4 },
  { ...base, name: 'palette offset', joints: [0, 1, 0, 0], weights: [0.25, 0.75, 0, 0], paletteOffset: 4 },
  { ...base, name: '8 influences', joints: [0, 1, 2, 3, 3, 2, 1, 0], weights: [0.1, 0.05, 0.2, 0.15, 0.1, 0.2, 0.05, 0.15] },
  { ...base, name: '8 influences, second set only', joints: [2, 2, 2, 2, 0, 1, 3, 1], weights: [0, 0, 0, 0, 0.4, 0.1, 0.3, 0.2], paletteOffset: 4 },
  // exactNormals=false: the 3×3 itself. Equal to the cofactor path for rotation × uniform scale…
  { ...base, name: 'linear normals, rotation × uniform scale', joints: [3, 0, 0, 0], weights: [1, 0, 0, 0], exact: false },
  // …and the plain 3×3 (compared with linearNormal below) under non-uniform scale.
  { ...base, name: 'linear normals, non-uniform scale', joints: [2, 0, 0, 0], weights: [1, 0, 0, 0], exact: false },
];

/** The CPU reference for one vertex: cpu-skin.ts on a one-vertex primitive. */
function cpuFrame(c: Case): { position: Float64Array; normal: Float64Array; tangent: Float64Array } {
  const prim = {
    vertexCount: 1,
    positions: Float32Array.from(c.position),
    normals: Float32Array.from(c.normal),
    tangents: Float32Array.from(c.tangent),
    joints: Uint16Array.from(c.joints),
    // The loader hands the CPU renormalised weights.
    weights: Float32Array.from(c.weights.map((w) => w / c.weights.reduce((a, b) => a + b, 0))),
    influences: c.joints.length as 4 | 8,
  } as unknown as Primitive;
  const out = skinPrimitive(prim, PALETTE, createSkinnedVertices(prim, 'float64'), c.paletteOffset);
  return { position: out.positions as Float64Array, normal: out.normals as Float64Array, tangent: out.tangents as Float64Array };
}

/** normalize(M₃ₓ₃ · n): what exactNormals=false computes. */
function linearNormal(m: Float64Array, n: readonly number[]): number[] {
  const r = [0, 1, 2].map((k) => m[k] * n[0] + m[4 + k] * n[1] + m[8 + k] * n[2]);
  const l = Math.hypot(r[0], r[1], r[2]);
  return l > 0 ? r.map((x) => x / l) : [0, 0, 0];
}

// ---------------------------------------------------------------------------------------
// A compute shader that calls the shared functions once per case.

const HARNESS_WGSL = /* wgsl */ `
struct Case {
  joints0: vec4u,
  joints1: vec4u,
  weights0: vec4f,
  weights1: vec4f,
  position: vec4f,
  normal: vec4f,
  tangent: vec4f,
  paletteOffset: u32,
  eight: u32,
  exact: u32,
  pad: u32,
}
struct Result {
  matrix: mat4x4f,
  position: vec4f,
  normal: vec4f,
  tangent: vec4f,
}
${PALETTE_DECLARATION}
@group(0) @binding(1) var<storage, read> cases: array<Case>;
@group(0) @binding(2) var<storage, read_write> results: array<Result>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let c = cases[id.x];
  var m: mat4x4f;
  if (c.eight == 1u) {
    m = blendJointMatrices8(c.paletteOffset, c.joints0, c.weights0, c.joints1, c.weights1);
  } else {
    m = blendJointMatrices(c.paletteOffset, c.joints0, c.weights0);
  }
  let f = skinFrame(m, c.position.xyz, c.normal.xyz, c.tangent, c.exact == 1u);
  results[id.x] = Result(m, vec4f(f.position, 1.0), vec4f(f.normal, 0.0), f.tangent);
}
${skinningWgsl}`;

const CASE_BYTES = 128;
const RESULT_BYTES = 112;

async function runHarness(device: GPUDevice, cases: readonly Case[]) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label: 'skinning harness', code: HARNESS_WGSL });
  const pipeline = await device.createComputePipelineAsync({ label: 'skinning harness', layout: 'auto', compute: { module, entryPoint: 'main' } });

  const data = new ArrayBuffer(cases.length * CASE_BYTES);
  cases.forEach((c, i) => {
    const u = new Uint32Array(data, i * CASE_BYTES, CASE_BYTES / 4);
    const f = new Float32Array(data, i * CASE_BYTES, CASE_BYTES / 4);
    for (let k = 0; k < 8; k++) {
      u[k] = c.joints[k] ?? 0;
      f[8 + k] = c.weights[k] ?? 0;
    }
    f.set(c.position, 16);
    f.set(c.normal, 20);
    f.set(c.tangent, 24);
    u[28] = c.paletteOffset;
    u[29] = c.joints.length === 8 ? 1 : 0;
    u[30] = c.exact ? 1 : 0;
  });
  const palette = device.createBuffer({ label: 'harness palette', size: PALETTE.length * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(palette, 0, Float32Array.from(PALETTE));
  const input = device.createBuffer({ label: 'harness cases', size: data.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(input, 0, data);
  const output = device.createBuffer({ label: 'harness results', size: cases.length * RESULT_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const readback = device.createBuffer({ label: 'harness readback', size: output.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const bindGroup = device.createBindGroup({
    label: 'harness bind group',
    layout: pipeline.getBindGroupLayout(0),
    entries: [palette, input, output].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const encoder = device.createCommandEncoder({ label: 'harness' });
  const pass = encoder.beginComputePass({ label: 'harness' });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(cases.length);
  pass.end();
  encoder.copyBufferToBuffer(output, 0, readback, 0, output.size);
  device.queue.submit([encoder.finish({ label: 'harness' })]);
  const error = await device.popErrorScope();
  if (error) throw new Error(error.message);

  await readback.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(readback.getMappedRange().slice(0));
  for (const b of [palette, input, output, readback]) b.destroy();
  return cases.map((_, i) => {
    const r = out.subarray((i * RESULT_BYTES) / 4, ((i + 1) * RESULT_BYTES) / 4);
    return { matrix: r.subarray(0, 16), position: r.subarray(16, 19), normal: r.subarray(20, 23), tangent: r.subarray(24, 28) };
  });
}
