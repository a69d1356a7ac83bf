/**
 * The frame cost of each PBR material extension (KHR_materials_*) against the same model without
 * it, in one run: a sphere (test/support/spheres.ts) filling most of a 640×480 view in front of an
 * unlit backdrop, drawn with a plain glTF PBR material and with each extension in turn (the
 * values of test/support/pbr-materials.ts, no textures), and with all ten. The transmission rows
 * include the transmission pass (the backdrop drawn again into the transmitted scene, and its
 * mips); their extra draw calls are reported beside them. The pass on its own: the plain sphere
 * with a second sphere behind the camera (drawn by no pixel) that is transmissive (the pass runs:
 * the plain sphere and the backdrop drawn again, and the mips) or its opaque twin (no pass); the
 * difference between the two rows is the pass alone.
 *
 * Runs in Node on Dawn (the `webgpu` package) with SwiftShader: a frame's time is the wall time
 * from `render` to `onSubmittedWorkDone` (timed-frames.ts). Only ratios between cases measured side by side mean
 * anything (rounds interleave the cases). `npm run bench -- --pbr-extensions` (or with
 * `--quick`); writes bench/results/pbr-extensions-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelInstance } from '../../src/anim/instance.ts';
import type { GltfMaterialJson } from '../../src/gltf/builder.ts';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { createOffscreenTarget } from '../../src/gpu/device/readback.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { everyPbrExtension, PBR_EXTENSION_NAMES, type PbrExtensionName } from '../../test/support/pbr-materials.ts';
import { nodeImageDecoder } from '../../test/support/png.ts';
import { sphereGlb } from '../../test/support/spheres.ts';
import { median, timeFrames } from './timed-frames.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const WIDTH = 640, HEIGHT = 480;

export interface PbrExtensionsBenchOptions {
  readonly quick?: boolean;
}

interface Row {
  case: string;
  ms: number;
  /** ms / the plain material's ms, measured in the same rounds. */
  ratio: number;
  drawCalls: number;
}

/** Extensions that show only with others: volume and dispersion need transmission to be seen through. */
const NEEDS: Partial<Record<PbrExtensionName, readonly PbrExtensionName[]>> = {
  KHR_materials_volume: ['KHR_materials_transmission'],
  KHR_materials_dispersion: ['KHR_materials_transmission', 'KHR_materials_volume'],
};

/** `names`' values of everyPbrExtension without their textures, on a grey dielectric. */
function material(names: readonly PbrExtensionName[]): GltfMaterialJson {
  const all = everyPbrExtension(() => 0);
  const extensions: Record<string, unknown> = {};
  for (const name of names) extensions[name] = Object.fromEntries(Object.entries(all[name]).filter(([key]) => !key.endsWith('Texture')));
  return { pbrMetallicRoughness: { baseColorFactor: [0.6, 0.6, 0.6, 1], metallicFactor: 0, roughnessFactor: 0.4 }, extensions };
}

/** Where the second sphere of the pass-alone rows sits: behind the camera (at +3.2 on z, looking at the origin). */
const BEHIND_CAMERA = [0, 0, 50] as const;

/** The plain sphere and backdrop, with a second sphere of `hidden` behind the camera. */
function withHiddenSphere(hidden: GltfMaterialJson, extensionsUsed: readonly string[]): Uint8Array {
  const { json, bin } = parseGlb(sphereGlb(material([]), { more: [hidden], extensionsUsed, backdrop: [0.2, 0.3, 0.5] }));
  (json as { nodes: { translation?: number[] }[] }).nodes[1].translation = [...BEHIND_CAMERA];
  return encodeGlb(json, bin);
}

export async function runPbrExtensionsBench(options: PbrExtensionsBenchOptions = {}): Promise<Row[]> {
  const quick = options.quick === true;
  const rounds = quick ? 2 : 8;
  const framesPerRound = quick ? 2 : 6;
  const device = await createNodeDevice({ label: 'pbr-extensions bench' });
  const cases: [string, readonly PbrExtensionName[]][] = [
    ['plain', []],
    ...PBR_EXTENSION_NAMES.map((name): [string, readonly PbrExtensionName[]] => [name.replace('KHR_materials_', ''), [...(NEEDS[name] ?? []), name]]),
    ['all ten', PBR_EXTENSION_NAMES],
  ];
  const target = createOffscreenTarget(device, WIDTH, HEIGHT, 'rgba8unorm', 'pbr-extensions target');
  const camera = new OrbitCamera();
  camera.distance = 3.2;
  const transmissive = material(['KHR_materials_transmission']);
  const files: [string, Uint8Array][] = [
    ...cases.map(([name, names]): [string, Uint8Array] => [name, sphereGlb(material(names), { extensionsUsed: names, backdrop: [0.2, 0.3, 0.5] })]),
    ['plain + hidden opaque twin (no pass)', withHiddenSphere({ ...transmissive, extensions: {} }, [])],
    ['plain + hidden transmissive (pass)', withHiddenSphere(transmissive, ['KHR_materials_transmission'])],
  ];
  const drawn = await Promise.all(files.map(async ([name, glb]) => {
    const model = await loadGltf(glb, { name });
    const renderer = new Renderer(device, { format: 'rgba8unorm', label: `pbr-extensions ${name}`, gpuTiming: false, imageDecoder: nodeImageDecoder });
    await renderer.setModel(model);
    return { name, renderer, instance: createModelInstance(model) };
  }));
  // Pipelines (and the transmission pass's) built before anything is measured.
  for (const d of drawn) {
    for (let i = 0; i < 3; i++) d.renderer.render(target, camera, d.instance);
    await device.queue.onSubmittedWorkDone();
  }
  const times = drawn.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [k, d] of drawn.entries()) {
      // The sphere does not move: nothing to advance between frames.
      times[k].push(...await timeFrames(device, framesPerRound, () => d.renderer.render(target, camera, d.instance), () => {}));
    }
  }
  const plainMs = median(times[0]);
  const rows: Row[] = drawn.map((d, k) => ({ case: d.name, ms: median(times[k]), ratio: median(times[k]) / plainMs, drawCalls: d.renderer.stats.drawCalls }));
  for (const r of rows) console.log(`${r.case.padEnd(36)} ${r.ms.toFixed(2).padStart(7)} ms  ×${r.ratio.toFixed(2)} of plain  ${r.drawCalls} draw calls`);
  const [twin, pass] = rows.slice(-2);
  const passAlone = (pass.ms - twin.ms) / plainMs;
  console.log(`the transmission pass alone: ${passAlone.toFixed(2)} of a plain frame (+${pass.drawCalls - twin.drawCalls} draw calls)`);
  for (const d of drawn) d.renderer.destroy();
  target.destroy();
  device.destroy();
  const out = resolve(HERE, '../results/pbr-extensions-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    device: 'Dawn (webgpu package) on SwiftShader',
    target: `${WIDTH}×${HEIGHT}, 4× MSAA, legacy lighting, no shadows`,
    quick,
    rows,
    transmissionPassAlone: passAlone,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return rows;
}
