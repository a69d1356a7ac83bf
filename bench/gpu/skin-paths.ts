/**
 * Skinning paths (RenderSettings.skinningPath): the vertex path (skin in every pass's vertex
 * stage) against the compute path (skin once, read in every pass), with one pass (shadows
 * off) and two (shadows on), for Fox crowds of growing size. Measures what decides the
 * 'auto' rule (src/gpu/draw/preskin.ts `chooseSkinningPath`).
 *
 * Runs in Node on Dawn (the `webgpu` package) with SwiftShader: a frame's time is the wall
 * time from `render` to `onSubmittedWorkDone`, which on a CPU rasteriser is all of its GPU
 * work. Only ratios between paths measured side by side mean anything (rounds interleave
 * the two paths). `npm run bench -- --skin-paths` (or `--skin-paths --quick`); writes
 * bench/results/skin-paths-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { createOffscreenTarget } from '../../src/gpu/device/readback.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import type { SkinningPath } from '../../src/gpu/frame/render-settings.ts';
import { assetPath } from '../../test/support/assets.ts';
import { nodeImageDecoder } from '../../test/support/png.ts';
import { gridPlacements, median, timeFrames } from './timed-frames.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** A full view, and a small one where rasterising costs little and vertex work shows. */
const TARGETS: readonly (readonly [number, number])[] = [[640, 480], [160, 120]];
/** Fox clip 1: "Walk". */
const CLIP = 1;

export interface SkinPathsOptions {
  readonly quick?: boolean;
}

interface Row {
  target: string;
  instances: number;
  skinnedVertices: number;
  shadows: boolean;
  vertexMs: number;
  computeMs: number;
  /** compute / vertex: below 1 means the compute path is faster. */
  ratio: number;
}

export async function runSkinPathsBench(options: SkinPathsOptions = {}): Promise<Row[]> {
  const quick = options.quick === true;
  const counts = quick ? [1, 8] : [1, 4, 16, 48];
  const rounds = quick ? 2 : 6;
  const framesPerRound = quick ? 3 : 6;
  const device = await createNodeDevice({ label: 'skin-paths bench' });
  const model = await loadGltfFile(assetPath('Fox'));
  const renderer = new Renderer(device, { format: 'rgba8unorm', label: 'skin-paths', gpuTiming: false, imageDecoder: nodeImageDecoder });
  const s = renderer.settings;
  s.lightSpace = 'world';
  s.lightDirection.set([0.4, 0.8, 0.45]);
  s.shadowMapSize = 1024;
  await renderer.setModel(model);
  await renderer.prepareShadows();
  await renderer.prepareComputeSkinning();
  const verticesPerFox = model.meshes.flatMap((m) => m.primitives).reduce((n, p) => n + (p.influences > 0 ? p.vertexCount : 0), 0);
  const rows: Row[] = [];
  for (const [width, height] of TARGETS) {
    const target = createOffscreenTarget(device, width, height, 'rgba8unorm', `skin-paths target ${width}×${height}`);
    for (const count of counts) {
      // A square grid of Foxes, each a little further along its walk.
      const instances: ModelInstance[] = [];
      const { side, placements } = gridPlacements(count, 150);
      for (let k = 0; k < count; k++) {
        const instance = createModelInstance(model);
        updateModelInstance(instance, CLIP, k * 0.07);
        instances.push(instance);
      }
      const camera = new OrbitCamera();
      camera.pitch = 0.5;
      const bounds = computeInstanceBounds(instances[0]);
      camera.frame(bounds, width / height);
      camera.target[0] += ((side - 1) * 150) / 2;
      camera.target[2] += ((side - 1) * 150) / 2;
      camera.distance += side * 150;
      camera.far = camera.distance * 4;
      for (const shadows of [false, true]) {
        s.shadows = shadows;
        const times: Record<SkinningPath, number[]> = { vertex: [], compute: [] };
        let time = 0;
        for (let round = 0; round < rounds; round++) {
          for (const path of ['vertex', 'compute'] as SkinningPath[]) {
            s.skinningPath = path;
            const draw = () => renderer.renderInstances(target, camera, instances, count, placements);
            times[path].push(...await timeFrames(device, framesPerRound, draw, () => {
              time += 1 / 60;
              for (const instance of instances) updateModelInstance(instance, CLIP, time);
            }));
            if (renderer.skinningPath !== path) throw new Error(`skin-paths: asked for ${path}, the frames took ${renderer.skinningPath}`);
          }
        }
        const vertexMs = median(times.vertex), computeMs = median(times.compute);
        rows.push({ target: `${width}×${height}`, instances: count, skinnedVertices: verticesPerFox * count, shadows, vertexMs, computeMs, ratio: computeMs / vertexMs });
        const last = rows[rows.length - 1];
        console.log(`${width}×${height} ${String(count).padStart(4)} Fox (${String(last.skinnedVertices).padStart(6)} skinned vertices), shadows ${shadows ? 'on ' : 'off'}: `
          + `vertex ${vertexMs.toFixed(2)} ms, compute ${computeMs.toFixed(2)} ms, compute/vertex ${last.ratio.toFixed(2)}`);
      }
    }
    target.destroy();
  }
  renderer.destroy();
  device.destroy();
  const out = resolve(HERE, '../results/skin-paths-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    device: 'Dawn (webgpu package) on SwiftShader',
    target: '4× MSAA, shadow map 1024²',
    quick,
    rows,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return rows;
}
