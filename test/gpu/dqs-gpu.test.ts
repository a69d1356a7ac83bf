/**
 * Dual-quaternion skinning on the GPU: the WGSL `DqJoint` struct against its TS layout,
 * and `bakeModelGpu(..., { skinning: 'dual-quaternion' })` against the CPU reference
 * (src/skin/dqs.ts) on every shared asset and the code-built chain, at the tolerances the
 * linear bake is held to.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import preskinWgsl from '../../shaders/preskin.wgsl?raw';
import { DQ_JOINT_FLOATS, DqJointFloat, dqPaletteFromMatrices } from '../../src/anim/dq-palette.ts';
import { bakeModel, type BakeOptions, type BakeResult } from '../../src/bake/bake.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { PALETTE_MATRIX_BYTES } from '../../src/gpu/layouts/bindings.ts';
import { MESH_SHADER_SOURCE } from '../../src/gpu/pipelines/mesh.ts';
import { preskinPipeline, type PreskinVariant } from '../../src/gpu/draw/preskin.ts';
import { compilationErrors } from '../../src/gpu/device/shader-module.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { createSkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { skinPrimitiveDq } from '../../src/skin/dqs.ts';
import { buildChain, type ChainOptions } from '../support/fixtures.ts';
import { runBuiltBake } from '../support/bake-cli.ts';
import { useTestDevice } from '../support/webgpu.ts';
import { bakeErrorTable, compareBakes, describeGpuBakeOnSharedAssets, noErrors } from '../support/compare-bakes.ts';
import { runComputeCases } from './compute-harness.ts';
import { screamingSnake, structLayout } from './wgsl-layout.ts';

const gpu = useTestDevice('dqs gpu tests');

const DQS: BakeOptions = { skinning: 'dual-quaternion' };

describe('WGSL DqJoint ↔ src/anim/dq-palette.ts', () => {
  it('field offsets and size match DqJointFloat; one entry is one palette matrix', () => {
    const layout = structLayout(skinningWgsl, 'DqJoint');
    expect(Object.fromEntries(layout.fields.map((f) => [screamingSnake(f.name), f.offset]))).toEqual(
      Object.fromEntries(Object.entries(DqJointFloat).map(([k, v]) => [k, v * 4])),
    );
    expect(layout.size).toBe(DQ_JOINT_FLOATS * 4);
    expect(layout.size).toBe(PALETTE_MATRIX_BYTES);
    // The WGSL reads an entry from a jointPalette slot column by column, in field order.
    expect(skinningWgsl).toMatch(/return DqJoint\(slot\[0\], slot\[1\], slot\[2\], slot\[3\]\);/);
  });

  it('preskin.wgsl (the compute pass of the Renderer and the GPU bake) selects the DQ path by a pipeline constant and reuses skinning.wgsl for it', () => {
    expect(preskinWgsl).toMatch(/override DUAL_QUATERNION: bool = false;/);
    expect(preskinWgsl).not.toMatch(/fn\s+(blendDualQuats|blendDualQuats8|skinFrameDq)\s*\(/);
    expect(preskinWgsl).toMatch(/skinFrameDq\(/);
  });
});

describe('the DQ pipeline', () => {
  it('the mesh shader (which includes skinning.wgsl) still compiles; the DQ compute pipeline is cached per device', async (ctx) => {
    const device = gpu.device(ctx);
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ label: 'mesh (dqs compile check)', code: MESH_SHADER_SOURCE });
    expect(await device.popErrorScope()).toBeNull();
    expect(await compilationErrors(module)).toEqual([]);
    const variant: PreskinVariant = { influenceSets: 1, morphed: false };
    const dq = await preskinPipeline(device, 'dual-quaternion', variant);
    expect(await preskinPipeline(device, 'dual-quaternion', { ...variant })).toBe(dq);
    expect(await preskinPipeline(device, 'linear', variant)).not.toBe(dq);
  });

  it('an unknown skinning method is refused before any GPU work', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltf(buildChain(), { name: 'chain' });
    await expect(bakeModelGpu(device, model, { skinning: 'spherical' as never })).rejects.toThrow(/skinning "spherical" must be linear, dual-quaternion or center-of-rotation/);
  });
});

// ---------------------------------------------------------------------------------------
// blendDualQuats / blendDualQuats8 / skinFrameDq on hand-picked vertices, through a compute
// shader that calls them once per case, against src/skin/dqs.ts.

/** A unit quaternion about `axis` in double precision. */
const axisAngle = (axis: number[], degrees: number) => {
  const len = Math.hypot(axis[0], axis[1], axis[2]), half = (degrees * Math.PI) / 360;
  const k = Math.sin(half) / len;
  return [axis[0] * k, axis[1] * k, axis[2] * k, Math.cos(half)];
};
const HARNESS_MATRICES: [number[], number[], number[]][] = [
  [[0, 0, 0], [0, 0, 0, 1], [1, 1, 1]],
  [[0, 0, 0], axisAngle([0, 0, 1], 200), [1, 1, 1]], // 200°: on joint 0's hemisphere that is −160°
  [[0, 0, 0], axisAngle([1, 0, 0], 180), [1, 1, 1]], // orthogonal to both: a wrong pivot flips nothing
  [[0.5, -1, 2], axisAngle([1, 2, 3], 50), [2, 1, 0.25]], // non-uniform scale
  [[1, 2, 3], axisAngle([0, 1, 1], 120), [-1, 1.5, 1]], // a mirror
  [[0, 1, 0], axisAngle([1, 0, 0], -40), [1, 1, 1]],
];
const HARNESS_PALETTE = (() => {
  const m = new Float64Array(HARNESS_MATRICES.length * 16);
  HARNESS_MATRICES.forEach(([t, r, sc], i) => composeTRS(t, r, sc, m, 0, 0, 0, i * 16));
  return dqPaletteFromMatrices(m, HARNESS_MATRICES.length, new Float64Array(m.length)) as Float64Array;
})();

interface DqCase { name: string; paletteOffset: number; joints: number[]; weights: number[] }
const DQ_CASES: DqCase[] = [
  { name: 'one joint', paletteOffset: 0, joints: [3, 0, 0, 0], weights: [1, 0, 0, 0] },
  { name: 'zero-weight slot first: it must not pick the hemisphere', paletteOffset: 0, joints: [2, 0, 1, 2], weights: [0, 0.5, 0.5, 0] },
  { name: 'scale, mirror and rotations', paletteOffset: 0, joints: [3, 4, 5, 1], weights: [0.4, 0.3, 0.2, 0.1] },
  { name: 'weights summing to 0.3', paletteOffset: 0, joints: [3, 5, 0, 0], weights: [0.2, 0.1, 0, 0] },
  { name: 'palette offset', paletteOffset: 2, joints: [1, 3, 0, 0], weights: [0.25, 0.75, 0, 0] },
  { name: '8 influences', paletteOffset: 0, joints: [0, 1, 2, 3, 4, 5, 1, 0], weights: [0.1, 0.05, 0.2, 0.15, 0.1, 0.2, 0.05, 0.15] },
  { name: '8 influences, second set only: the pivot comes from it', paletteOffset: 0, joints: [2, 2, 2, 2, 2, 0, 1, 3], weights: [0, 0, 0, 0, 0, 0.5, 0.4, 0.1] },
];
const HARNESS_POSITION = [0.8, -0.3, 0.4], HARNESS_NORMAL = [0.48, 0.6, 0.64], HARNESS_TANGENT = [0.6, -0.8, 0, -1];

const DQ_HARNESS_WGSL = /* wgsl */ `
struct Case { joints0: vec4u, joints1: vec4u, weights0: vec4f, weights1: vec4f, paletteOffset: u32, eight: u32 }
struct Result { position: vec4f, normal: vec4f, tangent: vec4f }
@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> cases: array<Case>;
@group(0) @binding(2) var<storage, read_write> results: array<Result>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let c = cases[id.x];
  var b: DqBlend;
  if (c.eight == 1u) {
    b = blendDualQuats8(c.paletteOffset, c.joints0, c.weights0, c.joints1, c.weights1);
  } else {
    b = blendDualQuats(c.paletteOffset, c.joints0, c.weights0);
  }
  let f = skinFrameDq(b, vec3f(${HARNESS_POSITION.join(', ')}), vec3f(${HARNESS_NORMAL.join(', ')}), vec4f(${HARNESS_TANGENT.join(', ')}));
  results[id.x] = Result(vec4f(f.position, 1.0), vec4f(f.normal, 0.0), f.tangent);
}
${skinningWgsl}`;
const DQ_CASE_BYTES = 80, DQ_RESULT_BYTES = 48;

async function runDqHarness(device: GPUDevice): Promise<Float32Array[]> {
  const data = new ArrayBuffer(DQ_CASES.length * DQ_CASE_BYTES);
  DQ_CASES.forEach((c, i) => {
    const u = new Uint32Array(data, i * DQ_CASE_BYTES, DQ_CASE_BYTES / 4), f = new Float32Array(data, i * DQ_CASE_BYTES, DQ_CASE_BYTES / 4);
    for (let k = 0; k < 8; k++) { u[k] = c.joints[k] ?? 0; f[8 + k] = c.weights[k] ?? 0; }
    u[16] = c.paletteOffset;
    u[17] = c.joints.length === 8 ? 1 : 0;
  });
  return runComputeCases(device, 'dq harness', DQ_HARNESS_WGSL, Float32Array.from(HARNESS_PALETTE), data, DQ_CASES.length, DQ_RESULT_BYTES);
}

describe('blendDualQuats / blendDualQuats8 / skinFrameDq', () => {
  it('agree with src/skin/dqs.ts on hand-picked vertices', async (ctx) => {
    const device = gpu.device(ctx);
    const results = await runDqHarness(device);
    DQ_CASES.forEach((c, i) => {
      const sum = c.weights.reduce((a, b) => a + b, 0);
      const prim = {
        vertexCount: 1, influences: c.joints.length, joints: Uint16Array.from(c.joints),
        // The loader hands the CPU renormalised weights; the shader divides by the sum itself.
        weights: Float32Array.from(c.weights, (w) => w / sum),
        positions: Float32Array.from(HARNESS_POSITION), normals: Float32Array.from(HARNESS_NORMAL), tangents: Float32Array.from(HARNESS_TANGENT),
      } as unknown as Primitive;
      const cpu = skinPrimitiveDq(prim, HARNESS_PALETTE, createSkinnedVertices(prim, 'float64'), c.paletteOffset);
      const r = results[i];
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(r[k] - cpu.positions[k]), `${c.name}: position[${k}] ${r[k]} vs ${cpu.positions[k]}`).toBeLessThan(1e-5);
        expect(Math.abs(r[4 + k] - cpu.normals![k]), `${c.name}: normal[${k}]`).toBeLessThan(1e-5);
        expect(Math.abs(r[8 + k] - cpu.tangents![k]), `${c.name}: tangent[${k}]`).toBeLessThan(1e-5);
      }
      expect(r[11], `${c.name}: tangent w`).toBe(HARNESS_TANGENT[3]);
    });
    // The padding case, known independently: the half blend of 0° and −160° about z is −80°.
    const a = (-80 * Math.PI) / 180, p = HARNESS_POSITION;
    const padded = results[1];
    expect(Math.abs(padded[0] - (p[0] * Math.cos(a) - p[1] * Math.sin(a)))).toBeLessThan(1e-5);
    expect(Math.abs(padded[1] - (p[0] * Math.sin(a) + p[1] * Math.cos(a)))).toBeLessThan(1e-5);
  });
});


const measured = bakeErrorTable('DQS GPU vs CPU bake');
describeGpuBakeOnSharedAssets('bakeModelGpu (dual-quaternion) matches bakeModel (dual-quaternion) on every shared asset', gpu, DQS, measured);

describe('bakeModelGpu (dual-quaternion) matches bakeModel (dual-quaternion) on the code-built chain', () => {
  const cases: [string, ChainOptions][] = [
    ['4 influences, float weights', {}],
    ['8 influences', { eightInfluences: true }],
    ['u8 weights', { weights: 'u8' }],
    ['u16 weights', { weights: 'u16' }],
    ['tangents', { tangents: true }],
    ['non-uniform scale', { nonUniformScale: true, tangents: true }],
    ['CUBICSPLINE', { interpolation: 'CUBICSPLINE', nonUniformScale: true }],
    ['children-first joints', { childrenFirst: true }],
    ['transformed mesh node', { transformedMeshNode: true }],
    ['everything at once', {
      eightInfluences: true, joints: 'u8', weights: 'u16', tangents: true, nonUniformScale: true,
      interpolation: 'CUBICSPLINE', childrenFirst: true, transformedMeshNode: true,
    }],
  ];
  for (const [name, options] of cases) {
    it(name, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltf(buildChain(options), { name: `chain: ${name}` });
      const errors = noErrors();
      for (const time of [0, 0.4, 1.3, 2]) {
        compareBakes(bakeModel(model, { ...DQS, time }), await bakeModelGpu(device, model, { ...DQS, time }), `${name} t=${time}`, errors);
      }
      measured.set(`chain: ${name}`, errors);
    });
  }

  it('twist-cylinder: GPU = CPU while twisting, and the GPU keeps the mid ring\'s radius at 180°', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'twist-cylinder' });
    const errors = noErrors();
    // Not at exactly 180°: there the two joints' quaternions are orthogonal, and the hemisphere
    // test dot = ±1e-17 may fall either way in float32 and float64 (both ±90° are right).
    for (const time of [0.3, 1, 1.7]) {
      compareBakes(bakeModel(model, { ...DQS, time }), await bakeModelGpu(device, model, { ...DQS, time }), `twist-cylinder t=${time}`, errors);
    }
    measured.set('builtin: twist-cylinder', errors);
    const prim = model.meshes[0].primitives[0];
    const ring: number[] = [];
    for (let v = 0; v < prim.vertexCount; v++) {
      if (Math.abs(prim.positions[v * 3 + 1] - 1) < 1e-6 && Math.abs(Math.hypot(prim.positions[v * 3], prim.positions[v * 3 + 2]) - 0.25) < 1e-6) ring.push(v);
    }
    const radius = (positions: Float64Array) => ring.reduce((s, v) => s + Math.hypot(positions[v * 3], positions[v * 3 + 2]), 0) / ring.length;
    expect(radius((await bakeModelGpu(device, model, { ...DQS, time: 2 })).primitives[0].positions) / 0.25).toBeGreaterThanOrEqual(0.9);
    expect(radius((await bakeModelGpu(device, model, { time: 2 })).primitives[0].positions) / 0.25).toBeLessThan(0.1);
  });
});

describe('bake CLI --skinning dual-quaternion --backend gpu', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'dqs-gpu-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes the JSON of the CPU dual-quaternion bake, within the GPU tolerance', async (ctx) => {
    gpu.device(ctx);
    const out = join(tmp, 'twist.json');
    const run = await runBuiltBake(['--builtin', 'twist-cylinder', '--time', '1.3', '--skinning', 'dual-quaternion', '--backend', 'gpu', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'builtin:twist-cylinder' });
    const cpu = bakeModel(model, { ...DQS, time: 1.3 });
    expect(json).toMatchObject({ asset: 'builtin:twist-cylinder', time: 1.3 });
    const got: BakeResult = {
      ...cpu,
      primitives: json.primitives.map((p: Record<string, number[] | number>, i: number) => ({
        ...cpu.primitives[i],
        positions: Float64Array.from(p.POSITION as number[]),
        normals: p.NORMAL ? Float64Array.from(p.NORMAL as number[]) : undefined,
        tangents: p.TANGENT ? Float64Array.from(p.TANGENT as number[]) : undefined,
      })),
    };
    compareBakes(cpu, got, 'CLI twist-cylinder t=1.3', noErrors());
  });
});
