/**
 * `npm run bench -- --retarget`: what retargeting costs. Once, when clips are added: the time
 * `retargetClips` takes (the Fox's three clips onto a Fox copy with renamed joints, CesiumMan's
 * walk onto RiggedFigure). Per frame: a crowd playing the retargeted Walk against the same
 * crowd of the original Fox playing its own Walk, in the same run (updateInstanceBatch, median
 * of interleaved batches of process CPU time), and the clips' key-value bytes (exact counters).
 * Writes bench/results/retarget-latest.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addClips } from '../src/anim/retarget/add-clips.ts';
import { retargetClips } from '../src/anim/retarget/retarget.ts';
import { loadAnimationLibrary } from '../src/anim/retarget/animation-library.ts';
import { loadGltf } from '../src/gltf/load.ts';
import type { Clip, Model } from '../src/gltf/model.ts';
import { CESIUM_TO_FIGURE, editGlb } from '../test/anim/retarget/fixtures.ts';
import { assetPath } from '../test/support/assets.ts';
import { OurCrowd } from './pose-bench.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const clipBytes = (c: Clip): number => c.channels.reduce((n, ch) => n + ch.sampler.values.byteLength, 0) + c.timelines.reduce((n, t) => n + t.byteLength, 0);

/** Process CPU time per frame (ns): steadier than wall time on a shared machine, where lost time slices do not count. */
function timeFrames(crowd: OurCrowd, first: number, frames: number): number {
  const c0 = process.cpuUsage();
  for (let f = first; f < first + frames; f++) crowd.frame(f);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / frames;
}

export async function runRetargetBench({ quick }: { quick: boolean }): Promise<void> {
  const bytes = (name: string) => new Uint8Array(readFileSync(assetPath(name)));
  const fox = await loadAnimationLibrary(bytes('Fox'), { name: 'Fox.glb' });
  const copy = await loadGltf(editGlb(bytes('Fox'), (json) => {
    for (const node of json.nodes) if (typeof node.name === 'string' && node.name.startsWith('b_')) node.name = `FoxRig:${node.name.replace(/_/g, '.').toUpperCase()}`;
    delete json.animations;
  }), { name: 'FoxCopy.glb' });
  const cesium = await loadAnimationLibrary(bytes('CesiumMan'), { name: 'CesiumMan.glb' });
  const figure = await loadGltf(bytes('RiggedFigure'), { name: 'RiggedFigure.glb' });

  const once = (f: () => unknown): number => {
    const times: number[] = [];
    for (let i = 0; i < (quick ? 3 : 15); i++) {
      const t0 = performance.now();
      f();
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const foxMs = once(() => retargetClips(fox.clips, fox, copy));
  const figureMs = once(() => retargetClips(cesium.clips, cesium, figure, { jointMap: CESIUM_TO_FIGURE }));
  const retargeted: Model = addClips(copy, retargetClips(fox.clips, fox, copy).clips, 'Fox.glb');

  const walk = 1;
  const count = quick ? 10 : 100;
  const native = new OurCrowd(fox.model, walk, count), ours = new OurCrowd(retargeted, walk, count);
  const frames = quick ? 50 : 1000, rounds = quick ? 3 : 21;
  timeFrames(native, 0, frames * 4); timeFrames(ours, 0, frames * 4);
  const tn: number[] = [], tr: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternating which goes first, so a burst of load from elsewhere does not favour one side.
    if (r % 2 === 0) { tn.push(timeFrames(native, r * frames, frames)); tr.push(timeFrames(ours, r * frames, frames)); }
    else { tr.push(timeFrames(ours, r * frames, frames)); tn.push(timeFrames(native, r * frames, frames)); }
  }
  const nativeNs = median(tn), retargetedNs = median(tr);
  const result = {
    date: new Date().toISOString(),
    loadAverage: loadavg()[0],
    quick,
    retargetMs: { 'Fox (3 clips, 24 joints) → renamed Fox': foxMs, 'CesiumMan walk → RiggedFigure (user map)': figureMs },
    crowd: {
      characters: count,
      clip: 'Walk',
      nativeCpuNsPerFrame: nativeNs,
      retargetedCpuNsPerFrame: retargetedNs,
      retargetedOverNative: retargetedNs / nativeNs,
      nativeClip: { channels: fox.clips[walk].channels.length, timelines: fox.clips[walk].timelines.length, bytes: clipBytes(fox.clips[walk]) },
      retargetedClip: { channels: retargeted.animations[walk].channels.length, timelines: retargeted.animations[walk].timelines.length, bytes: clipBytes(retargeted.animations[walk]) },
    },
  };
  console.log(`retargetClips, once per clip set: Fox → renamed Fox ${foxMs.toFixed(2)} ms, CesiumMan → RiggedFigure ${figureMs.toFixed(2)} ms`);
  console.log(`${count} Foxes playing Walk (updateInstanceBatch): native ${(nativeNs / 1000).toFixed(1)} µs CPU/frame, retargeted ${(retargetedNs / 1000).toFixed(1)} µs CPU/frame — ratio ${(retargetedNs / nativeNs).toFixed(2)} (load ${result.loadAverage.toFixed(1)})`);
  console.log(`clip data: native ${result.crowd.nativeClip.channels} channels ${result.crowd.nativeClip.bytes} B, retargeted ${result.crowd.retargetedClip.channels} channels ${result.crowd.retargetedClip.bytes} B`);
  const out = resolve(HERE, quick ? 'results/retarget-quick.json.tmp' : 'results/retarget-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
}
