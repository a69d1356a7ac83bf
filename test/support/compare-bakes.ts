/**
 * Comparing a GPU bake with the CPU reference at the tolerances the issue sets: positions
 * relative to each primitive's bounding-box diagonal, normals and tangents in degrees,
 * tangent w exactly. Shared by the GPU bake tests of every skinning method.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { bakeModel, type BakeOptions, type BakeResult } from '../../src/bake/bake.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { everySharedModelFile } from './assets.ts';
import type { TestDevice } from './webgpu.ts';

/** Position error relative to the primitive's bounding-box diagonal, and angles in degrees. */
export const POSITION_TOLERANCE = 1e-5;
export const ANGLE_TOLERANCE_DEGREES = 0.05;

export interface BakeErrors {
  position: number;
  normalDegrees: number;
  tangentDegrees: number;
  primitives: number;
  vertices: number;
}

export const noErrors = (): BakeErrors => ({ position: 0, normalDegrees: 0, tangentDegrees: 0, primitives: 0, vertices: 0 });

export function diagonal(positions: Float64Array): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    min[i % 3] = Math.min(min[i % 3], positions[i]);
    max[i % 3] = Math.max(max[i % 3], positions[i]);
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** Angle between the xyz of vertex v in a and b (stride 3 or 4); both must be zero, or neither. */
export function angleDegrees(a: Float64Array, b: Float64Array, stride: number, v: number): number {
  const o = v * stride;
  const ax = a[o], ay = a[o + 1], az = a[o + 2], bx = b[o], by = b[o + 1], bz = b[o + 2];
  const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz);
  if (la < 1e-6 || lb < 1e-6) return la < 1e-6 && lb < 1e-6 ? 0 : 180;
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  return (Math.atan2(Math.hypot(cx, cy, cz), ax * bx + ay * by + az * bz) * 180) / Math.PI;
}

/** Checks the GPU bake against the CPU one (structure exactly, values within tolerance) and returns the largest errors. */
export function compareBakes(cpu: BakeResult, gpuResult: BakeResult, what: string, errors = noErrors()): BakeErrors {
  expect(gpuResult.asset).toBe(cpu.asset);
  expect(gpuResult.animation).toEqual(cpu.animation);
  expect(gpuResult.time).toBe(cpu.time);
  expect(gpuResult.nodeMatrices).toEqual(cpu.nodeMatrices);
  expect(gpuResult.primitives.map((p) => [p.node, p.mesh, p.primitive, p.vertexCount, !!p.normals, !!p.tangents]))
    .toEqual(cpu.primitives.map((p) => [p.node, p.mesh, p.primitive, p.vertexCount, !!p.normals, !!p.tangents]));
  cpu.primitives.forEach((c, i) => {
    const g = gpuResult.primitives[i];
    const where = `${what}, node ${c.node} mesh ${c.mesh} primitive ${c.primitive}`;
    expect(g.positions).toBeInstanceOf(Float64Array);
    expect(g.positions.length).toBe(c.positions.length);
    const scale = diagonal(c.positions) || 1;
    let position = 0, normal = 0, tangent = 0;
    for (let k = 0; k < c.positions.length; k++) position = Math.max(position, Math.abs(g.positions[k] - c.positions[k]) / scale);
    for (let v = 0; v < c.vertexCount; v++) {
      if (c.normals) normal = Math.max(normal, angleDegrees(c.normals, g.normals!, 3, v));
      if (c.tangents) {
        tangent = Math.max(tangent, angleDegrees(c.tangents, g.tangents!, 4, v));
        if (g.tangents![v * 4 + 3] !== c.tangents[v * 4 + 3]) expect.fail(`${where}: tangent w of vertex ${v} differs`);
      }
    }
    expect(position, `${where}: position error / bbox diagonal`).toBeLessThan(POSITION_TOLERANCE);
    expect(normal, `${where}: normal error in degrees`).toBeLessThan(ANGLE_TOLERANCE_DEGREES);
    expect(tangent, `${where}: tangent error in degrees`).toBeLessThan(ANGLE_TOLERANCE_DEGREES);
    errors.position = Math.max(errors.position, position);
    errors.normalDegrees = Math.max(errors.normalDegrees, normal);
    errors.tangentDegrees = Math.max(errors.tangentDegrees, tangent);
    errors.primitives++;
    errors.vertices += c.vertexCount;
  });
  return errors;
}

/** Every clip at its start, a time between keys and its end (rest pose when there are no clips). */
export function poses(model: Model, extra: BakeOptions = {}): BakeOptions[] {
  if (model.animations.length === 0) return [{ ...extra, time: 0 }];
  return model.animations.flatMap((clip, c) => [0, clip.duration * 0.37, clip.duration].map((time) => ({ ...extra, animation: c, time })));
}

/**
 * The largest errors of a test file's GPU bakes, by case: printed after the file's tests under
 * `title` (the numbers the README quotes).
 */
export function bakeErrorTable(title: string): Map<string, BakeErrors> {
  const measured = new Map<string, BakeErrors>();
  afterAll(() => {
    if (measured.size === 0) return;
    const rows = [...measured].map(([name, e]) =>
      `  ${name.padEnd(44)} ${String(e.primitives).padStart(4)} primitive bakes ${String(e.vertices).padStart(6)} vertices  pos ${e.position.toExponential(1)}  nrm ${e.normalDegrees.toExponential(1)}°  tan ${e.tangentDegrees.toExponential(1)}°`);
    process.stdout.write(`${title}, largest errors (position relative to the bbox diagonal):\n${rows.join('\n')}\n`);
  });
  return measured;
}

/** A test per shared asset (the .vrm files too): bakeModelGpu against bakeModel (with `options`) on every skinned primitive, every clip at 3 times. */
export function describeGpuBakeOnSharedAssets(title: string, gpu: TestDevice, options: BakeOptions, measured: Map<string, BakeErrors>): void {
  describe(title, () => {
    for (const asset of everySharedModelFile()) {
      it(`${asset.name}: every skinned primitive, every clip at 3 times`, async (ctx) => {
        const device = gpu.device(ctx);
        const model = await loadGltfFile(asset.path);
        const errors = noErrors();
        for (const pose of poses(model, options)) {
          compareBakes(bakeModel(model, pose), await bakeModelGpu(device, model, pose), `${asset.name} ${JSON.stringify(pose)}`, errors);
        }
        measured.set(asset.name, errors);
      });
    }
  });
}
