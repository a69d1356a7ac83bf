/**
 * How far the cheap normal path (blended 3×3 · n) is from the exact one (cofactor · n,
 * what src/skin/cpu-skin.ts does) on real assets. A weighted sum of two different
 * rotations is not a rotation, so blended vertices differ even without any scale; the
 * renderer therefore defaults to exact normals (SkinnedNormalMode 'exact').
 *
 * The CPU half measures every blended vertex over every clip; the GPU half runs the
 * shared skinning.wgsl both ways on CesiumMan and checks the exact path against the
 * CPU reference and the cheap path's error against the CPU measurement.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import type { Model, Primitive } from '../../src/gltf/model.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';
import { assetPath } from '../support/assets.ts';
import { expectNoGpuErrors, loadModel, testDevice } from './gpu-test.ts';

const SAMPLES_PER_CLIP = 12;
const DEG = 180 / Math.PI;
/** Above this the cheap path is not an acceptable default (the brief's bar). */
const ACCEPTABLE_DEGREES = 0.05;

interface Stats { vertices: number; max: number; p99: number; mean: number }

/** Angle (degrees) between the fast and exact skinned normal of vertex v. */
function pathAngle(p: Primitive, palette: Float32Array, base: number, v: number): number {
  const inf = p.influences;
  const m = new Float64Array(9);
  for (let i = 0; i < inf; i++) {
    const w = p.weights![v * inf + i];
    if (w === 0) continue;
    const o = (base + p.joints![v * inf + i]) * 16;
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) m[c * 3 + r] += w * palette[o + c * 4 + r];
  }
  const nx = p.normals![v * 3], ny = p.normals![v * 3 + 1], nz = p.normals![v * 3 + 2];
  const fx = m[0] * nx + m[3] * ny + m[6] * nz;
  const fy = m[1] * nx + m[4] * ny + m[7] * nz;
  const fz = m[2] * nx + m[5] * ny + m[8] * nz;
  // Cofactor columns b×c, c×a, a×b with a, b, c the columns of m.
  const [ax, ay, az, bx, by, bz, cx, cy, cz] = m;
  const c0 = [by * cz - bz * cy, bz * cx - bx * cz, bx * cy - by * cx];
  const c1 = [cy * az - cz * ay, cz * ax - cx * az, cx * ay - cy * ax];
  const c2 = [ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx];
  const sign = ax * c0[0] + ay * c0[1] + az * c0[2] < 0 ? -1 : 1;
  const ex = sign * (c0[0] * nx + c1[0] * ny + c2[0] * nz);
  const ey = sign * (c0[1] * nx + c1[1] * ny + c2[1] * nz);
  const ez = sign * (c0[2] * nx + c1[2] * ny + c2[2] * nz);
  const lf = Math.hypot(fx, fy, fz), le = Math.hypot(ex, ey, ez);
  if (lf === 0 || le === 0) return 0;
  const cos = Math.min(1, Math.max(-1, (fx * ex + fy * ey + fz * ez) / (lf * le)));
  return Math.acos(cos) * DEG;
}

function blended(p: Primitive, v: number): boolean {
  let n = 0;
  for (let i = 0; i < p.influences; i++) if (p.weights![v * p.influences + i] > 0) n++;
  return n >= 2;
}

function measure(model: Model): Stats {
  const instance = createModelInstance(model);
  const angles: number[] = [];
  const clips = model.animations.length;
  for (let clip = 0; clip < clips; clip++) {
    for (let s = 0; s < SAMPLES_PER_CLIP; s++) {
      updateModelInstance(instance, clip, (model.animations[clip].duration * (s + 0.5)) / SAMPLES_PER_CLIP);
      model.meshNodes.forEach((mn, i) => {
        const base = instance.paletteOffsets[i];
        if (base < 0) return;
        for (const p of model.meshes[mn.mesh].primitives) {
          if (!p.normals || p.influences === 0) continue;
          for (let v = 0; v < p.vertexCount; v++) if (blended(p, v)) angles.push(pathAngle(p, instance.palette, base, v));
        }
      });
    }
  }
  angles.sort((a, b) => a - b);
  const n = angles.length;
  return { vertices: n, max: angles[n - 1] ?? 0, p99: angles[Math.floor(n * 0.99)] ?? 0, mean: angles.reduce((a, b) => a + b, 0) / Math.max(1, n) };
}

const ASSETS = ['CesiumMan', 'RiggedFigure', 'RiggedSimple', 'RobotExpressive'];

describe('fast vs exact skinned normals (CPU measurement over every clip)', () => {
  const rows: string[] = [];
  for (const name of [...ASSETS, 'builtin character']) {
    it(`${name}: blended vertices' normals differ by more than ${ACCEPTABLE_DEGREES}°`, async () => {
      const bytes = name === 'builtin character' ? buildBuiltinGlb('character') : new Uint8Array(readFileSync(assetPath(name)));
      const stats = measure(await loadModel(bytes, name));
      rows.push(`${name.padEnd(18)} samples ${String(stats.vertices).padStart(7)}  max ${stats.max.toFixed(2)}°  p99 ${stats.p99.toFixed(2)}°  mean ${stats.mean.toFixed(3)}°`);
      process.stdout.write(`normal paths: ${rows[rows.length - 1]}\n`);
      expect(stats.vertices).toBeGreaterThan(0);
      // The finding behind 'exact' as the default: far beyond the acceptable difference.
      expect(stats.max).toBeGreaterThan(ACCEPTABLE_DEGREES);
    });
  }
});

const device = await testDevice();

/** skinFrame both ways for every vertex of one primitive; normals out as vec4f (exact xyz, then fast xyz). */
const PROBE_WGSL = `${skinningWgsl}
@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read> normals: array<f32>;
@group(0) @binding(3) var<storage, read> joints: array<u32>;
@group(0) @binding(4) var<storage, read> weights: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> result: array<vec4f>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let v = id.x;
  if (v >= arrayLength(&weights)) { return; }
  let packed = joints[v * 2u];
  let packed2 = joints[v * 2u + 1u];
  let j = vec4u(packed & 0xffffu, packed >> 16u, packed2 & 0xffffu, packed2 >> 16u);
  let m = blendJointMatrices(0u, j, weights[v]);
  let p = vec3f(positions[v * 3u], positions[v * 3u + 1u], positions[v * 3u + 2u]);
  let n = vec3f(normals[v * 3u], normals[v * 3u + 1u], normals[v * 3u + 2u]);
  let t = vec4f(1.0, 0.0, 0.0, 1.0);
  result[v * 2u] = vec4f(skinFrame(m, p, n, t, true).normal, 0.0);
  result[v * 2u + 1u] = vec4f(skinFrame(m, p, n, t, false).normal, 0.0);
}`;

describe.skipIf(!device)('fast vs exact skinned normals on the GPU (shaders/skinning.wgsl)', () => {
  const gpu = device!;
  it('CesiumMan: exact matches the CPU reference; fast differs as measured on the CPU', async () => {
    const model = await loadModel(new Uint8Array(readFileSync(assetPath('CesiumMan'))), 'CesiumMan');
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, model.animations[0].duration * 0.37);
    const p = model.meshes[model.meshNodes[0].mesh].primitives[0];
    const reference = skinPrimitive(p, instance.palette, createSkinnedVertices(p, 'float64'), instance.paletteOffsets[0]);
    const n = p.vertexCount;
    const joints = new Uint32Array(n * 2);
    for (let v = 0; v < n; v++) {
      joints[v * 2] = p.joints![v * 4] | (p.joints![v * 4 + 1] << 16);
      joints[v * 2 + 1] = p.joints![v * 4 + 2] | (p.joints![v * 4 + 3] << 16);
    }
    const out = await expectNoGpuErrors(gpu, async () => {
      const storage = (label: string, data: ArrayBufferView) => {
        const b = gpu.createBuffer({ label, size: Math.ceil(data.byteLength / 16) * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
        gpu.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
        return b;
      };
      const palette = instance.palette.subarray(instance.paletteOffsets[0] * 16);
      const inputs = [
        storage('palette', palette), storage('positions', p.positions), storage('normals', p.normals!),
        storage('joints', joints), gpu.createBuffer({ label: 'weights', size: n * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }),
      ];
      gpu.queue.writeBuffer(inputs[4], 0, p.weights!);
      const result = gpu.createBuffer({ label: 'normals out', size: n * 32, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const readback = gpu.createBuffer({ label: 'normals readback', size: n * 32, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const module = gpu.createShaderModule({ label: 'normal paths probe', code: PROBE_WGSL });
      const pipeline = gpu.createComputePipeline({ label: 'normal paths probe', layout: 'auto', compute: { module, entryPoint: 'main' } });
      const bindGroup = gpu.createBindGroup({
        label: 'normal paths probe', layout: pipeline.getBindGroupLayout(0),
        entries: [...inputs, result].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      const encoder = gpu.createCommandEncoder({ label: 'normal paths probe' });
      const pass = encoder.beginComputePass({ label: 'normal paths probe' });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(Math.ceil(n / 64));
      pass.end();
      encoder.copyBufferToBuffer(result, 0, readback, 0, n * 32);
      gpu.queue.submit([encoder.finish()]);
      await readback.mapAsync(GPUMapMode.READ);
      const data = new Float32Array(readback.getMappedRange().slice(0));
      readback.unmap();
      for (const b of [...inputs, result, readback]) b.destroy();
      return data;
    });
    let exactWorst = 0, fastWorst = 0, cpuFastWorst = 0;
    for (let v = 0; v < n; v++) {
      const r = [reference.normals![v * 3], reference.normals![v * 3 + 1], reference.normals![v * 3 + 2]];
      const angle = (o: number) => Math.acos(Math.min(1, out[o] * r[0] + out[o + 1] * r[1] + out[o + 2] * r[2])) * DEG;
      exactWorst = Math.max(exactWorst, angle(v * 8));
      fastWorst = Math.max(fastWorst, angle(v * 8 + 4));
      cpuFastWorst = Math.max(cpuFastWorst, pathAngle(p, instance.palette, instance.paletteOffsets[0], v));
    }
    process.stdout.write(`normal paths on the GPU (CesiumMan, one frame): exact vs CPU max ${exactWorst.toFixed(4)}°, fast vs CPU max ${fastWorst.toFixed(2)}° (CPU-measured fast ${cpuFastWorst.toFixed(2)}°)\n`);
    expect(exactWorst).toBeLessThan(0.05);
    expect(Math.abs(fastWorst - cpuFastWorst)).toBeLessThan(0.05);
    expect(fastWorst).toBeGreaterThan(ACCEPTABLE_DEGREES);
  });
});
