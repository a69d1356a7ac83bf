/**
 * MToon's cost: frames of the built-in VRM avatar (every material MToon, outlines on all but
 * the eyes) drawn three ways in one run — MToon with its outlines, MToon with outlines off
 * (`outlineWidth = 0`: the outline draws are skipped), and the same file as glTF PBR
 * (`RenderSettings.mtoon = false`, its fallback materials) — alone and as a crowd.
 *
 * Runs in Node on Dawn (the `webgpu` package) with SwiftShader: a frame's time is the wall time
 * from `renderInstances` to `onSubmittedWorkDone`, which on a CPU rasteriser is all of its GPU
 * work. Rounds interleave the three ways; only their ratios mean anything.
 * `npm run bench -- --mtoon` (or `--mtoon --quick`); writes bench/results/mtoon-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { createOffscreenTarget } from '../../src/gpu/device/readback.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { gridPlacements, median, timeFrames } from './timed-frames.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const SIZE = [640, 480] as const;
/** The avatar's Walk clip. */
const CLIP = 0;
const SPACING = 1.2;

const WAYS = ['mtoon', 'mtoon-no-outline', 'pbr'] as const;
type Way = typeof WAYS[number];

export interface MToonBenchOptions {
  readonly quick?: boolean;
}

interface Row {
  instances: number;
  ms: Record<Way, number>;
  /** MToon with outlines / PBR, MToon without outlines / PBR. */
  mtoonOverPbr: number;
  noOutlineOverPbr: number;
  drawCalls: Record<Way, number>;
}

export async function runMToonBench(options: MToonBenchOptions = {}): Promise<Row[]> {
  const quick = options.quick === true;
  const counts = quick ? [1, 4] : [1, 16];
  const rounds = quick ? 2 : 6;
  const framesPerRound = quick ? 3 : 6;
  const device = await createNodeDevice({ label: 'MToon bench' });
  const model = await loadGltf(buildBuiltinGlb('vrm-avatar'), { name: 'vrm-avatar' });
  const renderers: Record<'mtoon' | 'pbr', Renderer> = {
    mtoon: new Renderer(device, { format: 'rgba8unorm', label: 'MToon bench (MToon)', gpuTiming: false }),
    pbr: new Renderer(device, { format: 'rgba8unorm', label: 'MToon bench (PBR)', gpuTiming: false }),
  };
  renderers.pbr.settings.mtoon = false;
  for (const r of Object.values(renderers)) {
    r.settings.lightSpace = 'world';
    r.settings.lightDirection.set([0.4, 0.8, 0.45]);
    await r.setModel(model);
  }
  const target = createOffscreenTarget(device, SIZE[0], SIZE[1], 'rgba8unorm', 'MToon bench target');
  const rows: Row[] = [];
  for (const count of counts) {
    const instances: ModelInstance[] = [];
    const { side, placements } = gridPlacements(count, SPACING);
    for (let k = 0; k < count; k++) {
      const instance = createModelInstance(model);
      updateModelInstance(instance, CLIP, k * 0.07);
      instances.push(instance);
    }
    const camera = new OrbitCamera();
    camera.pitch = 0.3;
    camera.frame(computeInstanceBounds(instances[0]), SIZE[0] / SIZE[1]);
    camera.target[0] += ((side - 1) * SPACING) / 2;
    camera.target[2] += ((side - 1) * SPACING) / 2;
    camera.distance += (side - 1) * SPACING * 1.5;
    camera.far = camera.distance * 4;
    const times: Record<Way, number[]> = { 'mtoon': [], 'mtoon-no-outline': [], 'pbr': [] };
    const drawCalls = { 'mtoon': 0, 'mtoon-no-outline': 0, 'pbr': 0 };
    let time = 0;
    for (let round = 0; round < rounds; round++) {
      for (const way of WAYS) {
        const renderer = way === 'pbr' ? renderers.pbr : renderers.mtoon;
        renderer.settings.outlineWidth = way === 'mtoon-no-outline' ? 0 : 1;
        const draw = () => renderer.renderInstances(target, camera, instances, count, placements);
        times[way].push(...await timeFrames(device, framesPerRound, draw, () => {
          time += 1 / 60;
          for (const instance of instances) updateModelInstance(instance, CLIP, time);
        }));
        drawCalls[way] = renderer.stats.drawCalls;
      }
    }
    const ms = { 'mtoon': median(times.mtoon), 'mtoon-no-outline': median(times['mtoon-no-outline']), 'pbr': median(times.pbr) };
    const row: Row = { instances: count, ms, mtoonOverPbr: ms.mtoon / ms.pbr, noOutlineOverPbr: ms['mtoon-no-outline'] / ms.pbr, drawCalls };
    rows.push(row);
    console.log(`${String(count).padStart(3)} avatar(s), ${SIZE[0]}×${SIZE[1]}: MToon/PBR ${row.mtoonOverPbr.toFixed(2)}, `
      + `MToon without outlines/PBR ${row.noOutlineOverPbr.toFixed(2)} (draw calls ${drawCalls.mtoon} / ${drawCalls['mtoon-no-outline']} / ${drawCalls.pbr})`);
  }
  target.destroy();
  for (const r of Object.values(renderers)) r.destroy();
  device.destroy();
  const out = resolve(HERE, '../results/mtoon-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    device: 'Dawn (webgpu package) on SwiftShader',
    target: `${SIZE[0]}×${SIZE[1]}, 4× MSAA, legacy lighting`,
    quick,
    rows,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return rows;
}
