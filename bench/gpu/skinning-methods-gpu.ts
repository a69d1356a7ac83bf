/**
 * The GPU part of `npm run bench -- --skinning-methods`: frames of the same crowd drawn with
 * each skinning method by the Renderer's vertex path, in Node on Dawn with SwiftShader (a
 * frame's time is the wall time from `renderInstances` to `onSubmittedWorkDone`, which on a CPU
 * rasteriser is all of its GPU work). Rounds interleave the methods; only their ratios mean
 * anything. A full view, and a 16×16 one of the same crowd from far away, where rasterising
 * costs next to nothing and the frame is the vertex stage's (culling off: every instance drawn).
 */
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { SKINNING_METHODS, type SkinningMethod } from '../../src/anim/skinning-method.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { createOffscreenTarget } from '../../src/gpu/device/readback.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { assetPath } from '../../test/support/assets.ts';
import { nodeImageDecoder } from '../../test/support/png.ts';
import { gridPlacements } from './timed-frames.ts';

export interface MethodFramesRow {
  model: string;
  instances: number;
  target: string;
  ms: Record<SkinningMethod, number>;
  linearOverDq: number;
  corOverDq: number;
}

const TARGETS: readonly (readonly [number, number])[] = [[640, 480], [16, 16]];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function runMethodFrames(quick: boolean): Promise<MethodFramesRow[]> {
  const device = await createNodeDevice({ label: 'skinning-methods bench' });
  const renderer = new Renderer(device, { format: 'rgba8unorm', label: 'skinning-methods', gpuTiming: false, imageDecoder: nodeImageDecoder });
  renderer.settings.culling = false;
  const cases: [string, () => Promise<Model>, number][] = [
    ['CesiumMan', () => loadGltfFile(assetPath('CesiumMan')), quick ? 4 : 16],
    ['character', () => loadGltf(buildBuiltinGlb('character'), { name: 'character' }), quick ? 4 : 16],
  ];
  const rounds = quick ? 2 : 8, framesPerRound = quick ? 2 : 4;
  const rows: MethodFramesRow[] = [];
  try {
    for (const [name, load, count] of cases) {
      const model = await load();
      await renderer.setModel(model);
      for (const method of SKINNING_METHODS) await renderer.prepareSkinning(method);
      const instances: ModelInstance[] = [];
      const first = createModelInstance(model);
      updateModelInstance(first, 0, 0);
      const bounds = computeInstanceBounds(first);
      const spacing = Math.max(bounds.max[0] - bounds.min[0], bounds.max[2] - bounds.min[2]) * 1.5;
      const { side, placements } = gridPlacements(count, spacing);
      for (let k = 0; k < count; k++) instances.push(createModelInstance(model));
      for (const [width, height] of TARGETS) {
        const target = createOffscreenTarget(device, width, height, 'rgba8unorm', `skinning-methods target ${width}×${height}`);
        const camera = new OrbitCamera();
        camera.pitch = 0.4;
        camera.frame(bounds, width / height);
        camera.target[0] += ((side - 1) * spacing) / 2;
        camera.target[2] += ((side - 1) * spacing) / 2;
        camera.distance += side * spacing;
        camera.far = camera.distance * 4;
        const times: Record<SkinningMethod, number[]> = { 'linear': [], 'dual-quaternion': [], 'center-of-rotation': [] };
        let time = 0;
        for (let round = 0; round < rounds; round++) {
          for (const method of SKINNING_METHODS) {
            renderer.settings.skinning = method;
            // Warm-up frame (method switch), not measured.
            renderer.renderInstances(target, camera, instances, count, placements);
            await device.queue.onSubmittedWorkDone();
            for (let f = 0; f < framesPerRound; f++) {
              time += 1 / 60;
              for (let k = 0; k < count; k++) updateModelInstance(instances[k], 0, time + k * 0.07);
              const started = performance.now();
              renderer.renderInstances(target, camera, instances, count, placements);
              await device.queue.onSubmittedWorkDone();
              times[method].push(performance.now() - started);
              if (renderer.skinning !== method) throw new Error(`skinning-methods: asked for ${method}, the frame took ${renderer.skinning}`);
            }
          }
        }
        const ms = Object.fromEntries(SKINNING_METHODS.map((m) => [m, median(times[m])])) as Record<SkinningMethod, number>;
        rows.push({
          model: name, instances: count, target: `${width}×${height}`, ms,
          linearOverDq: ms.linear / ms['dual-quaternion'], corOverDq: ms['center-of-rotation'] / ms['dual-quaternion'],
        });
        target.destroy();
      }
    }
  } finally {
    renderer.destroy();
    device.destroy();
  }
  return rows;
}
