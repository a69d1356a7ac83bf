/**
 * Ray casts against the skinned surface (src/skin/raycast.ts, what hotspot occlusion and
 * `positionAndNormalFromPoint` use), ours vs three.js 0.187's `Raycaster` on a SkinnedMesh,
 * in one process on the same glTF data and the same rays, after checking both find the
 * same hits.
 *
 * A "frame" is what the element does per drawn frame: the pose changed (ours:
 * `invalidate()`; three: `computeBoundingBox()` + `computeBoundingSphere()` on each
 * SkinnedMesh, which three's docs ask for after a pose change, or its ray culling uses the
 * first pose's bounds), then k rays (1: a click; 8: eight hotspots). Posing itself (our
 * player / three's mixer) is outside the timing on both sides. Ours skins each mesh node
 * the rays reach once per frame and walks its triangles; three skins three vertices per
 * triangle per ray.
 *
 * `npm run bench -- --raycast` (or `--raycast --quick`); writes bench/results/raycast-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Raycaster, Vector3, type SkinnedMesh } from 'three';
import { computeInstanceBounds } from '../src/gpu/frame/bounds.ts';
import { createModelInstance, updateModelInstance } from '../src/anim/instance.ts';
import { loadGltfFile } from '../src/cli/load-file.ts';
import { createRayHit, SkinnedRaycaster } from '../src/skin/raycast.ts';
import { assetPath } from '../test/support/assets.ts';
import { loadThreeGltf, normalizeRotationKeys, poseThree } from '../test/support/three-node.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = [
  { asset: 'CesiumMan', clip: 0 },
  { asset: 'Fox', clip: 1 },
  { asset: 'RiggedFigure', clip: 0 },
];
const RAYS_PER_FRAME = [1, 8];
/** Poses cycled through (fractions of the clip). */
const POSES = [0.1, 0.35, 0.6, 0.85];

export interface RaycastRow {
  asset: string;
  vertices: number;
  triangles: number;
  raysPerFrame: number;
  oursUsPerFrame: number;
  threeUsPerFrame: number;
  ratio: number;
  hitsCompared: number;
  hitsAgreeing: number;
}

export async function runRaycastBench(options: { quick?: boolean } = {}): Promise<RaycastRow[]> {
  const quick = options.quick === true;
  const frames = quick ? 20 : 200;
  const rows: RaycastRow[] = [];
  console.log('ray casts against the skinned surface, ours vs three.js Raycaster (per frame: the pose changed, then k rays):');
  for (const c of CASES) {
    const path = assetPath(c.asset);
    const model = await loadGltfFile(path);
    const gltf = await loadThreeGltf(path);
    normalizeRotationKeys(gltf.animations);
    const meshes: SkinnedMesh[] = [];
    gltf.scene.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) meshes.push(o as SkinnedMesh); });
    const instance = createModelInstance(model);
    const caster = new SkinnedRaycaster(model);
    const hit = createRayHit();
    const raycaster = new Raycaster();
    const vertices = model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + p.vertexCount, 0), 0);
    const triangles = model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + (p.indices ? p.indices.length : p.vertexCount) / 3, 0), 0);
    const duration = model.animations[c.clip].duration;
    const threeClip = gltf.animations[c.clip];

    // Rays from in front, through a grid over the rest pose's box: most hit, some miss.
    updateModelInstance(instance, c.clip, 0);
    const b = computeInstanceBounds(instance);
    const rays: { o: Float64Array; d: Float64Array }[] = [];
    for (let k = 0; k < 8; k++) {
      const fx = 0.25 + 0.5 * ((k % 4) / 3), fy = 0.2 + 0.6 * (Math.floor(k / 4));
      const target = [b.min[0] + fx * (b.max[0] - b.min[0]), b.min[1] + fy * (b.max[1] - b.min[1]), b.center[2]];
      const o = Float64Array.of(target[0] + 0.3 * b.radius, target[1] + 0.2 * b.radius, b.center[2] + 4 * b.radius);
      const d = Float64Array.from([0, 1, 2], (i) => target[i] - o[i]);
      const len = Math.hypot(d[0], d[1], d[2]);
      for (let i = 0; i < 3; i++) d[i] /= len;
      rays.push({ o, d });
    }

    // Both sides at the same poses: the same hits (distance within 1e-4 of the model's size).
    let compared = 0, agreeing = 0;
    const origin = new Vector3(), direction = new Vector3();
    const stops: (() => void)[] = [];
    const threePoses = POSES.map((f) => f * duration);
    for (const time of threePoses) {
      updateModelInstance(instance, c.clip, time);
      caster.invalidate();
      const stop = poseThree(gltf.scene, threeClip, time);
      for (const m of meshes) { m.computeBoundingBox(); m.computeBoundingSphere(); }
      for (const r of rays) {
        const ours = caster.cast(instance, r.o, r.d, hit) ? hit.distance : undefined;
        raycaster.set(origin.fromArray(r.o), direction.fromArray(r.d));
        const theirs = raycaster.intersectObject(gltf.scene, true)[0]?.distance;
        compared++;
        if ((ours === undefined && theirs === undefined) || (ours !== undefined && theirs !== undefined && Math.abs(ours - theirs) < 1e-4 * b.radius)) agreeing++;
      }
      stops.push(stop);
    }
    for (const stop of stops) stop();

    for (const k of RAYS_PER_FRAME) {
      // Poses prepared outside the timing: both sides only cast.
      const oursFrame = (p: number): void => {
        updateModelInstance(instance, c.clip, threePoses[p % threePoses.length]);
        const t0 = process.hrtime.bigint();
        caster.invalidate();
        for (let r = 0; r < k; r++) caster.cast(instance, rays[r].o, rays[r].d, hit);
        oursNs += Number(process.hrtime.bigint() - t0);
      };
      const threeFrame = (p: number): void => {
        const stop = poseThree(gltf.scene, threeClip, threePoses[p % threePoses.length]);
        const t0 = process.hrtime.bigint();
        for (const m of meshes) { m.computeBoundingBox(); m.computeBoundingSphere(); }
        for (let r = 0; r < k; r++) {
          raycaster.set(origin.fromArray(rays[r].o), direction.fromArray(rays[r].d));
          raycaster.intersectObject(gltf.scene, true);
        }
        threeNs += Number(process.hrtime.bigint() - t0);
        stop();
      };
      let oursNs = 0, threeNs = 0;
      for (let f = 0; f < frames / 4; f++) { oursFrame(f); threeFrame(f); } // warm-up
      oursNs = 0; threeNs = 0;
      // Interleaved, so load on the shared machine hits both alike.
      for (let f = 0; f < frames; f++) { oursFrame(f); threeFrame(f); }
      const row: RaycastRow = {
        asset: c.asset, vertices, triangles, raysPerFrame: k,
        oursUsPerFrame: oursNs / frames / 1000, threeUsPerFrame: threeNs / frames / 1000,
        ratio: oursNs / threeNs, hitsCompared: compared, hitsAgreeing: agreeing,
      };
      rows.push(row);
      console.log(`${c.asset.padEnd(14)} ${String(vertices).padStart(5)} vertices  ${k} ray(s)/frame: ours ${row.oursUsPerFrame.toFixed(0).padStart(6)} µs, three ${row.threeUsPerFrame.toFixed(0).padStart(6)} µs, ours/three ${row.ratio.toFixed(2)}×  (same hits: ${agreeing}/${compared})`);
    }
    if (agreeing !== compared) process.exitCode = 1;
  }
  const out = resolve(HERE, quick ? 'results/raycast-quick.json.tmp' : 'results/raycast-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() }, quick, frames, rows }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return rows;
}
