/**
 * A Crowd evaluated on the GPU (`evaluator: 'gpu'`) drawn by the renderer (issue #16
 * integration), on Dawn (SwiftShader): the frame uploads 32 bytes per instance (the
 * evaluator's state) plus a fixed amount, because the GPU-written draw records read the
 * evaluator's own placements; and a 50-instance frame is the CPU evaluator's frame up to the
 * pixels where the palettes' or the placements' last bits differ (docs/crowds.md "Crowds on the GPU").
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { AUTO_GPU_MIN_INSTANCES, chooseCrowdEvaluator, gpuCrowdUnsupported } from '../../src/crowd/evaluator-choice.ts';
import { createCrowd, type AnyCrowd } from '../../src/crowd/gpu-crowd.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { loadCrowdCode, MAX_INSTANCES, ViewerStage } from '../../src/element/stage.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordWord } from '../../src/gpu/layouts/draw-record.ts';
import { GltfBuilder } from '../../src/gltf/builder.ts';
import { addQuadMesh, EXT } from '../support/instancing.ts';
import { assetPath } from '../support/assets.ts';
import { writeArtifactPng } from '../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu/gpu-test.ts';

const device = await testDevice('gpu crowd render tests');
const W = 160, H = 120;
const COUNT = 50;
/** A binary fraction: f32 clip times equal the CPU's f64 ones. */
const DT = 1 / 64;

/** Bytes of every writeBuffer made while `frame` runs. */
function countWrites(d: GPUDevice, frame: () => void): number {
  let written = 0;
  const queue = d.queue as unknown as Record<string, unknown>;
  const original = queue.writeBuffer as (...a: unknown[]) => unknown;
  queue.writeBuffer = (...args: unknown[]) => {
    const data = args[2] as ArrayBufferLike | ArrayBufferView;
    const element = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
    const total = ArrayBuffer.isView(data) ? data.byteLength / element : data.byteLength;
    const offset = (args[3] as number | undefined) ?? 0;
    written += (((args[4] as number | undefined) ?? total - offset) * element);
    return original.apply(d.queue, args);
  };
  try {
    frame();
  } finally {
    queue.writeBuffer = original;
  }
  return written;
}

function differingPixels(a: Frame, b: Frame): { pixels: number; maxChannel: number } {
  let pixels = 0, maxChannel = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    let d = 0;
    for (let c = 0; c < 4; c++) d = Math.max(d, Math.abs(a.rgba[i + c] - b.rgba[i + c]));
    if (d > 0) pixels++;
    maxChannel = Math.max(maxChannel, d);
  }
  return { pixels, maxChannel };
}

/** Indices of the pixels where `a` and `b` differ. */
function differing(a: Frame, b: Frame): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.rgba.length; i += 4) {
    if (a.rgba[i] !== b.rgba[i] || a.rgba[i + 1] !== b.rgba[i + 1] || a.rgba[i + 2] !== b.rgba[i + 2] || a.rgba[i + 3] !== b.rgba[i + 3]) out.push(i / 4);
  }
  return out;
}

describe.skipIf(!device)('a GPU-evaluated Crowd drawn by the renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let model: Model;
  let size: number;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, W, H);
    model = await loadModel(readFileSync(assetPath('Fox')), 'Fox');
    await scene.setModel(model);
    const rest = computeInstanceBounds(createModelInstance(model));
    size = Math.max(rest.max[0] - rest.min[0], rest.max[2] - rest.min[2]);
    expect(await scene.renderer.prepareGpuCulling()).toBe(true);
  });
  afterAll(() => scene?.destroy());

  function crowdOf(n: number, evaluator: 'cpu' | 'gpu'): AnyCrowd {
    const crowd = createCrowd(model, n, { evaluator, device: gpu });
    expect(crowd.evaluator).toBe(evaluator);
    crowd.rootMotion = false;
    crowd.placeOnGrid(size * 1.2);
    for (let k = 0; k < n; k++) crowd.play(k, k % model.animations.length, (k % 7) / 16);
    for (let k = 0; k < n; k += 4) crowd.crossfade(k, (k + 1) % model.animations.length, 0.25, 1 / 8);
    for (let f = 0; f < 8; f++) crowd.update(DT);
    return crowd;
  }

  function aim(): void {
    const c = scene.camera;
    // Part of the grid out of view, so the frame culls.
    c.target.set([size * 1.5, size * 0.3, size * 1.5]);
    c.yaw = 0.5;
    c.pitch = -0.35;
    c.distance = 4 * size;
    c.near = size * 0.05;
    c.far = size * 20;
  }

  it('uploads 32 bytes per instance per frame (the evaluator\'s state) plus a fixed amount: no placement upload on top', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      r.settings.culling = true;
      aim();
      const frameBytes: number[] = [];
      for (const n of [COUNT, 2 * COUNT]) {
        const crowd = crowdOf(n, 'gpu');
        // Twice: the first frame may build the records' bind group; the counts must not depend on it.
        for (let f = 0; f < 2; f++) {
          crowd.update(DT);
          const written = countWrites(gpu, () => r.renderCrowd(scene.target, scene.camera, crowd, crowd.gpu));
          expect(r.stats.bytesUploaded).toBe(written);
          expect(r.stats.joints).toBe(0);
          if (f === 1) frameBytes.push(written);
        }
        await gpu.queue.onSubmittedWorkDone();
        crowd.destroy();
      }
      // Exactly 32 more bytes per added instance; the rest is per frame (uniforms, parameter blocks).
      expect(frameBytes[1] - frameBytes[0]).toBe(COUNT * 32);
      const fixed = frameBytes[0] - COUNT * 32;
      expect(fixed).toBeGreaterThan(0);
      expect(fixed).toBeLessThan(2048);
    });
  });

  it('50 instances: the GPU evaluator\'s frame equals the CPU evaluator\'s but where the palettes\' or placements\' last bits differ', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      r.settings.culling = true;
      aim();
      const cpu = crowdOf(COUNT, 'cpu');
      const onGpu = crowdOf(COUNT, 'gpu');
      expect(Array.from(onGpu.placements)).toEqual(Array.from(cpu.placements));
      r.renderCrowd(scene.target, scene.camera, cpu);
      const cpuFrame = await scene.read();
      const cpuStats = { ...r.stats };
      r.renderCrowd(scene.target, scene.camera, onGpu, onGpu.gpu);
      const gpuFrame = await scene.read();
      writeArtifactPng('gpu-crowd-evaluator-cpu', W, H, cpuFrame.rgba);
      writeArtifactPng('gpu-crowd-evaluator-gpu', W, H, gpuFrame.rgba);
      let covered = 0;
      for (let i = 3; i < cpuFrame.rgba.length; i += 4) if (cpuFrame.rgba[i] > 0) covered++;
      expect(covered).toBeGreaterThan(W * H / 20);
      expect(cpuStats.culled).toBeGreaterThan(0);
      expect(r.stats.drawCalls).toBe(cpuStats.drawCalls);
      const diff = differingPixels(cpuFrame, gpuFrame);
      console.log(`GPU vs CPU evaluator, ${COUNT} Foxes: ${diff.pixels} of ${covered} covered pixels differ, by at most ${diff.maxChannel}/255`);
      expect(diff.pixels).toBeLessThanOrEqual(Math.ceil(covered * 0.01));
      expect(diff.maxChannel).toBeLessThanOrEqual(8);
      // Why: frames that change one input at a time. A: the GPU evaluator's palettes (copied out) with
      // the CPU's placements (packed on the CPU in float64); B: the CPU's palettes with the GPU
      // evaluator's placements (built on the GPU in float32 from x y z yaw). Every pixel where the
      // two evaluators' frames differ is one where A or B differs from the CPU frame: the last bits
      // of the palettes (within 8 ulps: crowd-gpu.test.ts) or of the placements, nothing else.
      const gpuPalettes = gpu.createBuffer({ label: 'test GPU-evaluated palettes copy', size: onGpu.gpu!.palettes.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      const cpuPalettes = gpu.createBuffer({ label: 'test CPU palettes', size: cpu.palettes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      gpu.queue.writeBuffer(cpuPalettes, 0, cpu.palettes);
      const encoder = gpu.createCommandEncoder({ label: 'test palettes copy' });
      encoder.copyBufferToBuffer(onGpu.gpu!.palettes, 0, gpuPalettes, 0, gpuPalettes.size);
      gpu.queue.submit([encoder.finish()]);
      r.renderCrowd(scene.target, scene.camera, cpu, { palettes: gpuPalettes });
      const a = await scene.read();
      r.renderCrowd(scene.target, scene.camera, cpu, { palettes: cpuPalettes, placements: onGpu.gpu!.placements });
      const b = await scene.read();
      const explained = new Set([...differing(a, cpuFrame), ...differing(b, cpuFrame)]);
      const unexplained = differing(gpuFrame, cpuFrame).filter((i) => !explained.has(i));
      console.log(`palettes' bits alone: ${differing(a, cpuFrame).length} pixels, placements' bits alone: ${differing(b, cpuFrame).length}`);
      expect(unexplained).toEqual([]);
      await gpu.queue.onSubmittedWorkDone();
      gpuPalettes.destroy();
      cpuPalettes.destroy();
      await gpu.queue.onSubmittedWorkDone();
      onGpu.destroy();
    });
  });

  for (const method of ['dual-quaternion', 'center-of-rotation'] as const) {
    it(`${method}: the GPU evaluator's matrices are split into DqJoint entries on the GPU, and its frame is the CPU evaluator's of the same method`, async () => {
      await expectNoGpuErrors(gpu, async () => {
        const r = scene.renderer;
        r.settings.culling = true;
        r.settings.skinning = method;
        try {
          await r.prepareSkinning();
          aim();
          const cpu = crowdOf(COUNT, 'cpu');
          const onGpu = crowdOf(COUNT, 'gpu');
          r.renderCrowd(scene.target, scene.camera, cpu);
          expect(r.skinning).toBe(method);
          const cpuFrame = await scene.read();
          r.renderCrowd(scene.target, scene.camera, onGpu, onGpu.gpu);
          const gpuFrame = await scene.read();
          writeArtifactPng(`gpu-crowd-evaluator-${method}`, W, H, gpuFrame.rgba);
          // Drawn from the evaluator's poses, not the instances' rest pose: the linear frame of
          // the same crowd differs from this one where the methods do, not where the poses would.
          let covered = 0;
          for (let i = 3; i < cpuFrame.rgba.length; i += 4) if (cpuFrame.rgba[i] > 0) covered++;
          const diff = differingPixels(cpuFrame, gpuFrame);
          console.log(`${method}, GPU vs CPU evaluator, ${COUNT} Foxes: ${diff.pixels} of ${covered} covered pixels differ, by at most ${diff.maxChannel}/255`);
          expect(covered).toBeGreaterThan(W * H / 20);
          expect(diff.pixels).toBeLessThanOrEqual(Math.ceil(covered * 0.01));
          // A few edge pixels more than the linear frame's 8: the split runs in float32 on the GPU, in float64 on the CPU.
          expect(diff.maxChannel).toBeLessThanOrEqual(32);
          // The rest pose would differ almost everywhere.
          const rest = createCrowd(model, COUNT, { evaluator: 'cpu' });
          rest.rootMotion = false;
          rest.placeOnGrid(size * 1.2);
          r.renderCrowd(scene.target, scene.camera, rest);
          expect(differingPixels(await scene.read(), gpuFrame).pixels).toBeGreaterThan(covered * 0.1);
          await gpu.queue.onSubmittedWorkDone();
          onGpu.destroy();
        } finally {
          r.settings.skinning = 'linear';
        }
      });
    });
  }

  it('only models whose clips move EXT_mesh_gpu_instancing meshes stay on the CPU evaluator (auto, the element) or are refused (gpu), naming why', async () => {
    const verdicts: Record<string, string | undefined> = {};
    for (const name of ['Fox', 'CesiumMan', 'RobotExpressive', 'SimpleMorph', 'InterpolationTest']) {
      verdicts[name] = gpuCrowdUnsupported(await loadModel(readFileSync(assetPath(name)), name));
    }
    // Meshes on bones (RobotExpressive), moving mesh nodes (InterpolationTest) and morph weights (SimpleMorph) are all drawn from the GPU evaluator.
    expect(verdicts).toEqual({ Fox: undefined, CesiumMan: undefined, RobotExpressive: undefined, SimpleMorph: undefined, InterpolationTest: undefined });
    // A node drawn with EXT_mesh_gpu_instancing that a clip moves: its draws are recorded on the CPU.
    const b = new GltfBuilder('test fixture');
    const quad = b.addNode({ mesh: addQuadMesh(b), extensions: { [EXT]: { attributes: { TRANSLATION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 0, 0), 'VEC3') } } } });
    b.addScene({ nodes: [quad] });
    b.json.extensionsUsed.push(EXT);
    b.addAnimationTracks('Slide', [{ node: quad, path: 'translation', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 0, 0, 1, 0) }]);
    const instancedQuad = await loadModel(b.toGlb(), 'moving instanced quad');
    expect(gpuCrowdUnsupported(instancedQuad)).toMatch(/a clip moves node 0, whose mesh is drawn with EXT_mesh_gpu_instancing/);
    expect(chooseCrowdEvaluator({ evaluator: 'auto', device: gpu }, AUTO_GPU_MIN_INSTANCES, instancedQuad)).toBe('cpu');
    expect(chooseCrowdEvaluator({ evaluator: 'auto', device: gpu }, AUTO_GPU_MIN_INSTANCES, model)).toBe('gpu');
    expect(() => createCrowd(instancedQuad, 4, { evaluator: 'gpu', device: gpu })).toThrow(/evaluator 'gpu' cannot draw moving instanced quad: a clip moves node 0/);
    // The element's stage: crowd-evaluator="gpu" on such a model warns and evaluates on the CPU (capped as the CPU is).
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (m: string) => { warnings.push(m); };
    try {
      await loadCrowdCode();
      for (const [m, expected] of [[instancedQuad, 'cpu'], [model, 'gpu']] as const) {
        const stage = new ViewerStage(m);
        const player = new AnimationPlayer(m);
        stage.evaluator = 'gpu';
        stage.useDevice(gpu, player);
        stage.setInstances(MAX_INSTANCES + 10, player);
        expect(stage.evaluating).toBe(expected);
        expect(stage.instances).toBe(expected === 'gpu' ? MAX_INSTANCES + 10 : MAX_INSTANCES);
        stage.setInstances(1, player);
        (stage as unknown as { crowd?: Crowd }).crowd?.destroy();
      }
    } finally {
      console.warn = warn;
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/crowd-evaluator="gpu": .*the crowd is evaluated on the CPU/);
  });

  /**
   * A crowd of `m` (n instances on a grid, phases an eighth of clip `clip` apart, instance 5
   * crossfading) on each evaluator, drawn from the front and above with the whole grid in view.
   */
  async function bothEvaluators(m: Model, n: number, clip: number, name: string) {
    const view = new OffscreenScene(gpu, W, H);
    await view.setModel(m);
    const r = view.renderer;
    expect(await r.prepareGpuCulling()).toBe(true);
    const rest = computeInstanceBounds(createModelInstance(m));
    const step = 1.3 * Math.max(rest.max[0] - rest.min[0], rest.max[1] - rest.min[1], rest.max[2] - rest.min[2]);
    let area: ArrayLike<number> = [0, 0, 0, 0];
    const crowdOn = (evaluator: 'cpu' | 'gpu') => {
      const crowd = createCrowd(m, n, { evaluator, device: gpu });
      expect(crowd.evaluator).toBe(evaluator);
      crowd.rootMotion = false;
      area = crowd.placeOnGrid(step);
      for (let k = 0; k < n; k++) crowd.play(k, clip, k / 8);
      crowd.crossfade(5, (clip + 1) % m.animations.length, 0.5, 3 / 8);
      for (let f = 0; f < 4; f++) crowd.update(DT);
      return crowd;
    };
    const cpu = crowdOn('cpu');
    const onGpu = crowdOn('gpu');
    const c = view.camera;
    c.yaw = 0;
    c.pitch = 0.5;
    const min = Float32Array.of(area[0] + rest.min[0], rest.min[1], area[1] + rest.min[2]);
    const max = Float32Array.of(area[2] + rest.max[0], rest.max[1], area[3] + rest.max[2]);
    const center = min.map((v, i) => (v + max[i]) / 2);
    c.frame({ min, max, center, radius: Math.hypot(...max.map((v, i) => v - min[i])) / 2 }, W / H);
    r.renderCrowd(view.target, c, cpu);
    const cpuFrame = await view.read();
    // The GPU frame twice: the first one also uploads the evaluator's per-chunk parameter blocks.
    r.renderCrowd(view.target, c, onGpu, onGpu.gpu);
    const written = countWrites(gpu, () => r.renderCrowd(view.target, c, onGpu, onGpu.gpu));
    const gpuFrame = await view.read();
    writeArtifactPng(`gpu-crowd-${name}-cpu`, W, H, cpuFrame.rgba);
    writeArtifactPng(`gpu-crowd-${name}-gpu`, W, H, gpuFrame.rgba);
    let covered = 0;
    for (let i = 3; i < cpuFrame.rgba.length; i += 4) if (cpuFrame.rgba[i] > 0) covered++;
    const diff = differingPixels(cpuFrame, gpuFrame);
    console.log(`GPU vs CPU evaluator, ${n} × ${name}: ${diff.pixels} of ${covered} covered pixels differ, by at most ${diff.maxChannel}/255`);
    return {
      cpu, onGpu, view, written, covered, diff,
      destroy: async () => {
        await gpu.queue.onSubmittedWorkDone();
        cpu.destroy();
        onGpu.destroy();
        view.destroy();
      },
    };
  }

  it('animated morph weights: each instance\'s evaluated weights reach its draw records, and the frame is the CPU evaluator\'s', async () => {
    const morph = await loadModel(readFileSync(assetPath('SimpleMorph')), 'SimpleMorph');
    const n = 12;
    await expectNoGpuErrors(gpu, async () => {
      const both = await bothEvaluators(morph, n, 0, 'morph');
      try {
        // Nothing per draw from the CPU: the state (32 bytes per instance) and fixed blocks only.
        expect(both.written).toBeLessThan(n * 32 + 2048);
        // The records: instance k's weights are the CPU evaluator's instance k's (within float32 sampling), and they differ across the crowd.
        const d = (both.view.renderer as unknown as { current: { drawBuffer: GPUBuffer; draws: unknown[] } }).current;
        const bytes = d.draws.length * n * DRAW_RECORD_SIZE;
        const copy = gpu.createBuffer({ label: 'test morph records readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
        const encoder = gpu.createCommandEncoder({ label: 'test morph records copy' });
        encoder.copyBufferToBuffer(d.drawBuffer, 0, copy, 0, bytes);
        gpu.queue.submit([encoder.finish()]);
        await copy.mapAsync(GPUMapMode.READ);
        const f = new Float32Array(copy.getMappedRange().slice(0));
        copy.destroy();
        const firstWeights = new Set<number>();
        for (let k = 0; k < n; k++) {
          const b = k * DRAW_RECORD_WORDS;
          const active = [...both.cpu.instances[k].pose.weights].filter((w) => w !== 0);
          const recorded = [...f.subarray(b + DrawRecordWord.MORPH_WEIGHTS_0, b + DrawRecordWord.MORPH_WEIGHTS_0 + 4)].filter((w) => w !== 0);
          expect(recorded.length, `instance ${k}`).toBe(active.length);
          recorded.forEach((w, t) => expect(Math.abs(w - active[t]), `instance ${k} weight ${t}`).toBeLessThanOrEqual(4 * 2 ** -23));
          firstWeights.add(recorded[0]);
        }
        expect(firstWeights.size).toBeGreaterThan(n / 2);
        expect(both.covered).toBeGreaterThan(W * H / 50);
        expect(both.diff.pixels).toBeLessThanOrEqual(Math.ceil(both.covered * 0.01));
      } finally {
        await both.destroy();
      }
    });
  });

  it('meshes on moving bones (RobotExpressive) and moving mesh nodes (InterpolationTest): each instance\'s mesh node matrices from the GPU evaluator, the frame the CPU evaluator\'s', async () => {
    for (const [name, clip] of [['RobotExpressive', 6], ['InterpolationTest', 0]] as const) {
      const m = await loadModel(readFileSync(assetPath(name)), name);
      await expectNoGpuErrors(gpu, async () => {
        const n = 12;
        const both = await bothEvaluators(m, n, clip, name);
        try {
          expect(both.onGpu.gpu!.meshWorlds, name).toBeDefined();
          expect(both.written).toBeLessThan(n * 32 + 2048);
          // Later frames create no GPU object: one encoder, one submit, the frame's writeBuffers.
          const r = both.view.renderer;
          const counts = countGpuCalls(gpu, () => {
            for (let f = 0; f < 3; f++) {
              both.onGpu.update(DT);
              r.renderCrowd(both.view.target, both.view.camera, both.onGpu, both.onGpu.gpu);
            }
          });
          expect({ ...counts, writeBuffer: undefined }, name).toEqual({ createCommandEncoder: 3, submit: 3, writeBuffer: undefined });
          expect(both.covered, name).toBeGreaterThan(W * H / 50);
          expect(both.diff.pixels, name).toBeLessThanOrEqual(Math.ceil(both.covered * 0.01));
          expect(both.diff.maxChannel, name).toBeLessThanOrEqual(8);
        } finally {
          await both.destroy();
        }
      });
    }
  });
  it('a crowd whose meshes ride on bones is not drawn from the instances\' rest pose while the record pass builds: nothing until it is ready', async () => {
    const robot = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    const view = new OffscreenScene(gpu, W, H);
    try {
      await expectNoGpuErrors(gpu, async () => {
        await view.setModel(robot);
        const crowd = createCrowd(robot, 4, { evaluator: 'gpu', device: gpu });
        crowd.placeOnGrid(3);
        for (let k = 0; k < 4; k++) crowd.play(k, 6, k / 4);
        crowd.update(DT);
        const r = view.renderer;
        // A fresh renderer: the first frame starts building the record pass and draws none of the crowd.
        r.renderCrowd(view.target, view.camera, crowd, crowd.gpu);
        expect(r.stats.instances).toBe(0);
        expect(r.stats.triangles).toBe(0);
        expect(await r.prepareGpuCulling()).toBe(true);
        r.renderCrowd(view.target, view.camera, crowd, crowd.gpu);
        expect(r.stats.instances).toBe(4);
        expect(r.stats.drawCalls).toBeGreaterThan(0);
        await gpu.queue.onSubmittedWorkDone();
        crowd.destroy();
      });
    } finally {
      view.destroy();
    }
  });
});
