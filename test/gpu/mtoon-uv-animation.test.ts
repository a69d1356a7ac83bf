/**
 * MToon UV animation measured from frames: the specification's sample
 * (../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm: three quads scrolling in U,
 * in V and turning, each at speed 1) drawn by the Renderer on Dawn at time 0 and after the
 * player has run a while. The speed a frame shows is the one whose animation, applied to the
 * first frame's pixels (each pixel's UV from the quad's own vertices and the camera), best
 * predicts the later frame: a search over candidate speeds, in the specification's transform
 * (turn about (0.5, 0.5) counter-clockwise in U-right V-down space, then scroll). The measured
 * speeds must be the file's, and a wrong speed must predict the frame far worse.
 * The same sample with a uvAnimationMaskTexture added to its V-scrolling quad (blue 0 where
 * u < 0.5, 1 elsewhere) must keep the masked half still while the other half scrolls.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { expectNoGpuErrors, luma, OffscreenScene, projectToPixel, testDevice, type Frame } from './gpu-test.ts';
import { encodePng, writeArtifactPng } from '../support/png.ts';

const FILE = '../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm';
const WIDTH = 240, HEIGHT = 600;
/** Seconds between the two frames compared. */
const ELAPSED = 0.25;
/** The measured speed must be the file's within this fraction. */
const TOLERANCE = 0.03;

type Vec2 = [number, number];

/** A quad's UV ↔ pixel maps, from three of its vertices (the quads are flat and seen whole). */
interface QuadMap {
  readonly name: string;
  /** Pixel = origin + u · du + v · dv. */
  readonly origin: Vec2;
  readonly du: Vec2;
  readonly dv: Vec2;
}

function quadMaps(model: Model, scene: OffscreenScene): QuadMap[] {
  return model.meshNodes.map((mn) => {
    const p = model.meshes[mn.mesh].primitives[0];
    const slot = model.hierarchy.slotOf[mn.node];
    const m = scene.instance.nodeMatrices.subarray(slot * 16, slot * 16 + 16);
    const pixelOf = (i: number): Vec2 => {
      const x = p.positions[i * 3], y = p.positions[i * 3 + 1], z = p.positions[i * 3 + 2];
      const w = [0, 1, 2].map((r) => m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]);
      return projectToPixel(scene.camera, WIDTH, HEIGHT, w);
    };
    const uv = p.texcoords0!;
    // Solve pixel = origin + u du + v dv from three vertices with independent UVs.
    const [a, b, c] = [0, 1, 2];
    const [pa, pb, pc] = [pixelOf(a), pixelOf(b), pixelOf(c)];
    const [ua, va, ub, vb, uc, vc] = [uv[a * 2], uv[a * 2 + 1], uv[b * 2], uv[b * 2 + 1], uv[c * 2], uv[c * 2 + 1]];
    const det = (ub - ua) * (vc - va) - (uc - ua) * (vb - va);
    const solve = (k: 0 | 1): [number, number] => {
      const db = pb[k] - pa[k], dc = pc[k] - pa[k];
      return [(db * (vc - va) - dc * (vb - va)) / det, ((ub - ua) * dc - (uc - ua) * db) / det];
    };
    const [dux, dvx] = solve(0), [duy, dvy] = solve(1);
    const du: Vec2 = [dux, duy], dv: Vec2 = [dvx, dvy];
    return { name: model.nodes[mn.node].name ?? '', origin: [pa[0] - ua * du[0] - va * dv[0], pa[1] - ua * du[1] - va * dv[1]], du, dv };
  });
}

/**
 * `luma` of every pixel of `frame`, computed once per frame: the speed search below samples
 * each frame tens of millions of times (the same values `luma` gives, without its allocations).
 */
const lumaPlanes = new WeakMap<Frame, Float64Array>();
function lumaPlane(frame: Frame): Float64Array {
  let plane = lumaPlanes.get(frame);
  if (!plane) {
    plane = new Float64Array(frame.width * frame.height);
    for (let y = 0; y < frame.height; y++) for (let x = 0; x < frame.width; x++) plane[y * frame.width + x] = luma(frame, x, y);
    lumaPlanes.set(frame, plane);
  }
  return plane;
}

/** Bilinear luma of `frame` (its `lumaPlane`) at a pixel position. */
function sample(frame: Frame, plane: Float64Array, x: number, y: number): number {
  const x0 = Math.floor(x - 0.5), y0 = Math.floor(y - 0.5), fx = x - 0.5 - x0, fy = y - 0.5 - y0;
  const at = (px: number, py: number) => plane[Math.min(frame.height - 1, Math.max(0, py)) * frame.width + Math.min(frame.width - 1, Math.max(0, px))];
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}

/** The specification's UV animation at time t for speeds (scroll x, scroll y, rotation). */
function animate(u: number, v: number, t: number, speeds: readonly number[]): Vec2 {
  const phase = speeds[2] * t, c = Math.cos(phase), s = Math.sin(phase);
  const x = u - 0.5, y = v - 0.5;
  return [c * x + s * y + 0.5 + speeds[0] * t, -s * x + c * y + 0.5 + speeds[1] * t];
}

/**
 * Mean squared luma error of predicting `later` from `first` for the quad with `speeds`:
 * every interior pixel's UV, animated, wrapped (REPEAT), looked up in the first frame.
 */
function predictionError(first: Frame, later: Frame, q: QuadMap, t: number, speeds: readonly number[], uRange: Vec2 = [0, 1]): number {
  const toPixel = (u: number, v: number): Vec2 => [q.origin[0] + u * q.du[0] + v * q.dv[0], q.origin[1] + u * q.du[1] + v * q.dv[1]];
  const firstLuma = lumaPlane(first), laterLuma = lumaPlane(later);
  let sum = 0, n = 0;
  const STEPS = 64;
  // Away from the edges, where the quad's own silhouette blends with the background.
  for (let i = 4; i < STEPS - 4; i++) {
    for (let j = 4; j < STEPS - 4; j++) {
      const u = (i + 0.5) / STEPS, v = (j + 0.5) / STEPS;
      if (u < uRange[0] || u > uRange[1]) continue;
      const [x, y] = toPixel(u, v);
      const [au, av] = animate(u, v, t, speeds);
      const wu = au - Math.floor(au), wv = av - Math.floor(av);
      const [sx, sy] = toPixel(Math.min(Math.max(wu, 0.06), 0.94), Math.min(Math.max(wv, 0.06), 0.94));
      // Points that wrap into the unseen margin are skipped rather than guessed.
      if (wu < 0.06 || wu > 0.94 || wv < 0.06 || wv > 0.94) continue;
      const d = sample(later, laterLuma, x, y) - sample(first, firstLuma, sx, sy);
      sum += d * d;
      n++;
    }
  }
  return sum / Math.max(1, n);
}

/** The candidate for component `k` (others fixed at `base`) that best predicts the later frame. */
function bestSpeed(first: Frame, later: Frame, q: QuadMap, t: number, base: readonly number[], k: number, uRange: Vec2 = [0, 1]): { speed: number; error: number } {
  let best = { speed: NaN, error: Infinity };
  for (let s = -2; s <= 2 + 1e-9; s += 0.005) {
    const speeds = base.slice();
    speeds[k] = s;
    const error = predictionError(first, later, q, t, speeds, uRange);
    if (error < best.error) best = { speed: s, error };
  }
  return best;
}

/** Side of the mask image: blue 0 in its left half (u < 0.5), 255 in its right half. */
const MASK_SIZE = 64;
/** The sample's V-scrolling quad, the one given the mask. */
const MASKED_MATERIAL = 1;

/**
 * The sample GLB with a uvAnimationMaskTexture on material `material`: a PNG appended to the
 * binary chunk, its buffer view, image and texture (the sample's first sampler) added to the JSON.
 */
function withUvAnimationMask(glb: Uint8Array, material: number): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength)));
  const binStart = 20 + jsonLength + 8;
  const bin = glb.subarray(binStart, binStart + view.getUint32(20 + jsonLength, true));
  const rgba = new Uint8Array(MASK_SIZE * MASK_SIZE * 4);
  for (let i = 0; i < MASK_SIZE * MASK_SIZE; i++) rgba.set([255, 255, i % MASK_SIZE < MASK_SIZE / 2 ? 0 : 255, 255], i * 4);
  const png = encodePng(MASK_SIZE, MASK_SIZE, rgba);
  const pad4 = (n: number) => (n + 3) & ~3;
  const newBin = new Uint8Array(pad4(bin.length + png.length));
  newBin.set(bin);
  newBin.set(png, bin.length);
  json.buffers[0].byteLength = newBin.length;
  json.bufferViews.push({ buffer: 0, byteOffset: bin.length, byteLength: png.length });
  json.images.push({ name: 'mask', bufferView: json.bufferViews.length - 1, mimeType: 'image/png' });
  json.textures.push({ sampler: 0, source: json.images.length - 1 });
  json.materials[material].extensions.VRMC_materials_mtoon.uvAnimationMaskTexture = { index: json.textures.length - 1 };
  const text = new TextEncoder().encode(JSON.stringify(json));
  const newJson = new Uint8Array(pad4(text.length)).fill(0x20);
  newJson.set(text);
  const out = new Uint8Array(12 + 8 + newJson.length + 8 + newBin.length);
  const o = new DataView(out.buffer);
  o.setUint32(0, 0x46546c67, true);
  o.setUint32(4, 2, true);
  o.setUint32(8, out.length, true);
  o.setUint32(12, newJson.length, true);
  o.setUint32(16, 0x4e4f534a, true);
  out.set(newJson, 20);
  o.setUint32(20 + newJson.length, newBin.length, true);
  o.setUint32(24 + newJson.length, 0x004e4942, true);
  out.set(newBin, 28 + newJson.length);
  return out;
}

/** The sample drawn at time 0 and after ELAPSED seconds of the player. */
async function firstAndLater(gpu: GPUDevice, model: Model, name: string): Promise<{ scene: OffscreenScene; first: Frame; later: Frame }> {
  const scene = new OffscreenScene(gpu, WIDTH, HEIGHT);
  // Framed from the front (the quads face +Z), level.
  await expectNoGpuErrors(gpu, () => scene.setModel(model));
  scene.renderer.settings.toneMapping = 0;
  const player = new AnimationPlayer(model);
  scene.instance = player.instance;
  const first = await expectNoGpuErrors(gpu, () => scene.render());
  // The player advances the UV animation with wall time, in frames of 1/60 s, paused or not.
  for (let f = 0; f < ELAPSED * 60; f++) player.update(1 / 60);
  expect(player.instance.materialAnimation!.uvAnimationTime).toBeCloseTo(ELAPSED, 9);
  const later = await expectNoGpuErrors(gpu, () => scene.render());
  writeArtifactPng(`${name}-0`, WIDTH, HEIGHT, first.rgba);
  writeArtifactPng(`${name}-1`, WIDTH, HEIGHT, later.rgba);
  return { scene, first, later };
}

const device = await testDevice();

describe.skipIf(!device)('MToon UV animation on the specification’s sample, measured from frames', () => {
  it('scrolls in U and V and turns at the file’s speeds (1 UV/s, 1 rad/s); a wrong speed predicts the frame far worse', async () => {
    const gpu = device!;
    const model = await loadGltf(readFileSync(FILE), { name: 'UV animation sample' });
    const speedsOf = model.materials.map((m) => [m.mtoon!.uvAnimationScrollXSpeedFactor, m.mtoon!.uvAnimationScrollYSpeedFactor, m.mtoon!.uvAnimationRotationSpeedFactor]);
    expect(speedsOf).toEqual([[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    const { scene, first, later } = await firstAndLater(gpu, model, 'mtoon-uv-animation');
    const maps = quadMaps(model, scene);
    expect(maps.map((q) => q.name)).toEqual(['ScrollX', 'ScrollY', 'ScrollRot']);
    maps.forEach((q, i) => {
      const file = speedsOf[i];
      const k = file.findIndex((s) => s !== 0);
      const measured = bestSpeed(first, later, q, ELAPSED, file, k);
      expect(measured.speed, `${q.name}: measured ${measured.speed}`).toBeGreaterThan(file[k] * (1 - TOLERANCE));
      expect(measured.speed, `${q.name}: measured ${measured.speed}`).toBeLessThan(file[k] * (1 + TOLERANCE));
      // The assertion fails for a wrong speed: half, or the opposite direction, predicts far worse.
      for (const wrong of [file[k] * 0.5, -file[k]]) {
        const speeds = file.slice();
        speeds[k] = wrong;
        expect(predictionError(first, later, q, ELAPSED, speeds), `${q.name} at ${wrong}`).toBeGreaterThan(5 * measured.error + 1);
      }
      // Nothing else moves: the still quads' other speeds are 0.
      expect(bestSpeed(first, later, q, ELAPSED, file, (k + 1) % 3).speed, `${q.name} other component`).toBeCloseTo(0, 1);
    });
    scene.destroy();
  });

  it('the uvAnimationMaskTexture’s blue channel scales the animation: the half masked with 0 stays still, the half with 1 scrolls at the file’s speed', async () => {
    const gpu = device!;
    const model = await loadGltf(withUvAnimationMask(readFileSync(FILE), MASKED_MATERIAL), { name: 'UV animation sample, masked' });
    expect(model.materials[MASKED_MATERIAL].mtoon!.uvAnimationMaskTexture?.index).toBe(model.textures.length - 1);
    const { scene, first, later } = await firstAndLater(gpu, model, 'mtoon-uv-animation-mask');
    const q = quadMaps(model, scene)[MASKED_MATERIAL];
    expect(q.name).toBe('ScrollY');
    const file = [0, 1, 0];
    // Away from u = 0.5, where the filtered mask is between 0 and 1.
    const still: Vec2 = [0, 0.42], moving: Vec2 = [0.58, 1];
    const stillSpeed = bestSpeed(first, later, q, ELAPSED, file, 1, still);
    const movingSpeed = bestSpeed(first, later, q, ELAPSED, file, 1, moving);
    expect(Math.abs(stillSpeed.speed), `masked half: measured ${stillSpeed.speed}`).toBeLessThan(0.02);
    expect(movingSpeed.speed, `unmasked half: measured ${movingSpeed.speed}`).toBeGreaterThan(1 - TOLERANCE);
    expect(movingSpeed.speed, `unmasked half: measured ${movingSpeed.speed}`).toBeLessThan(1 + TOLERANCE);
    // The check fails for a shader that ignores the mask: the masked half moving at speed 1 predicts far worse than standing still.
    expect(predictionError(first, later, q, ELAPSED, file, still), 'masked half as if unmasked').toBeGreaterThan(5 * stillSpeed.error + 1);
    // And for one that masks everything: the unmasked half standing still predicts far worse.
    expect(predictionError(first, later, q, ELAPSED, [0, 0, 0], moving), 'unmasked half as if masked').toBeGreaterThan(5 * movingSpeed.error + 1);
    scene.destroy();
  });
});
