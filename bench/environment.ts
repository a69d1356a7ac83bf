/**
 * `npm run bench` (or `-- --environment` alone): what loading an image-based-lighting
 * environment costs — a 2048×1024 Radiance `.hdr` (written here: a sky with a sun and
 * noise, run-length encoded) parsed on the CPU, then prefiltered on the GPU (radiance cube,
 * its mips, the GGX specular chain, SH9 irradiance and its readback; src/gpu/environment/).
 * The peer in the same run is the plain upload of the same image as an rgba16float texture:
 * the ratio says how much the prefilter adds to what any viewer pays to get the pixels onto
 * the GPU. Then what the environment costs each frame afterwards: a 512² frame of the built-in
 * character lit by the `neutral` studio against the same frame under `legacy` lighting (no
 * environment), rounds interleaved. Dawn in Node on SwiftShader (a CPU rasteriser): only the
 * ratios travel to other machines. Writes bench/results/environment-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { downsampleEquirect, toHalfRgba, type EquirectImage } from '../src/gpu/environment/equirect.ts';
import { parseHdr, writeHdr } from '../src/gpu/environment/hdr.ts';
import { prefilterEnvironment } from '../src/gpu/environment/prefilter.ts';
import { MAX_EQUIRECT_WIDTH } from '../src/gpu/environment/prefilter-params.ts';
import { createNodeDevice } from '../src/gpu/device/node-device.ts';
import { createOffscreenTarget } from '../src/gpu/device/readback.ts';
import { neutralEnvironment } from '../src/gpu/environment/neutral.ts';
import { computeInstanceBounds } from '../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../src/gpu/frame/camera.ts';
import { Renderer } from '../src/gpu/renderer.ts';
import { createModelInstance, updateModelInstance } from '../src/anim/instance.ts';
import { buildBuiltinGlb } from '../src/builtin/index.ts';
import { loadGltf } from '../src/gltf/load.ts';
import { timeFrames } from './gpu/timed-frames.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const WIDTH = 2048, HEIGHT = 1024;

/** A sky over a ground with a small bright sun and some noise (so run-length coding has work to do). */
function skyImage(): EquirectImage {
  const rgb = new Float32Array(WIDTH * HEIGHT * 3);
  let seed = 1;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const sun = [0.4, 0.6, -0.69];
  for (let y = 0; y < HEIGHT; y++) {
    const theta = ((y + 0.5) / HEIGHT) * Math.PI;
    for (let x = 0; x < WIDTH; x++) {
      const phi = ((x + 0.5) / WIDTH - 0.5) * 2 * Math.PI;
      const d = [Math.sin(phi) * Math.sin(theta), Math.cos(theta), -Math.cos(phi) * Math.sin(theta)];
      const i = (y * WIDTH + x) * 3;
      const sunDot = d[0] * sun[0] + d[1] * sun[1] + d[2] * sun[2];
      const base = d[1] > 0 ? [0.3 + 0.4 * d[1], 0.45 + 0.4 * d[1], 0.9] : [0.25, 0.2, 0.15];
      const glow = sunDot > 0.9995 ? 5000 : 0;
      for (let c = 0; c < 3; c++) rgb[i + c] = base[c] * (0.9 + 0.2 * rand()) + glow;
    }
  }
  return { width: WIDTH, height: HEIGHT, rgb };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The frame comparison's view: the built-in character, square, as the docs quote it. */
const FRAME_SIZE = 512;

/**
 * What lighting by the `neutral` environment costs a frame: the built-in character (walking)
 * at 512², drawn lit by the prefiltered `neutral` studio and by the `legacy` key light and
 * hemisphere (no environment), by two renderers of one device, rounds interleaved. Returns the
 * medians (ms) and their ratio.
 */
async function neutralVsLegacyFrame(device: GPUDevice, rounds: number, framesPerRound: number): Promise<{ neutralMs: number; legacyMs: number; ratio: number }> {
  const model = await loadGltf(buildBuiltinGlb('character'), { name: 'built-in character' });
  const instance = createModelInstance(model);
  const target = createOffscreenTarget(device, FRAME_SIZE, FRAME_SIZE, 'rgba8unorm', 'lighting frame target');
  const camera = new OrbitCamera();
  camera.frame(computeInstanceBounds(instance), 1);
  const environment = await prefilterEnvironment(device, neutralEnvironment(), 'bench neutral');
  const lit = await Promise.all(['neutral', 'legacy'].map(async (lighting) => {
    const renderer = new Renderer(device, { format: 'rgba8unorm', label: `lighting frame ${lighting}`, gpuTiming: false });
    await renderer.setModel(model);
    if (lighting === 'neutral') renderer.setEnvironment(environment);
    return renderer;
  }));
  let time = 0;
  const advance = () => { time += 1 / 60; updateModelInstance(instance, 0, time % model.animations[0].duration); };
  const times = lit.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [k, renderer] of lit.entries()) times[k].push(...await timeFrames(device, framesPerRound, () => renderer.render(target, camera, instance), advance));
  }
  for (const renderer of lit) renderer.destroy();
  environment.destroy();
  target.destroy();
  const [neutralMs, legacyMs] = times.map(median);
  return { neutralMs, legacyMs, ratio: neutralMs / legacyMs };
}

export async function runEnvironmentBench(options: { quick?: boolean } = {}): Promise<void> {
  const rounds = options.quick ? 2 : 5;
  const device = await createNodeDevice({ label: 'environment bench' });
  const bytes = writeHdr(skyImage());
  const parse: number[] = [], prepare: number[] = [], prefilter: number[] = [], upload: number[] = [];
  // One warm-up round builds the pipelines (once per device, as on a page).
  for (let round = -1; round < rounds; round++) {
    let t = performance.now();
    const image = parseHdr(bytes);
    const parseMs = performance.now() - t;
    t = performance.now();
    toHalfRgba(downsampleEquirect(image, MAX_EQUIRECT_WIDTH));
    const prepareMs = performance.now() - t;
    t = performance.now();
    const environment = await prefilterEnvironment(device, image, 'bench environment');
    // It returns once its passes are submitted: the GPU's part counts too.
    await device.queue.onSubmittedWorkDone();
    const prefilterMs = performance.now() - t;
    environment.destroy();
    // The peer: the same pixels onto the GPU as a texture, and nothing else.
    t = performance.now();
    const half = toHalfRgba(image);
    const texture = device.createTexture({ label: 'bench upload', size: [WIDTH, HEIGHT], format: 'rgba16float', usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
    device.queue.writeTexture({ texture }, half, { bytesPerRow: WIDTH * 8 }, [WIDTH, HEIGHT]);
    await device.queue.onSubmittedWorkDone();
    const uploadMs = performance.now() - t;
    texture.destroy();
    if (round < 0) continue;
    parse.push(parseMs); prepare.push(prepareMs); prefilter.push(prefilterMs); upload.push(uploadMs);
  }
  const frame = await neutralVsLegacyFrame(device, options.quick ? 2 : 6, options.quick ? 2 : 5);
  device.destroy();
  const row = {
    file: `${WIDTH}×${HEIGHT} .hdr, RLE, ${(bytes.length / 1e6).toFixed(2)} MB`,
    'parse ms': median(parse).toFixed(1),
    'CPU prep ms (downsample + half floats)': median(prepare).toFixed(1),
    'prefilter ms (CPU prep + GPU + readback)': median(prefilter).toFixed(1),
    'upload-only ms (peer)': median(upload).toFixed(1),
    'prefilter / upload': (median(prefilter) / median(upload)).toFixed(1),
  };
  console.log('Environment prefiltering (Dawn on SwiftShader), medians of', rounds, 'rounds:');
  console.table([row]);
  console.log(`A ${FRAME_SIZE}² frame of the built-in character lit by 'neutral' / by 'legacy': ${frame.ratio.toFixed(2)}× (medians ${frame.neutralMs.toFixed(1)} / ${frame.legacyMs.toFixed(1)} ms)`);
  const out = resolve(HERE, options.quick ? 'results/environment-quick.json.tmp' : 'results/environment-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    device: 'Dawn (webgpu package) on SwiftShader',
    rounds, row,
    neutralVsLegacyFrame: { size: `${FRAME_SIZE}×${FRAME_SIZE}`, model: 'built-in character', ...frame },
    samplesMs: { parse, prepare, prefilter, upload },
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
}
