/**
 * The compute skinning path (src/gpu/draw/preskin.ts, shaders/preskin.wgsl,
 * RenderSettings.skinningPath): its WGSL mirrors the TS layouts; with shadows on it draws
 * the same image as the vertex path (linear and dual-quaternion, 4 and 8 influences, morph
 * targets, several instances); its skinned vertices are the CPU reference's within the GPU
 * bake's tolerances; the previous frame's vertices are kept; and its frame path creates
 * nothing and writes what the vertex path writes.
 * PNGs: test-artifacts/preskin-*.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { bakeModel } from '../../../src/bake/bake.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { DRAW_RECORD_SIZE, DrawRecordOffset } from '../../../src/gpu/layouts/draw-record.ts';
import { DrawFlag } from '../../../src/gpu/layouts/bindings.ts';
import {
  PRESKIN_PARAMS_FIELDS, PRESKIN_WORKGROUP_SIZE, PreskinBinding, preskinGrid, preskinVariants, SKINNED_VERTEX_VEC4S, SOURCE_VERTEX_FLOATS,
} from '../../../src/gpu/draw/preskin.ts';
import { AUTO_COMPUTE_MIN_PASSES, AUTO_COMPUTE_MIN_VERTICES, chooseSkinningPath, type PreskinDraw } from '../../../src/gpu/draw/preskin-layout.ts';
import { PRESKIN_WGSL } from '../../../src/gpu/draw/preskin-wgsl.ts';
import { readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { SKINNING_METHODS } from '../../../src/anim/skinning-method.ts';
import preskinWgsl from '../../../shaders/preskin.wgsl?raw';
import { assetPath } from '../../support/assets.ts';
import { angleDegrees, ANGLE_TOLERANCE_DEGREES, diagonal, POSITION_TOLERANCE } from '../../support/compare-bakes.ts';
import { expectArraysEqual, plainlyEqual } from '../../support/expect-arrays.ts';
import { buildChain, buildMorphedSkin } from '../../support/fixtures.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from '../gpu-test.ts';
import { bindings, screamingSnake, structLayout, u32Constants } from '../wgsl-layout.ts';

const device = await testDevice();
const SIZE = 96;

describe('preskin.wgsl ↔ the TS layouts', () => {
  it('DrawRecord and the DRAW_* bits as built, bindings, PreskinParams and the source stride', () => {
    const layout = structLayout(PRESKIN_WGSL, 'DrawRecord');
    expect(Object.fromEntries(layout.fields.map((f) => [screamingSnake(f.name), f.offset]))).toEqual(DrawRecordOffset);
    expect(layout.size).toBe(DRAW_RECORD_SIZE);
    const c = u32Constants(PRESKIN_WGSL);
    for (const [name, value] of c) if (name.startsWith('DRAW_')) expect(value, name).toBe(DrawFlag[name.slice(5) as keyof typeof DrawFlag]);
    expect(c.get('SOURCE_VERTEX_FLOATS')).toBe(SOURCE_VERTEX_FLOATS);
    expect(Object.fromEntries([...bindings(preskinWgsl)].map(([name, b]) => [screamingSnake(name), b.binding]))).toEqual({
      JOINT_PALETTE: PreskinBinding.PALETTE, DRAWS: PreskinBinding.DRAWS, MORPH_DELTAS: PreskinBinding.MORPH_DELTAS,
      SOURCES: PreskinBinding.SOURCES, JOINTS: PreskinBinding.JOINTS, WEIGHTS: PreskinBinding.WEIGHTS,
      SKINNED: PreskinBinding.SKINNED, PARAMS: PreskinBinding.PARAMS, CENTERS: PreskinBinding.CENTERS,
    });
    expect(structLayout(preskinWgsl, 'PreskinParams').fields.map((f) => f.name)).toEqual([...PRESKIN_PARAMS_FIELDS]);
    expect(PRESKIN_WGSL.match(/override\s+DUAL_QUATERNION\b/g)).toHaveLength(1);
    expect(PRESKIN_WGSL.match(/override\s+CENTER_OF_ROTATION\b/g)).toHaveLength(1);
    expect(SKINNED_VERTEX_VEC4S).toBe(3);
  });

  it('specialises each skinned draw by its influence sets and morph targets (overrides, not runtime branches)', () => {
    const draw = (skinned: boolean, influences: number, morphFlags: number) =>
      ({ skinned, meshNode: 0, primitiveIndex: 0, primitive: { source: { influences }, morphFlags } }) as unknown as PreskinDraw;
    expect(preskinVariants([draw(true, 4, 0), draw(false, 0, 0), draw(true, 8, 0), draw(true, 4, 1)])).toEqual([
      { influenceSets: 1, morphed: false }, { influenceSets: 2, morphed: false }, { influenceSets: 1, morphed: true },
    ]);
    for (const name of ['INFLUENCE_SETS', 'MORPH_TARGETS']) expect(preskinWgsl).toMatch(new RegExp(`override\\s+${name}\\b`));
    expect(preskinWgsl).not.toMatch(/params\.influenceSets/);
  });

  it('a primitive with more workgroups than one dimension allows continues along z; past limit² it throws', () => {
    const W = PRESKIN_WORKGROUP_SIZE;
    expect(preskinGrid(0, 8)).toEqual([0, 0]);
    expect(preskinGrid(1, 8)).toEqual([1, 1]);
    expect(preskinGrid(8 * W, 8)).toEqual([8, 1]);
    expect(preskinGrid(8 * W + 1, 8)).toEqual([8, 2]);
    expect(preskinGrid(64 * W, 8)).toEqual([8, 8]);
    expect(() => preskinGrid(64 * W + 1, 8)).toThrow(/preskin: 4097 vertices need more than 8² workgroups/);
    // The shader's vertex index covers the grid: id.x + id.z × x × workgroupSize.
    expect(preskinWgsl).toMatch(/let v = id\.x \+ id\.z \* groups\.x \* workgroupSize;/);
  });

  it("'auto': compute from two passes (shadows on) and enough skinned vertices, vertex for one; explicit settings win", () => {
    expect(AUTO_COMPUTE_MIN_PASSES).toBe(2);
    expect(chooseSkinningPath('auto', 1, 1e7)).toBe('vertex');
    expect(chooseSkinningPath('auto', 2, 1e7)).toBe('compute');
    expect(chooseSkinningPath('auto', AUTO_COMPUTE_MIN_PASSES, AUTO_COMPUTE_MIN_VERTICES - 1)).toBe('vertex');
    expect(chooseSkinningPath('auto', AUTO_COMPUTE_MIN_PASSES, AUTO_COMPUTE_MIN_VERTICES)).toBe('compute');
    expect(chooseSkinningPath('compute', 1, 1)).toBe('compute');
    expect(chooseSkinningPath('vertex', 3, 1e7)).toBe('vertex');
  });
});

async function readBuffer(gpu: GPUDevice, buffer: GPUBuffer): Promise<Float32Array> {
  const copy = gpu.createBuffer({ label: 'preskin test readback', size: buffer.size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = gpu.createCommandEncoder({ label: 'preskin test readback' });
  encoder.copyBufferToBuffer(buffer, 0, copy, 0, buffer.size);
  gpu.queue.submit([encoder.finish()]);
  await copy.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(copy.getMappedRange().slice(0));
  copy.unmap();
  copy.destroy();
  return out;
}

describe.skipIf(!device)('the compute skinning path (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    const s = scene.renderer.settings;
    s.shadows = true;
    s.shadowMapSize = 512;
    s.lightSpace = 'world';
    s.lightDirection.set([0.5, 0.8, 0.33]);
  });
  afterAll(() => scene?.destroy());

  const CASES: [string, () => Uint8Array, number][] = [
    ['CesiumMan', () => readFileSync(assetPath('CesiumMan')), 0.6],
    ['RobotExpressive', () => readFileSync(assetPath('RobotExpressive')), 0.4],
    ['twist-cylinder', () => buildBuiltinGlb('twist-cylinder'), 1.5],
    ['morphed skin', () => buildMorphedSkin(), 0.5],
    ['chain, 8 influences, u16 weights', () => buildChain({ eightInfluences: true, weights: 'u16', tangents: true }), 0.7],
  ];

  /**
   * Each case's model, loaded once for the file: the tests below only draw and read them, and
   * centre-of-rotation skinning computes a model's centres once (they stay on its primitives).
   */
  const loaded = new Map<string, Promise<Model>>();
  const caseModel = (name: string, bytes: () => Uint8Array): Promise<Model> => {
    let model = loaded.get(name);
    if (!model) loaded.set(name, model = loadModel(bytes(), name));
    return model;
  };

  async function renderWith(path: 'vertex' | 'compute', instances: number, placements: Float64Array): Promise<Uint8Array> {
    scene.renderer.settings.skinningPath = path;
    const list = Array.from({ length: instances }, () => scene.instance);
    scene.renderer.renderInstances(scene.target, scene.camera, list, instances, placements);
    expect(scene.renderer.skinningPath).toBe(path);
    return readTexturePixels(gpu, scene.target);
  }

  for (const skinning of SKINNING_METHODS) {
    it(`${skinning}: with shadows on, the compute path draws the vertex path's image (5 models, 2 instances)`, async () => {
      const s = scene.renderer.settings;
      s.skinning = skinning;
      const results: string[] = [];
      for (const [name, bytes, time] of CASES) {
        const model = await caseModel(name, bytes);
        await expectNoGpuErrors(gpu, async () => {
          await scene.setModel(model);
          await scene.renderer.prepareSkinning();
          await scene.renderer.prepareShadows();
          await scene.renderer.prepareComputeSkinning();
          scene.pose(0, time);
          // Two instances side by side (the second shifted a little), one instanced draw per primitive.
          const r = scene.camera.distance * 0.08;
          const placements = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -r, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, r, 0, -r, 1);
          const vertex = await renderWith('vertex', 2, placements);
          const compute = await renderWith('compute', 2, placements);
          writeArtifactPng(`preskin-${skinning}-${name.replace(/[^a-z0-9]+/gi, '-')}`, SIZE, SIZE, compute);
          let worst = 0, differing = 0, covered = 0;
          for (let i = 0; i < vertex.length; i++) {
            const d = Math.abs(vertex[i] - compute[i]);
            worst = Math.max(worst, d);
            if (d > 0) differing++;
            if (i % 4 === 3 && vertex[i] > 0) covered++;
          }
          results.push(`${name}: ${covered} covered, ${differing} channels differ, worst ${worst}`);
          expect(covered, name).toBeGreaterThan(100);
          // Identical on SwiftShader (0 channels differ); a driver contracting differently may round a level.
          expect(worst, results.join('; ')).toBeLessThanOrEqual(2);
          expect(differing, results.join('; ')).toBeLessThanOrEqual(covered * 0.01);
        });
      }
      s.skinning = 'linear';
      s.skinningPath = 'auto';
    });
  }

  it("the skinned vertices are the CPU reference's (bake tolerances); the previous frame's are kept", async () => {
    for (const [name, bytes, time] of CASES) {
      const model = await caseModel(name, bytes);
      for (const skinning of SKINNING_METHODS) {
        await expectNoGpuErrors(gpu, async () => {
          const s = scene.renderer.settings;
          s.skinning = skinning;
          s.skinningPath = 'compute';
          await scene.setModel(model);
          await scene.renderer.prepareSkinning();
          await scene.renderer.prepareComputeSkinning();
          const instance = createModelInstance(model);
          updateModelInstance(instance, 0, time * 0.5);
          scene.renderer.render(scene.target, scene.camera, instance);
          expect(scene.renderer.skinnedVertices('previous')).toBeUndefined();
          const first = await readBuffer(gpu, scene.renderer.skinnedVertices('current')!.buffer);
          updateModelInstance(instance, 0, time);
          scene.renderer.render(scene.target, scene.camera, instance);
          expect(scene.renderer.skinningPath).toBe('compute');
          const out = scene.renderer.skinnedVertices('current')!;
          const previous = await readBuffer(gpu, scene.renderer.skinnedVertices('previous')!.buffer);
          const current = await readBuffer(gpu, out.buffer);
          // Motion vectors: last frame's skinned vertices are still there, unchanged.
          // (Compared element by element as toEqual does, without toEqual's walk of every element: seconds per file.)
          expectArraysEqual(previous, first, `${name} ${skinning}: the previous frame's vertices`);
          expect(plainlyEqual(current, first), `${name} ${skinning}: the current frame's vertices are the previous frame's`).toBe(false);

          const baked = bakeModel(model, { animation: 0, time, skinning });
          let checked = 0, draw = 0;
          model.meshNodes.forEach((mn) => {
            const slot = model.hierarchy.slotOf[mn.node];
            const m = instance.nodeMatrices.subarray(slot * 16, slot * 16 + 16);
            model.meshes[mn.mesh].primitives.forEach((prim, p) => {
              const base = out.drawBase[draw++];
              if (base < 0) return;
              const cpu = baked.primitives.find((b) => b.node === mn.node && b.mesh === mn.mesh && b.primitive === p)!;
              const scale = diagonal(cpu.positions) || 1;
              const gpuPositions = new Float64Array(prim.vertexCount * 3), gpuNormals = new Float64Array(prim.vertexCount * 3);
              for (let v = 0; v < prim.vertexCount; v++) {
                const at = (base + v) * SKINNED_VERTEX_VEC4S * 4;
                const [x, y, z] = [current[at], current[at + 1], current[at + 2]];
                const [nx, ny, nz] = [current[at + 4], current[at + 5], current[at + 6]];
                for (let r = 0; r < 3; r++) {
                  gpuPositions[v * 3 + r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r];
                  gpuNormals[v * 3 + r] = m[r] * nx + m[4 + r] * ny + m[8 + r] * nz;
                }
              }
              let position = 0, normal = 0;
              for (let k = 0; k < gpuPositions.length; k++) position = Math.max(position, Math.abs(gpuPositions[k] - cpu.positions[k]) / scale);
              // Normals through a uniformly scaled world matrix: the angle ignores the scale.
              if (cpu.normals && prim.normals) for (let v = 0; v < prim.vertexCount; v++) normal = Math.max(normal, angleDegrees(cpu.normals, gpuNormals, 3, v));
              expect(position, `${name} ${skinning}: position error / diagonal`).toBeLessThan(POSITION_TOLERANCE);
              expect(normal, `${name} ${skinning}: normal error, degrees`).toBeLessThan(ANGLE_TOLERANCE_DEGREES);
              checked += prim.vertexCount;
            });
          });
          expect(checked, name).toBeGreaterThan(2);
        });
      }
    }
    scene.renderer.settings.skinning = 'linear';
    scene.renderer.settings.skinningPath = 'auto';
  });

  it('the compute frame path: frame, shadow frame, records and palettes written; one encoder and submit; nothing created', async () => {
    const model = await loadModel(readFileSync(assetPath('Fox')), 'Fox');
    const s = scene.renderer.settings;
    s.skinningPath = 'compute';
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      await scene.renderer.prepareShadows();
      await scene.renderer.prepareComputeSkinning();
      scene.renderer.render(scene.target, scene.camera, scene.instance);
      expect(scene.renderer.skinningPath).toBe('compute');
      const frames = 4;
      const counts = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) {
          scene.pose(0, f * 0.1);
          scene.renderer.render(scene.target, scene.camera, scene.instance);
        }
      });
      expect(counts).toEqual({ writeBuffer: 4 * frames, submit: frames, createCommandEncoder: frames });
      await gpu.queue.onSubmittedWorkDone();
    }).finally(() => {
      s.skinningPath = 'auto';
    });
  });
});
