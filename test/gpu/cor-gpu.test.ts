/**
 * Centre-of-rotation skinning on the GPU: the WGSL `blendCentersOfRotation` / `skinFrameCor`
 * against src/skin/cor.ts on hand-picked vertices, and `bakeModelGpu(..., { skinning:
 * 'center-of-rotation' })` (the Renderer's compute pass, with the model's centres in a storage
 * buffer) against the CPU bake on every shared asset at three clip times and on the code-built
 * chain, at the tolerances the other two methods are held to. The Renderer's vertex path is
 * held to the compute path's image in test/gpu/draw/preskin.test.ts (every method).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import preskinWgsl from '../../shaders/preskin.wgsl?raw';
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import { dqPaletteFromMatrices } from '../../src/anim/dq-palette.ts';
import { bakeModel, type BakeOptions, type BakeResult } from '../../src/bake/bake.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { MESH_SHADER_SOURCE } from '../../src/gpu/pipelines/mesh.ts';
import { preskinPipeline, type PreskinVariant } from '../../src/gpu/draw/preskin.ts';
import { compilationErrors } from '../../src/gpu/device/shader-module.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { skinPrimitiveCor } from '../../src/skin/cor.ts';
import { createSkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { bakeErrorTable, compareBakes, describeGpuBakeOnSharedAssets, noErrors, poses } from '../support/compare-bakes.ts';
import { axisAngle } from '../support/cylinders.ts';
import { buildChain, type ChainOptions } from '../support/fixtures.ts';
import { ourLines, runBuiltBake } from '../support/bake-cli.ts';
import { useTestDevice } from '../support/webgpu.ts';
import { runComputeCases } from './compute-harness.ts';

const gpu = useTestDevice('centre-of-rotation gpu tests');

const COR: BakeOptions = { skinning: 'center-of-rotation' };

describe('the centre-of-rotation WGSL', () => {
  it('preskin.wgsl selects it by a pipeline constant and reuses skinning.wgsl; the mesh shader compiles; compute pipelines are cached per method', async (ctx) => {
    expect(preskinWgsl).toMatch(/override CENTER_OF_ROTATION: bool = false;/);
    expect(preskinWgsl).not.toMatch(/fn\s+(blendCentersOfRotation|blendCentersOfRotation8|skinFrameCor)\s*\(/);
    expect(preskinWgsl).toMatch(/skinFrameCor\(/);
    const device = gpu.device(ctx);
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ label: 'mesh (centre-of-rotation compile check)', code: MESH_SHADER_SOURCE });
    expect(await device.popErrorScope()).toBeNull();
    expect(await compilationErrors(module)).toEqual([]);
    const variant: PreskinVariant = { influenceSets: 2, morphed: true };
    const cor = await preskinPipeline(device, 'center-of-rotation', variant);
    expect(await preskinPipeline(device, 'center-of-rotation', { ...variant })).toBe(cor);
    expect(await preskinPipeline(device, 'dual-quaternion', variant)).not.toBe(cor);
  });
});

// ---------------------------------------------------------------------------------------
// blendCentersOfRotation / 8 / skinFrameCor on hand-picked vertices, through a compute shader
// that calls them once per case, against src/skin/cor.ts.

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
  HARNESS_MATRICES.forEach(([t, r, s], i) => composeTRS(t, r, s, m, 0, 0, 0, i * 16));
  return dqPaletteFromMatrices(m, HARNESS_MATRICES.length, new Float64Array(m.length)) as Float64Array;
})();

interface CorCase { name: string; paletteOffset: number; joints: number[]; weights: number[]; center: number[] }
const COR_CASES: CorCase[] = [
  { name: 'one joint, centre far away', paletteOffset: 0, joints: [3, 0, 0, 0], weights: [1, 0, 0, 0], center: [5, -4, 3] },
  { name: 'zero-weight slot first: it must not pick the hemisphere', paletteOffset: 0, joints: [2, 0, 1, 2], weights: [0, 0.5, 0.5, 0], center: [0, 0, 0] },
  { name: 'scale, mirror and rotations', paletteOffset: 0, joints: [3, 4, 5, 1], weights: [0.4, 0.3, 0.2, 0.1], center: [0.2, 0.5, -0.1] },
  { name: 'weights summing to 0.3', paletteOffset: 0, joints: [3, 5, 0, 0], weights: [0.2, 0.1, 0, 0], center: [1, 1, 1] },
  { name: 'palette offset', paletteOffset: 2, joints: [1, 3, 0, 0], weights: [0.25, 0.75, 0, 0], center: [-0.3, 0.1, 0.7] },
  { name: '8 influences', paletteOffset: 0, joints: [0, 1, 2, 3, 4, 5, 1, 0], weights: [0.1, 0.05, 0.2, 0.15, 0.1, 0.2, 0.05, 0.15], center: [0.4, -0.2, 0.1] },
  { name: '8 influences, second set only: the pivot comes from it', paletteOffset: 0, joints: [2, 2, 2, 2, 2, 0, 1, 3], weights: [0, 0, 0, 0, 0, 0.5, 0.4, 0.1], center: [0, 1, 0] },
];
const POSITION = [0.8, -0.3, 0.4], NORMAL = [0.48, 0.6, 0.64], TANGENT = [0.6, -0.8, 0, -1];

const HARNESS_WGSL = /* wgsl */ `
struct Case { joints0: vec4u, joints1: vec4u, weights0: vec4f, weights1: vec4f, center: vec3f, paletteOffset: u32, eight: u32 }
struct Result { position: vec4f, normal: vec4f, tangent: vec4f }
@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> cases: array<Case>;
@group(0) @binding(2) var<storage, read_write> results: array<Result>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let c = cases[id.x];
  var b: CorBlend;
  if (c.eight == 1u) {
    b = blendCentersOfRotation8(c.paletteOffset, c.joints0, c.weights0, c.joints1, c.weights1, c.center);
  } else {
    b = blendCentersOfRotation(c.paletteOffset, c.joints0, c.weights0, c.center);
  }
  let f = skinFrameCor(b, c.center, vec3f(${POSITION.join(', ')}), vec3f(${NORMAL.join(', ')}), vec4f(${TANGENT.join(', ')}));
  results[id.x] = Result(vec4f(f.position, 1.0), vec4f(f.normal, 0.0), f.tangent);
}
${skinningWgsl}`;
/** WGSL `Case`: 4 vec4 (64 bytes), then center vec3f at 64, paletteOffset at 76, eight at 80; size 96. */
const CASE_BYTES = 96, RESULT_BYTES = 48;

async function runHarness(device: GPUDevice): Promise<Float32Array[]> {
  const data = new ArrayBuffer(COR_CASES.length * CASE_BYTES);
  COR_CASES.forEach((c, i) => {
    const u = new Uint32Array(data, i * CASE_BYTES, CASE_BYTES / 4), f = new Float32Array(data, i * CASE_BYTES, CASE_BYTES / 4);
    for (let k = 0; k < 8; k++) { u[k] = c.joints[k] ?? 0; f[8 + k] = c.weights[k] ?? 0; }
    f.set(c.center, 16);
    u[19] = c.paletteOffset;
    u[20] = c.joints.length === 8 ? 1 : 0;
  });
  return runComputeCases(device, 'cor harness', HARNESS_WGSL, Float32Array.from(HARNESS_PALETTE), data, COR_CASES.length, RESULT_BYTES);
}

describe('blendCentersOfRotation / blendCentersOfRotation8 / skinFrameCor', () => {
  it('agree with src/skin/cor.ts on hand-picked vertices', async (ctx) => {
    const device = gpu.device(ctx);
    const results = await runHarness(device);
    COR_CASES.forEach((c, i) => {
      const sum = c.weights.reduce((a, b) => a + b, 0);
      const prim = {
        vertexCount: 1, influences: c.joints.length, joints: Uint16Array.from(c.joints), maxJoint: Math.max(...c.joints),
        // The loader hands the CPU renormalised weights; the shader divides by the sum itself.
        weights: Float32Array.from(c.weights, (w) => w / sum),
        positions: Float32Array.from(POSITION), normals: Float32Array.from(NORMAL), tangents: Float32Array.from(TANGENT),
      } as unknown as Primitive;
      const cpu = skinPrimitiveCor(prim, HARNESS_PALETTE, c.center, createSkinnedVertices(prim, 'float64'), c.paletteOffset);
      const r = results[i];
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(r[k] - cpu.positions[k]), `${c.name}: position[${k}] ${r[k]} vs ${cpu.positions[k]}`).toBeLessThan(1e-5);
        expect(Math.abs(r[4 + k] - cpu.normals![k]), `${c.name}: normal[${k}]`).toBeLessThan(1e-5);
        expect(Math.abs(r[8 + k] - cpu.tangents![k]), `${c.name}: tangent[${k}]`).toBeLessThan(1e-5);
      }
      expect(r[11], `${c.name}: tangent w`).toBe(TANGENT[3]);
    });
    // Known independently: about a centre at the origin, the half blend of 0° and −160° about z is −80°.
    const a = (-80 * Math.PI) / 180, p = POSITION;
    expect(Math.abs(results[1][0] - (p[0] * Math.cos(a) - p[1] * Math.sin(a)))).toBeLessThan(1e-5);
    expect(Math.abs(results[1][1] - (p[0] * Math.sin(a) + p[1] * Math.cos(a)))).toBeLessThan(1e-5);
  });
});

const measured = bakeErrorTable('Centre-of-rotation GPU vs CPU bake');
describeGpuBakeOnSharedAssets('bakeModelGpu (center-of-rotation) matches bakeModel (center-of-rotation) on every shared asset', gpu, COR, measured);

describe('bakeModelGpu (center-of-rotation) matches bakeModel (center-of-rotation) on the code-built chain and the built-in models', () => {
  const cases: [string, ChainOptions][] = [
    ['8 influences, u16 weights', { eightInfluences: true, weights: 'u16' }],
    ['non-uniform scale, tangents, CUBICSPLINE', { nonUniformScale: true, tangents: true, interpolation: 'CUBICSPLINE' }],
    ['transformed mesh node, children-first joints', { transformedMeshNode: true, childrenFirst: true }],
  ];
  for (const [name, options] of cases) {
    it(name, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltf(buildChain(options), { name: `chain: ${name}` });
      const errors = noErrors();
      for (const time of [0, 0.4, 1.3, 2]) {
        compareBakes(bakeModel(model, { ...COR, time }), await bakeModelGpu(device, model, { ...COR, time }), `${name} t=${time}`, errors);
      }
      measured.set(`chain: ${name}`, errors);
    });
  }

  it('twist-cylinder: GPU = CPU while twisting, and the GPU keeps the mid ring\'s radius at 180°', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'twist-cylinder' });
    const errors = noErrors();
    for (const time of [0.3, 1, 1.7]) {
      compareBakes(bakeModel(model, { ...COR, time }), await bakeModelGpu(device, model, { ...COR, time }), `twist-cylinder t=${time}`, errors);
    }
    measured.set('builtin: twist-cylinder', errors);
    const prim = model.meshes[0].primitives[0];
    const ring: number[] = [];
    for (let v = 0; v < prim.vertexCount; v++) {
      if (Math.abs(prim.positions[v * 3 + 1] - 1) < 1e-6 && Math.abs(Math.hypot(prim.positions[v * 3], prim.positions[v * 3 + 2]) - 0.25) < 1e-6) ring.push(v);
    }
    const positions = (await bakeModelGpu(device, model, { ...COR, time: 2 })).primitives[0].positions;
    expect(Math.min(...ring.map((v) => Math.hypot(positions[v * 3], positions[v * 3 + 2]))) / 0.25).toBeGreaterThanOrEqual(0.9);
  });

  // The shared .vrm samples carry no skin: the skinned VRM bodies are the built-in avatars (1.0 and 0.x).
  for (const name of ['vrm-avatar', 'vrm0-avatar']) {
    it(`${name} (a skinned VRM body): every skinned primitive, every clip at 3 times`, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltf(buildBuiltinGlb(name), { name });
      expect(model.vrm).toBeDefined();
      const errors = noErrors();
      for (const pose of poses(model, COR)) compareBakes(bakeModel(model, pose), await bakeModelGpu(device, model, pose), `${name} ${JSON.stringify(pose)}`, errors);
      expect(errors.primitives).toBeGreaterThan(0);
      measured.set(`builtin: ${name}`, errors);
    });
  }
});

describe('bake CLI --skinning center-of-rotation', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cor-gpu-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('CPU and --backend gpu write the JSON of the CPU centre-of-rotation bake, within the GPU tolerance', async (ctx) => {
    gpu.device(ctx);
    const model = await loadGltf(buildBuiltinGlb('limb'), { name: 'builtin:limb' });
    const reference = bakeModel(model, { ...COR, time: 0.6 });
    for (const backend of ['cpu', 'gpu']) {
      const out = join(tmp, `limb-${backend}.json`);
      const run = await runBuiltBake(['--builtin', 'limb', '--time', '0.6', '--skinning', 'center-of-rotation', '--backend', backend, '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      // Dawn's own XDG_RUNTIME_DIR notice is the machine's, not ours.
      expect(ourLines(run.stderr).filter((l) => !l.includes('XDG_RUNTIME_DIR'))).toEqual([]);
      const json = JSON.parse(readFileSync(out, 'utf8'));
      const got: BakeResult = {
        ...reference,
        primitives: json.primitives.map((p: Record<string, number[]>, i: number) => ({
          ...reference.primitives[i], positions: Float64Array.from(p.POSITION), normals: p.NORMAL ? Float64Array.from(p.NORMAL) : undefined,
        })),
      };
      compareBakes(reference, got, `bake --backend ${backend}`, noErrors());
    }
    // The method changes the result: the linear bake is not within that tolerance of it.
    const linear = bakeModel(model, { time: 0.6 });
    expect(() => compareBakes(reference, linear, 'linear vs centres of rotation', noErrors())).toThrow();
  }, 120_000);
});
