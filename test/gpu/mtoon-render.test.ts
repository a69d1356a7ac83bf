/**
 * MToon through the Renderer on Dawn: the MToon path draws under every skinning method and
 * path, with shadows, under an environment and for crowds; outlines follow `outlineWidth`;
 * what a material does not use is not compiled or drawn, and a model without MToon builds
 * nothing of it; expression binds drive the MToon uniforms; `mtoon: false` draws the fallback.
 *
 * The skinned spheres are skinned to one joint at rest (identity palette): every method must
 * draw exactly what the rigid file draws, so a difference is a path that lost the material.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { neutralEnvironment } from '../../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../../src/gpu/environment/prefilter.ts';
import { MeshPipelines } from '../../src/gpu/pipelines/mesh.ts';
import { ExpressionJob } from '../../src/anim/vrm/expressions.ts';
import { buildMToonFile, mtoonMaterial } from '../support/mtoon-fixtures.ts';
import { writeArtifactPng } from '../support/png.ts';
import { coverage, expectNoGpuErrors, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';
import { onOwnDevice } from '../support/webgpu.ts';

const W = 200, H = 120;

function spheres(skinned: boolean): Uint8Array {
  return buildMToonFile({
    skinned,
    spheres: [{ center: [-0.55, 0, 0], radius: 0.45, material: 0 }, { center: [0.55, 0, 0], radius: 0.45, material: 1 }],
    materials: [
      mtoonMaterial({
        shadeColorFactor: [0.15, 0.1, 0.4], shadingToonyFactor: 0.95, parametricRimColorFactor: [0.5, 0.5, 0.5], parametricRimFresnelPowerFactor: 3,
        outlineWidthMode: 'worldCoordinates', outlineWidthFactor: 0.03, outlineColorFactor: [0.9, 0.1, 0.1], outlineLightingMixFactor: 0,
      }, { pbrMetallicRoughness: { baseColorFactor: [0.9, 0.8, 0.3, 1] } }),
      mtoonMaterial({
        shadeColorFactor: [0.4, 0.1, 0.1], outlineWidthMode: 'screenCoordinates', outlineWidthFactor: 0.02, outlineColorFactor: [0.1, 0.9, 0.1],
        outlineLightingMixFactor: 0, uvAnimationScrollXSpeedFactor: 0.5,
      }, { pbrMetallicRoughness: { baseColorFactor: [0.3, 0.7, 0.9, 0.8] }, alphaMode: 'BLEND' }),
    ],
  });
}

function maxDifference(a: Frame, b: Frame): number {
  let max = 0;
  for (let i = 0; i < a.rgba.length; i++) max = Math.max(max, Math.abs(a.rgba[i] - b.rgba[i]));
  return max;
}

/** Pixels whose colour is mostly `channel` (the outlines are pure red and green). */
function countColour(frame: Frame, channel: 0 | 1): number {
  let n = 0;
  for (let i = 0; i < frame.rgba.length; i += 4) {
    const c = frame.rgba[i + channel], o1 = frame.rgba[i + ((channel + 1) % 3)], o2 = frame.rgba[i + ((channel + 2) % 3)];
    if (frame.rgba[i + 3] > 200 && c > 150 && o1 < 90 && o2 < 90) n++;
  }
  return n;
}

const device = await testDevice();

describe.skipIf(!device)('MToon through the Renderer (Dawn)', () => {
  const gpu = device!;
  let loadedSpheres: Model;
  beforeAll(async () => { loadedSpheres = await loadGltf(spheres(false)); });

  // On a device of its own: on the shared one, other files' MToon and PBR pipelines are already cached.
  it('plain PBR pays nothing: a model without MToon builds no MToon module, layout or pipeline and draws what it drew', () => onOwnDevice('MToon pay-nothing test device', async (gpu) => {
    const scene = new OffscreenScene(gpu, W, H);
    const character = await loadGltf(buildBuiltinGlb('character'));
    const created: string[] = [];
    const original = gpu.createShaderModule.bind(gpu);
    gpu.createShaderModule = ((d: GPUShaderModuleDescriptor) => { created.push(d.label ?? ''); return original(d); }) as typeof gpu.createShaderModule;
    const pipelines: string[] = [];
    const originalAsync = gpu.createRenderPipelineAsync.bind(gpu);
    gpu.createRenderPipelineAsync = ((d: GPURenderPipelineDescriptor) => { pipelines.push(d.label ?? ''); return originalAsync(d); }) as typeof gpu.createRenderPipelineAsync;
    try {
      await expectNoGpuErrors(gpu, () => scene.setModel(character));
      await expectNoGpuErrors(gpu, () => scene.render());
    } finally {
      gpu.createShaderModule = original;
      gpu.createRenderPipelineAsync = originalAsync;
    }
    expect(created.filter((l) => /mtoon/.test(l))).toEqual([]);
    expect(pipelines.filter((l) => /mtoon|outline/.test(l))).toEqual([]);
    expect(pipelines.length).toBeGreaterThan(0);
    // One call per primitive, as before MToon existed.
    expect(scene.renderer.stats.drawCalls).toBe(character.meshes.reduce((n, m) => n + m.primitives.length, 0));
    expect(new MeshPipelines(gpu).module.label).toBe('mesh (pbr)');
    scene.destroy();
  }));

  it('every skinning method and path, shadows, an environment and a crowd draw the skinned spheres as the rigid ones', async () => {
    const [rigid, skinned] = await Promise.all([loadGltf(spheres(false), { name: 'rigid' }), loadGltf(spheres(true), { name: 'skinned' })]);
    const environment = await prefilterEnvironment(gpu, neutralEnvironment(64), 'neutral');
    const placements = new Float64Array(3 * 16);
    for (let k = 0; k < 3; k++) placements.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, (k - 1) * 0.4, (k - 1) * 0.3, -k * 0.6, 1], k * 16);
    const configs = [
      { name: 'linear' }, { name: 'dual-quaternion', skinning: 'dual-quaternion' as const }, { name: 'centre of rotation', skinning: 'center-of-rotation' as const },
      { name: 'compute path with shadows', shadows: true, path: 'compute' as const },
      { name: 'dual quaternions, compute path with shadows', skinning: 'dual-quaternion' as const, shadows: true, path: 'compute' as const },
      { name: 'neutral environment', environment: true }, { name: 'crowd of 3', crowd: true },
    ];
    for (const c of configs) {
      const frames: Frame[] = [];
      for (const model of [rigid, skinned]) {
        const scene = new OffscreenScene(gpu, W, H);
        const s = scene.renderer.settings;
        s.skinning = c.skinning ?? 'linear';
        s.shadows = c.shadows ?? false;
        s.skinningPath = c.path ?? 'vertex';
        if (c.environment) scene.renderer.setEnvironment(environment);
        await expectNoGpuErrors(gpu, async () => {
          await scene.setModelHeadOn(model, 3.2);
          await scene.renderer.prepareSkinning();
          if (c.shadows) await scene.renderer.prepareShadows();
          if (c.path === 'compute') await scene.renderer.prepareComputeSkinning();
        });
        const frame = await expectNoGpuErrors(gpu, async () => {
          if (!c.crowd) return scene.render();
          const instances = [0, 1, 2].map(() => createModelInstance(model));
          scene.renderer.renderInstances(scene.target, scene.camera, instances, 3, placements);
          return scene.read();
        });
        expect(scene.renderer.skinning, c.name).toBe(c.skinning ?? 'linear');
        if (c.path === 'compute' && model === skinned) expect(scene.renderer.skinningPath, c.name).toBe('compute');
        frames.push(frame);
        scene.destroy();
      }
      writeArtifactPng(`mtoon-paths-${c.name.replace(/\W+/g, '-')}`, W, H, frames[1].rgba);
      expect(coverage(frames[1]), c.name).toBeGreaterThan(0.15);
      // Both outlines are drawn (the red world-width one, the green screen-width one).
      expect(countColour(frames[1], 0), `${c.name}: red outline`).toBeGreaterThan(40);
      expect(countColour(frames[1], 1), `${c.name}: green outline`).toBeGreaterThan(40);
      expect(maxDifference(frames[0], frames[1]), c.name).toBeLessThanOrEqual(3);
    }
  });

  it('outlineWidth scales the outlines and 0 drops their draws; a material without an outline gets no outline pipeline', async () => {
    const scene = new OffscreenScene(gpu, W, H);
    const model = await loadGltf(spheres(false));
    await expectNoGpuErrors(gpu, () => scene.setModelHeadOn(model, 3.2));
    const counts: number[][] = [];
    const calls: number[] = [];
    for (const width of [1, 0.5, 0]) {
      scene.renderer.settings.outlineWidth = width;
      const frame = await expectNoGpuErrors(gpu, () => scene.render());
      counts.push([countColour(frame, 0), countColour(frame, 1)]);
      calls.push(scene.renderer.stats.drawCalls);
    }
    // Two surfaces and two outlines; at 0 the outlines are not drawn at all.
    expect(calls).toEqual([4, 4, 2]);
    expect(counts[1][0]).toBeLessThan(counts[0][0] * 0.7);
    expect(counts[1][1]).toBeLessThan(counts[0][1] * 0.7);
    expect(counts[2]).toEqual([0, 0]);
    // Without an outline: no outline pipeline, one draw per sphere.
    const plain = await loadGltf(buildMToonFile({ spheres: [{ center: [0, 0, 0], radius: 0.5, material: 0 }], materials: [mtoonMaterial({})] }));
    scene.renderer.settings.outlineWidth = 1;
    await scene.setModelHeadOn(plain, 3);
    await expectNoGpuErrors(gpu, () => scene.render());
    expect(scene.renderer.stats.drawCalls).toBe(1);
    scene.destroy();
  });

  it('RenderSettings.mtoon false draws an MToon model with its glTF fallback (no outline, PBR pipelines)', async () => {
    const scene = new OffscreenScene(gpu, W, H);
    scene.renderer.settings.mtoon = false;
    await expectNoGpuErrors(gpu, () => scene.setModelHeadOn(loadedSpheres, 3.2));
    const frame = await expectNoGpuErrors(gpu, () => scene.render());
    expect(scene.renderer.stats.drawCalls).toBe(2);
    expect([countColour(frame, 0), countColour(frame, 1)]).toEqual([0, 0]);
    scene.destroy();
  });

  it('VRM expression binds drive the MToon uniforms: angry turns the avatar’s shade red', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    const scene = new OffscreenScene(gpu, 160, 200);
    await expectNoGpuErrors(gpu, () => scene.setModel(model));
    // From behind and a little to the side: the key light comes from the front, so most of the body shows its shade.
    scene.camera.yaw = Math.PI * 0.85;
    const render = async (angry: number): Promise<Frame> => {
      const job = scene.instance.vrm!.expressions as ExpressionJob;
      job.setWeight('angry', angry);
      updateModelInstance(scene.instance, -1, 0);
      return expectNoGpuErrors(gpu, () => scene.render());
    };
    const calm = await render(0);
    const angry = await render(1);
    writeArtifactPng('mtoon-avatar-calm', 160, 200, calm.rgba);
    writeArtifactPng('mtoon-avatar-angry', 160, 200, angry.rgba);
    // The skin's shade (and lit colour) move to red: more of the frame is reddish, none less.
    const reddish = (f: Frame) => { let n = 0; for (let i = 0; i < f.rgba.length; i += 4) if (f.rgba[i + 3] > 0 && f.rgba[i] > f.rgba[i + 1] * 1.6 && f.rgba[i] > 60) n++; return n; };
    expect(reddish(angry)).toBeGreaterThan(reddish(calm) + 100);
    scene.destroy();
  });
});
