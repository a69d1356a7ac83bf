/**
 * The GPU pose evaluator (src/gpu/crowd, shaders/crowd-eval.wgsl) against the CPU batch,
 * the reference (src/anim/batch.ts): palettes within 8 f32 ulps of the largest translation
 * involved (paletteUlpError ≤ 1, as the batch kernel is held to) for every clip of every
 * shared asset at many times, with crossfades, STEP and CUBICSPLINE fixtures and morph
 * weights; both hierarchy modes; chunking and limits.
 */
import { describe, expect, it } from 'vitest';
import { createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, type InstanceBatch } from '../../../src/anim/batch.ts';
import { BlendingJob } from '../../../src/anim/blend.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { sampleCursor } from '../../../src/anim/sample.ts';
import { loadGltfFile } from '../../../src/cli/load-file.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { movingMeshNodes } from '../../../src/anim/moving-mesh-nodes.ts';
import { CROWD_EVAL_WGSL, GpuPoseEvaluator, specialisation, type GpuPoseEvaluatorOptions, type HierarchyMode } from '../../../src/gpu/crowd/evaluator.ts';
import { GpuLimitError } from '../../../src/gpu/device/limits.ts';
import { compilationErrors } from '../../../src/gpu/device/shader-module.ts';
import { paletteUlpError } from '../../anim/fixtures.ts';
import { sharedAssets } from '../../support/assets.ts';
import { GltfBuilder } from '../../../src/gltf/builder.ts';
import { buildChain, buildMorphedSkin } from '../../support/fixtures.ts';
import { expectArraysEqual } from '../../support/expect-arrays.ts';
import { closeTo, expectEach } from '../../support/expect-each.ts';
import { onOwnDevice, useTestDevice } from '../../support/webgpu.ts';
import { expectNoGpuErrors, loadModel } from '../gpu-test.ts';

/** Tests skip visibly without WebGPU (and fail when CI=true): see test/support/webgpu.ts. */
const gpu = useTestDevice('crowd evaluator tests');

/** What one instance plays: clip (-1 rest) at time, crossfading from partner at partnerTime with weight. */
interface Play { clip: number; time: number; partner: number; partnerTime: number; weight: number }

/** The reference: the CPU batch samples, BlendingJob crossfades, the batch finishes matrices and palettes. */
function cpuReference(model: Model, plays: readonly Play[]): InstanceBatch {
  const batch = createInstanceBatch(model, plays.length);
  plays.forEach((p, k) => { batch.clips[k] = p.clip; batch.times[k] = p.time; });
  sampleInstanceBatch(batch, plays.length);
  const from = createPose(model);
  plays.forEach((p, k) => {
    if (p.clip < 0 || p.partner < 0) return;
    setRestPose(model, from);
    const cursor = batch.instances[k].cursors[p.partner];
    cursor.time = p.partnerTime;
    sampleCursor(cursor, from);
    const pose = batch.instances[k].pose;
    const blend = new BlendingJob(from, pose, pose);
    blend.weight = p.weight;
    blend.run();
  });
  updateBatchMatricesAndPalettes(batch, plays.length);
  return batch;
}

async function readBuffer(d: GPUDevice, source: GPUBuffer, bytes: number): Promise<Float32Array> {
  const staging = d.createBuffer({ label: 'test readback', size: Math.max(4, bytes), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = d.createCommandEncoder({ label: 'test readback' });
  encoder.copyBufferToBuffer(source, 0, staging, 0, Math.max(4, bytes));
  d.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0, bytes));
  staging.unmap();
  staging.destroy();
  return out;
}

/** Evaluates `plays` on the GPU; returns the palettes and morph weights read back. */
async function gpuEvaluate(
  d: GPUDevice, model: Model, plays: readonly Play[], options: GpuPoseEvaluatorOptions = {},
): Promise<{ palettes: Float32Array; weights: Float32Array; meshWorlds: Float32Array; evaluator: GpuPoseEvaluator }> {
  return expectNoGpuErrors(d, async () => {
    const evaluator = new GpuPoseEvaluator(d, model, plays.length, options);
    plays.forEach((p, k) => evaluator.setInstance(k, p.clip, p.time, p.partner, p.partnerTime, p.weight));
    evaluator.writeInstances();
    const encoder = d.createCommandEncoder({ label: 'test evaluate' });
    evaluator.encode(encoder);
    d.queue.submit([encoder.finish()]);
    const palettes = await readBuffer(d, evaluator.palettes, plays.length * evaluator.paletteCount * 64);
    const weights = evaluator.morphWeights ? await readBuffer(d, evaluator.morphWeights, plays.length * evaluator.weightCount * 4) : new Float32Array(0);
    const meshWorlds = evaluator.meshWorlds ? await readBuffer(d, evaluator.meshWorlds, plays.length * evaluator.meshWorldCount * 64) : new Float32Array(0);
    evaluator.destroy();
    return { palettes, weights, meshWorlds, evaluator };
  });
}

/** Worst palette error over the instances, in units of the tolerance (≤ 1 passes), and where. */
function worstError(model: Model, reference: InstanceBatch, palettes: Float32Array, count: number): { error: number; at: number } {
  const floats = reference.paletteMatrixCount * 16;
  let error = 0, at = -1;
  for (let k = 0; k < count; k++) {
    const e = paletteUlpError(palettes.subarray(k * floats, (k + 1) * floats), reference.instances[k].palette, model, reference.instances[k].nodeMatrices);
    if (e > error) { error = e; at = k; }
  }
  return { error, at };
}

/** Times through a clip, f32-exact (the GPU takes f32): before it, key times, between keys, its end and past it. */
function timesOf(model: Model, clip: number, n: number): number[] {
  const d = model.animations[clip].duration;
  const out = [-0.5, 0, d, d + 1];
  const keys = model.animations[clip].timelines[0];
  for (let i = 0; i < Math.min(keys.length, 6); i++) out.push(keys[i], keys[i] + 0.3 * ((keys[i + 1] ?? keys[i] + 1) - keys[i]));
  for (let i = 0; i < n; i++) out.push((d * (i + 0.37)) / n);
  return out.map(Math.fround);
}

const hierarchies: HierarchyMode[] = ['instance', 'depth'];

/**
 * Three animated joints; under J1 a node with a `matrix` (scaled, turned, moved) holding the
 * skinned mesh node: the palette must be made relative to a mesh node the clip moves, so
 * the evaluator inverts it per instance (no shared asset does this).
 */
function buildAnimatedMeshNode(): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const attributes = {
    POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0), 'VEC3', { minMax: true }),
    JOINTS_0: b.addAccessor(Uint16Array.of(0, 1, 0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0), 'VEC4'),
    WEIGHTS_0: b.addAccessor(Float32Array.of(0.7, 0.3, 0, 0, 0.7, 0.3, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 'VEC4'),
  };
  const mesh = b.addMesh({ primitives: [{ attributes, indices: b.addAccessor(Uint16Array.of(0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4), 'SCALAR') }] });
  const j2 = b.addNode({ name: 'J2', translation: [0, 1, 0] });
  const meshNode = b.addNode({ name: 'mesh', mesh, translation: [0.3, -0.2, 0.1] });
  const holder = b.addNode({ name: 'matrix holder', matrix: [0, 0, -1.5, 0, 0, 1.5, 0, 0, 1.5, 0, 0, 0, 2, 1, -3, 1], children: [meshNode] });
  const j1 = b.addNode({ name: 'J1', translation: [0, 1, 0], children: [j2, holder] });
  const j0 = b.addNode({ name: 'J0', translation: [4, 0, 2], children: [j1] });
  const ibm = new Float32Array(48);
  [0, 1, 2].forEach((j) => ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -4, -j, -2, 1], j * 16));
  b.json.nodes[meshNode].skin = b.addSkin({ joints: [j0, j1, j2], inverseBindMatrices: b.addAccessor(ibm, 'MAT4') });
  b.addScene({ nodes: [j0] });
  const times = Float32Array.of(0, 1, 2);
  const turn = (a: number) => [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  b.addAnimationTracks('Move', [
    { node: j0, path: 'translation', input: times, output: Float32Array.of(4, 0, 2, 5, 0.5, 2, 3, 0, 1) },
    { node: j0, path: 'rotation', input: times, output: Float32Array.from([...turn(0), ...turn(1.2), ...turn(2.5)]) },
    { node: j1, path: 'rotation', input: times, output: Float32Array.of(0, 0, 0, 1, 0.2, 0, 0, 0.98, 0, 0, 0.3, 0.95) },
    { node: j1, path: 'scale', input: times, output: Float32Array.of(1, 1, 1, 1.2, 0.9, 1, 0.8, 1.1, 1.3) },
  ]);
  return b.toGlb();
}

describe('crowd-eval.wgsl', () => {
  it('compiles without errors', async (ctx) => {
    const device = gpu.device(ctx);
    const module = device.createShaderModule({ label: 'crowd-eval.wgsl test', code: CROWD_EVAL_WGSL });
    expect(await compilationErrors(module)).toEqual([]);
  });
});

describe('GpuPoseEvaluator against the CPU batch', () => {
  const assets = sharedAssets();
  for (const asset of assets) {
    it(`${asset.name}: every clip at many times, both hierarchy modes`, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltfFile(asset.path);
      const plays: Play[] = [{ clip: -1, time: 0, partner: -1, partnerTime: 0, weight: 1 }];
      model.animations.forEach((_, c) => { for (const time of timesOf(model, c, 24)) plays.push({ clip: c, time, partner: -1, partnerTime: 0, weight: 1 }); });
      const reference = cpuReference(model, plays);
      for (const hierarchy of hierarchies) {
        const { palettes, weights, meshWorlds } = await gpuEvaluate(device, model, plays, { hierarchy });
        const { error, at } = worstError(model, reference, palettes, plays.length);
        expect(error, `${asset.name} ${hierarchy}: instance ${at} ${JSON.stringify(plays[at])}`).toBeLessThanOrEqual(1);
        // The moving mesh nodes' model matrices: the CPU's within 8 f32 ulps of the matrix's largest entry.
        const moving = movingMeshNodes(model);
        expect(meshWorlds.length).toBe(plays.length * moving.length * 16);
        const slots = moving.map((i) => model.hierarchy.slotOf[model.meshNodes[i].node]);
        const cpuMatrix = (m: number) => reference.instances[Math.floor(m / moving.length)].nodeMatrices.subarray(slots[m % moving.length] * 16, slots[m % moving.length] * 16 + 16);
        const matrices = Array.from({ length: plays.length * moving.length }, (_, m) => cpuMatrix(m));
        const scales = matrices.map((cpu) => Math.max(...Array.from(cpu, Math.abs)));
        expectEach(matrices.length * 16, `${asset.name} ${hierarchy}: mesh node matrices (instance × moving mesh node × entry)`, (i) => {
          const m = Math.floor(i / 16), e = i % 16;
          const cpu = matrices[m][e], g = meshWorlds[i];
          return Math.abs(g - cpu) <= 8 * 2 ** -23 * scales[m] ? undefined : `instance ${Math.floor(m / moving.length)} mesh node ${moving[m % moving.length]} [${e}] ${g} vs ${cpu}`;
        });
        const w = reference.instances[0].pose.weights.length;
        expectEach(plays.length * w, `${asset.name} ${hierarchy}: morph weights (instance × weight)`, (i) => {
          const k = Math.floor(i / w), expected = reference.instances[k].pose.weights[i % w];
          return closeTo(weights[i], expected, 6) ? undefined : `weights of ${k}: ${weights[i]} vs ${expected}`;
        });
      }
    });
  }

  it('crossfades: Fox Survey ↔ Walk ↔ Run at many weights and times', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(assets.find((a) => a.name === 'Fox')!.path);
    const plays: Play[] = [];
    for (let i = 0; i < 60; i++) {
      const clip = i % 3, partner = (i + 1 + (i >> 2)) % 3;
      plays.push({ clip, time: Math.fround(0.05 * i), partner: partner === clip ? (clip + 1) % 3 : partner, partnerTime: Math.fround(0.031 * i + 0.2), weight: Math.fround(i / 59) });
    }
    const reference = cpuReference(model, plays);
    for (const hierarchy of hierarchies) {
      const { palettes } = await gpuEvaluate(device, model, plays, { hierarchy });
      const { error, at } = worstError(model, reference, palettes, plays.length);
      expect(error, `${hierarchy}: instance ${at} ${JSON.stringify(plays[at])}`).toBeLessThanOrEqual(1);
    }
  });

  for (const interpolation of ['STEP', 'CUBICSPLINE', 'LINEAR'] as const) {
    it(`${interpolation} rotation and non-uniform scale keys on a skinned chain (mesh node transformed), with crossfades`, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadModel(buildChain({ interpolation, nonUniformScale: true, transformedMeshNode: true }), `chain ${interpolation}`);
      const plays: Play[] = [];
      for (let i = 0; i < 40; i++) {
        const time = Math.fround(-0.2 + i * 0.06);
        plays.push({ clip: 0, time, partner: i % 4 === 0 ? 0 : -1, partnerTime: Math.fround(2.1 - time), weight: Math.fround((i % 7) / 6) });
      }
      const reference = cpuReference(model, plays);
      const { palettes } = await gpuEvaluate(device, model, plays);
      const { error, at } = worstError(model, reference, palettes, plays.length);
      expect(error, `instance ${at} ${JSON.stringify(plays[at])}`).toBeLessThanOrEqual(1);
      // The fixture really is what it says: palettes change over the clip.
      expect(palettes.subarray(0, 16 * 4)).not.toEqual(palettes.subarray(20 * 16 * 4, 21 * 16 * 4));
    });
  }

  it('a skinned mesh node under animated joints and a matrix node: palettes relative to it, per instance', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadModel(buildAnimatedMeshNode(), 'animated mesh node');
    const plays: Play[] = [];
    for (let i = 0; i < 30; i++) plays.push({ clip: 0, time: Math.fround(-0.1 + i * 0.08), partner: i % 3 === 0 ? 0 : -1, partnerTime: Math.fround(1.9 - i * 0.05), weight: Math.fround(0.4) });
    const reference = cpuReference(model, plays);
    for (const hierarchy of hierarchies) {
      const { palettes } = await gpuEvaluate(device, model, plays, { hierarchy });
      const { error, at } = worstError(model, reference, palettes, plays.length);
      expect(error, `${hierarchy}: instance ${at} ${JSON.stringify(plays[at])}`).toBeLessThanOrEqual(1);
    }
    // Relative to the mesh node: not the world palette (which the joints' own motion would give).
    expect(Math.abs(reference.instances[5].palette[12] - reference.instances[5].nodeMatrices[16 + 12])).toBeGreaterThan(0.1);
  });

  it('morph weights: sampled and crossfaded with the rest weights as the CPU pose has them', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadModel(buildMorphedSkin(), 'morphed skin');
    const plays: Play[] = [];
    for (let i = 0; i < 12; i++) plays.push({ clip: i === 0 ? -1 : 0, time: Math.fround(i / 10), partner: i % 3 === 0 ? 0 : -1, partnerTime: Math.fround(1 - i / 10), weight: Math.fround(0.25) });
    const reference = cpuReference(model, plays);
    const { weights, evaluator } = await gpuEvaluate(device, model, plays);
    expect(evaluator.weightCount).toBe(2);
    const expected = plays.flatMap((_, k) => Array.from(reference.instances[k].pose.weights));
    expect(expected[0]).toBe(0.5); // the rest pose's mesh weights
    for (let i = 0; i < expected.length; i++) expect(weights[i], `weight ${i}`).toBeCloseTo(expected[i], 6);
  });
});

describe('GpuPoseEvaluator pipelines', () => {
  it('are compiled once per device and feature set: another size, model or evaluator with the same features compiles nothing', async (ctx) => {
    gpu.device(ctx);
    const byName = (name: string) => loadGltfFile(sharedAssets().find((a) => a.name === name)!.path);
    const [fox, cesium] = await Promise.all([byName('Fox'), byName('CesiumMan')]);
    const cubic = await loadModel(buildChain({ interpolation: 'CUBICSPLINE' }), 'chain CUBICSPLINE');
    // Fox and CesiumMan: LINEAR keys, no morph weights, no root locks: the same features.
    expect(specialisation(fox, 0)).toEqual(specialisation(cesium, 0));
    expect(specialisation(cubic, 0)).not.toEqual(specialisation(fox, 0));
    // A device of its own, so that no other test's evaluator compiled them first.
    const compiled = await onOwnDevice('evaluator pipeline cache', async (device) => {
      const labels: string[] = [];
      const compile = device.createComputePipeline.bind(device);
      device.createComputePipeline = (descriptor) => { labels.push(descriptor.label ?? ''); return compile(descriptor); };
      const made = (make: () => GpuPoseEvaluator) => {
        const before = labels.length;
        make().destroy();
        return labels.slice(before);
      };
      return {
        first: made(() => new GpuPoseEvaluator(device, fox, 10)),
        resized: made(() => new GpuPoseEvaluator(device, fox, 300)),
        otherModel: made(() => new GpuPoseEvaluator(device, cesium, 10)),
        depth: made(() => new GpuPoseEvaluator(device, cesium, 10, { hierarchy: 'depth' })),
        cubic: made(() => new GpuPoseEvaluator(device, cubic, 10)),
      };
    });
    // Sampling with and without crossfades, local→model per instance, palettes.
    expect(compiled.first).toHaveLength(4);
    expect(compiled.resized).toEqual([]);
    expect(compiled.otherModel).toEqual([]);
    expect(compiled.depth.map((l) => l.split(' (')[0])).toEqual(['crowd evaluator modelAtLevel']);
    expect(compiled.cubic).toHaveLength(4);
    expect(compiled.cubic.every((l) => l.includes('HAS_CUBICSPLINE=1'))).toBe(true);
  });
});

describe('GpuPoseEvaluator limits and chunks', () => {
  it('splits a crowd into chunks that each fit one binding, with the same palettes as one chunk', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(sharedAssets().find((a) => a.name === 'CesiumMan')!.path);
    const plays: Play[] = [];
    for (let k = 0; k < 300; k++) plays.push({ clip: 0, time: Math.fround(k * 0.007), partner: -1, partnerTime: 0, weight: 1 });
    const whole = await gpuEvaluate(device, model, plays);
    expect(whole.evaluator.chunkSize).toBe(320);
    // 19 palette matrices × 64 bytes × 64 instances = 77,824 bytes: a binding of 100,000 holds one granule.
    const chunked = await gpuEvaluate(device, model, plays, { limits: { maxStorageBufferBindingSize: 100_000 } });
    expect(chunked.evaluator.chunkSize).toBe(64);
    expectArraysEqual(chunked.palettes, whole.palettes, 'palettes in chunks of 64 vs one chunk');
  });

  it('refuses with GpuLimitError: clips too large for one binding, an instance too large for one', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(sharedAssets().find((a) => a.name === 'Fox')!.path);
    expect(() => new GpuPoseEvaluator(device, model, 10, { limits: { maxStorageBufferBindingSize: 4096 } })).toThrow(GpuLimitError);
    expect(() => new GpuPoseEvaluator(device, model, 10, { limits: { maxStorageBufferBindingSize: 4096 } })).toThrow(/clips of "Fox.*pack to \d+ bytes.*evaluator: 'cpu'/);
    expect(() => new GpuPoseEvaluator(device, model, 10, { limits: { maxStorageBufferBindingSize: 80_000 } })).toThrow(/64 instances of "Fox.glb" \(26 nodes, 24 palette matrices\) need more/);
    expect(() => new GpuPoseEvaluator(device, model, 0)).toThrow(/capacity 0/);
    expect(() => new GpuPoseEvaluator(device, model, 1, { hierarchy: 'fused' as 'depth' })).toThrow(/hierarchy fused is not 'instance' or 'depth'/);
  });
});
