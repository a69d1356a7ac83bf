/**
 * Our MToon side by side with three-vrm 3.5's MToonMaterial (three.js WebGLRenderer) in the
 * same Chromium: the same files (the built-in VRM 1.0 and 0.x avatars, the specification's UV
 * animation sample after 0.7 s, spheres using every MToon parameter and texture), the same
 * camera, a directional key light and a hemisphere (three.js's HemisphereLight at intensity
 * π lights as our hemisphere does), no tone mapping, sRGB output, 4× MSAA on both.
 *
 * Similarity: the silhouettes' intersection over union (alpha > ½), and over the pixels both
 * draw opaque the largest channel difference in 8-bit sRGB: its mean, and the share within 8
 * levels (3% of the range). Thresholds, with what they allow:
 *  - IoU ≥ 0.97: the rasterisers (WebGPU/SwiftShader and WebGL/ANGLE) cover edge pixels and
 *    the outlines' one-to-two-pixel rims slightly differently; a missing outline, a wrong
 *    outline width or a flipped model costs more than 3% of the silhouette;
 *  - ≥ 93% of shared pixels within 8 levels of a pixel of the other image at most one pixel
 *    away, and a mean same-pixel difference under 3 levels: the two shaders compute the same
 *    formulas in float32 and quantise to 8 bits, but the rasterisers place the anti-aliased
 *    pixels along toon edges and outlines up to a pixel apart, and inside the avatar's narrow
 *    shading ramps (toony 0.9: 0.2 wide in N·L) pixels differ by 9–20 levels, as a small
 *    difference of the interpolated normals would make them (not traced further). Measured: 95.4% and a mean of 1.48 on the 1.0 avatar (the
 *    worst case), means 0–1.7 elsewhere. A wrong shade, shift, toony, rim or emission term
 *    moves whole regions by tens of levels: three-vrm lit from the other side gave 87.6% and
 *    a mean of 4.9, failing both (the test checks that it fails).
 * Where the two legitimately differ (docs/vrm.md "MToon"): three-vrm ignores giEqualizationFactor
 * (the hemisphere here is uniform, sky = ground, where equalisation changes nothing; the
 * last test measures the difference under a sky/ground hemisphere and checks it is ours
 * that is flatter), and under an environment map three-vrm draws no image-based light at all.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { toBase64 } from '../../src/gltf/builder.ts';
import { browserUnavailable } from '../support/browser.ts';
import { fullMToonFile } from '../support/mtoon-fixtures.ts';
import type { Rgba8Image } from './element-support.ts';
import { useMToonPage } from './mtoon-session.ts';
import { sameImage, similarity } from './mtoon-similarity.ts';
import type { MToonScene } from './pages/mtoon-page.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const UNIFORM = [0.25, 0.25, 0.25] as const;
const KEY = [2.6, 2.55, 2.45] as const;
const LIGHT_DIRECTION = [0.38, 0.62, 0.69] as const;

interface Case {
  readonly name: string;
  readonly glb: () => Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly eye: [number, number, number];
  readonly target: [number, number, number];
  readonly fovDeg: number;
  readonly time?: number;
}

const AVATAR_TARGET: [number, number, number] = [0, 0.95, 0];
export const CASES: readonly Case[] = [
  { name: 'vrm-avatar', glb: () => buildBuiltinGlb('vrm-avatar'), width: 220, height: 320, eye: [0.9, 1.25, 3.3], target: AVATAR_TARGET, fovDeg: 35 },
  // VRM 0.x faces −Z: seen from there.
  { name: 'vrm0-avatar', glb: () => buildBuiltinGlb('vrm0-avatar'), width: 220, height: 320, eye: [-0.9, 1.25, -3.3], target: AVATAR_TARGET, fovDeg: 35 },
  { name: 'vrm-avatar face', glb: () => buildBuiltinGlb('vrm-avatar'), width: 200, height: 200, eye: [0.25, 1.62, 0.75], target: [0, 1.55, 0], fovDeg: 35 },
  {
    name: 'UV animation sample at 0.7 s', glb: () => new Uint8Array(readFileSync('../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm')),
    width: 160, height: 400, eye: [0, 0.2, 2.6], target: [0, 0.2, 0], fovDeg: 40, time: 0.7,
  },
  { name: 'every parameter', glb: fullMToonFile, width: 240, height: 150, eye: [0.6, 0.3, 2.6], target: [0.6, 0, 0], fovDeg: 40 },
];

function sceneOf(c: Case, light: { sky: readonly number[]; ground: readonly number[]; direction?: readonly number[] } = { sky: UNIFORM, ground: UNIFORM }): MToonScene {
  return {
    glb: toBase64(c.glb()), width: c.width, height: c.height, eye: c.eye, target: c.target, fovY: (c.fovDeg * Math.PI) / 180, near: 0.05, far: 30,
    lightDirection: (light.direction ?? LIGHT_DIRECTION) as [number, number, number], lightColor: [...KEY], skyColor: [...light.sky] as [number, number, number],
    groundColor: [...light.ground] as [number, number, number], ...(c.time ? { time: c.time } : {}),
  };
}

describe.skipIf(!!unavailable)('MToon side by side with three-vrm 3.5 (Chromium)', () => {
  const page = useMToonPage();
  /** Our drawing of each scene drawn so far (by its JSON): the wrong-input test compares the first case's again. */
  const oursDrawn = new Map<string, Rgba8Image>();
  async function oursOf(s: MToonScene, name: string): Promise<Rgba8Image> {
    const key = JSON.stringify(s);
    let image = oursDrawn.get(key);
    if (!image) {
      image = await page.ours(s, name);
      oursDrawn.set(key, image);
    }
    return image;
  }
  async function both(s: MToonScene, name: string): Promise<{ ours: Rgba8Image; theirs: Rgba8Image }> {
    return { ours: await oursOf(s, `mtoon-vs-three-vrm-${name}-ours`), theirs: await page.threeVrm(s, `mtoon-vs-three-vrm-${name}-three-vrm`) };
  }

  for (const c of CASES) {
    it(`${c.name}: the same image within the thresholds`, async () => {
      const { ours, theirs } = await both(sceneOf(c), c.name.replace(/\W+/g, '-'));
      const sim = similarity(ours, theirs);
      expect(sameImage(sim), JSON.stringify(sim)).toBe(true);
    });
  }

  it('the measure fails a wrong input: three-vrm lit from another side is not the same image', async () => {
    const s = sceneOf(CASES[0]);
    const ours = await oursOf(s, 'mtoon-vs-three-vrm-other-light-ours');
    const theirs = await page.threeVrm({ ...s, lightDirection: [-0.38, 0.62, 0.69] }, 'mtoon-vs-three-vrm-other-light-three-vrm');
    const sim = similarity(ours, theirs);
    expect(sameImage(sim), JSON.stringify(sim)).toBe(false);
    // Whole regions move: both pixel measures fail, not only a marginal one.
    expect(sim.within8, JSON.stringify(sim)).toBeLessThan(0.93);
    expect(sim.mean, JSON.stringify(sim)).toBeGreaterThanOrEqual(3);
  });

  it('a legitimate difference: under a sky/ground hemisphere our GI equalisation (0.9 on the avatar) flattens what three-vrm, which ignores it, shades by the normal', async () => {
    const c = CASES[0];
    const sky = [0.45, 0.45, 0.5], ground = [0.05, 0.05, 0.05];
    const { ours, theirs } = await both(sceneOf(c, { sky, ground }), 'hemisphere');
    const sim = similarity(ours, theirs);
    // Still the same drawing (silhouette, outlines)…
    expect(sim.iou, JSON.stringify(sim)).toBeGreaterThanOrEqual(0.97);
    // …but ours varies less from top-facing to bottom-facing surfaces: its lightness spread is smaller.
    const spread = (img: Rgba8Image) => {
      const values: number[] = [];
      for (let i = 0; i < img.data.length; i += 4) if (img.data[i + 3] === 255) values.push(img.data[i] + img.data[i + 1] + img.data[i + 2]);
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
    };
    expect(spread(ours), `ours ${spread(ours)}, three-vrm ${spread(theirs)}`).toBeLessThan(spread(theirs));
  });
});
