/**
 * The image-based lighting contract through <skinned-mesh-viewer> in real Chromium (WebGPU on
 * SwiftShader), as test/gpu/environment/lighting.test.ts checks it on the renderer in Dawn:
 * the white furnace, a mirror sphere under sky and ground, and metal and roughness sweeps.
 * The spheres (glTF) and environments (.hdr) are written by the test in Node and served to
 * one page with one viewer, whose `src` and `environment-image` change between checks. The
 * camera is level (`camera-orbit="0deg 90deg auto"`, jumped to): the sphere is seen
 * head-on, centred, its equator across the middle row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { writeHdr } from '../../src/gpu/environment/hdr.ts';
import { srgbToLinear } from '../../src/gpu/textures/textures.ts';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { buildSphere } from '../gpu/fixtures.ts';
import { decodeBase64Image, openElementPage, serveFiles, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 60_000;
/** Uniform radiance of the furnace; with exposure 1 and tone mapping `none`, L is the pixel. */
const L = 0.5;
/** One 8-bit sRGB step around 0.5 is ~0.004 linear. */
const STEP = 0.005;
const SKY = [0.1, 0.25, 0.7], GROUND = [0.6, 0.3, 0.05];

function uniformHdr(l: number): Uint8Array {
  return writeHdr({ width: 32, height: 16, rgb: new Float32Array(32 * 16 * 3).fill(l) });
}

function skyGroundHdr(): Uint8Array {
  const width = 64, height = 32, rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = (y < height / 2 ? SKY : GROUND)[c];
  return writeHdr({ width, height, rgb });
}

/** `sphere-M-R.glb`: a white sphere of metallic M and roughness R. */
function sphereFile(name: string): Uint8Array | undefined {
  const m = /^sphere-([\d.]+)-([\d.]+)\.glb$/.exec(name);
  if (!m) return undefined;
  return buildSphere(48, 24, { pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1], metallicFactor: Number(m[1]), roughnessFactor: Number(m[2]) } });
}

interface SpherePixel { x: number; y: number; r: number; rgb: number[] }

/**
 * The opaque pixels (the background is transparent; the sphere's antialiased rim is not
 * opaque), in linear values, with their distance from the disc's centre in disc radii (the
 * centre and radius measured from the opaque pixels themselves).
 */
function spherePixels(image: Rgba8Image): { pixels: SpherePixel[]; cx: number; cy: number; radius: number } {
  const opaque: { x: number; y: number; i: number }[] = [];
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) {
    const i = (y * image.width + x) * 4;
    if (image.data[i + 3] === 255) opaque.push({ x, y, i });
  }
  const cx = opaque.reduce((s, p) => s + p.x + 0.5, 0) / Math.max(1, opaque.length);
  const cy = opaque.reduce((s, p) => s + p.y + 0.5, 0) / Math.max(1, opaque.length);
  const radius = Math.sqrt(opaque.length / Math.PI);
  const pixels = opaque.map(({ x, y, i }) => ({
    x, y, r: Math.hypot(x + 0.5 - cx, y + 0.5 - cy) / radius,
    rgb: [0, 1, 2].map((c) => srgbToLinear(image.data[i + c] / 255)),
  }));
  return { pixels, cx, cy, radius };
}

/** Mean linear green over the sphere's middle (normals within ~45° of the eye). */
function centreValue(image: Rgba8Image): number {
  const px = spherePixels(image).pixels.filter((p) => p.r < 0.7);
  expect(px.length).toBeGreaterThan(200);
  return px.reduce((s, p) => s + p.rgb[1], 0) / px.length;
}

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> image-based lighting contract', () => {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    const hdr = 'image/vnd.radiance', glb = 'model/gltf-binary';
    const env: Record<string, Uint8Array> = { 'uniform.hdr': uniformHdr(L), 'sky.hdr': skyGroundHdr() };
    ({ page } = await openElementPage(session));
    await serveFiles(page, 'lit', (name) => {
      if (env[name]) return { body: env[name], type: hdr };
      const sphere = sphereFile(name);
      return sphere && { body: sphere, type: glb };
    });
    await page.evaluate(async (t) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 's';
      const attributes: Record<string, string> = {
        src: '/lit/sphere-0-1.glb', 'environment-image': '/lit/uniform.hdr', 'tone-mapping': 'none',
        'camera-orbit': '0deg 90deg auto', 'interpolation-decay': '0',
      };
      for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
      const environment = new Promise((resolve) => el.addEventListener('environment-change', resolve, { once: true }));
      document.getElementById('stage')!.append(el);
      await Promise.all([window.helpers.whenLoaded(el, t), environment]);
    }, LOAD_TIMEOUT);
  }, LOAD_TIMEOUT);

  /** Shows sphere `M-R` (loading it unless shown), the camera jumped level, and captures a frame. */
  async function sphere(metallic: number, roughness: number): Promise<Rgba8Image> {
    const { base64 } = await page.evaluate(async ([src, t]) => {
      const el = window.helpers.viewer('s') as ReturnType<typeof window.helpers.viewer> & { jumpCameraToGoal(): void };
      if (el.getAttribute('src') !== src) {
        const loaded = window.helpers.nextLoad(el, t);
        el.setAttribute('src', src);
        await loaded;
      }
      el.jumpCameraToGoal();
      // Asked for: with the same sphere and the camera already there, nothing changed to draw.
      await window.helpers.drawFrames(el, 1);
      return window.helpers.captureBase64(el);
    }, [`/lit/sphere-${metallic}-${roughness}.glb`, LOAD_TIMEOUT] as const);
    return decodeBase64Image(base64);
  }

  /** Sets `environment-image` and waits for its `environment-change`. */
  async function environment(url: string): Promise<void> {
    await page.evaluate(([u, t]) => new Promise<void>((resolve, reject) => {
      const el = window.helpers.viewer('s');
      if (el.getAttribute('environment-image') === u) return resolve();
      const timer = setTimeout(() => reject(new Error(`no environment-change for ${u}`)), t);
      el.addEventListener('environment-change', () => { clearTimeout(timer); resolve(); }, { once: true });
      el.setAttribute('environment-image', u);
    }), [url, LOAD_TIMEOUT] as const);
  }

  it('white furnace: a white rough dielectric sphere under uniform radiance L is ≈ L everywhere and never brighter', async () => {
    await environment('/lit/uniform.hdr');
    const { pixels, cx, cy, radius } = spherePixels(await sphere(0, 1));
    // Head-on and centred in the 160 px viewer, and big enough to judge.
    expect(radius).toBeGreaterThan(30);
    expect(Math.abs(cx - 80)).toBeLessThan(2);
    expect(Math.abs(cy - 80)).toBeLessThan(2);
    for (const p of pixels) for (const v of p.rgb) {
      expect(v, `(${p.x}, ${p.y}) not brighter than L`).toBeLessThanOrEqual(L + STEP);
      // Energy may be lost towards the rim (grazing), not in the middle.
      if (p.r < 0.8) expect(v, `(${p.x}, ${p.y}) ≈ L`).toBeGreaterThanOrEqual(L - STEP);
    }
  }, LOAD_TIMEOUT);

  it('a mirror sphere under sky and ground: its upper half reflects the sky, its lower half the ground', async () => {
    await environment('/lit/sky.hdr');
    const { pixels, cy } = spherePixels(await sphere(1, 0));
    const upper = pixels.filter((p) => p.y + 0.5 < cy - 3 && p.r < 0.9), lower = pixels.filter((p) => p.y + 0.5 > cy + 3 && p.r < 0.9);
    expect(upper.length).toBeGreaterThan(500);
    expect(lower.length).toBeGreaterThan(500);
    for (const p of upper) expect(p.rgb[2], `(${p.x}, ${p.y}) blue over red`).toBeGreaterThan(p.rgb[0] * 2);
    for (const p of lower) expect(p.rgb[0], `(${p.x}, ${p.y}) red over blue`).toBeGreaterThan(p.rgb[2] * 2);
    // A white mirror gives back the colours themselves (f0 = 1), near the middle of each half.
    const mean = (set: SpherePixel[], c: number) => set.reduce((s, p) => s + p.rgb[c], 0) / set.length;
    expect(mean(upper.filter((p) => p.r < 0.6), 2)).toBeGreaterThan(SKY[2] * 0.85);
    expect(mean(lower.filter((p) => p.r < 0.6), 0)).toBeGreaterThan(GROUND[0] * 0.85);
  }, LOAD_TIMEOUT);

  it('metal and roughness sweeps are monotone and never brighter than the furnace', async () => {
    await environment('/lit/uniform.hdr');
    const furnace = centreValue(await sphere(0, 1));
    const steps = [0, 0.5, 1];
    const metal: number[] = [], roughMetal: number[] = [], roughDielectric: number[] = [];
    for (const m of steps) metal.push(centreValue(await sphere(m, 0.6)));
    for (const r of steps) roughMetal.push(centreValue(await sphere(1, r)));
    for (const r of steps) roughDielectric.push(centreValue(await sphere(0, r)));
    const sweeps = { 'metallic 0…1 at roughness 0.6': metal, 'roughness 0…1 of metal': roughMetal, 'roughness 0…1 of a dielectric': roughDielectric };
    for (const [name, series] of Object.entries(sweeps)) {
      for (const v of series) expect(v, `${name}: ${series} not brighter than the furnace`).toBeLessThanOrEqual(furnace + STEP);
      // Non-increasing: more metal (white base) or rougher metal only loses energy.
      for (let i = 1; i < series.length; i++) expect(series[i], `${name}: ${series} monotone`).toBeLessThanOrEqual(series[i - 1] + STEP);
    }
    // And it does lose some: rough white metal is visibly darker than the furnace.
    expect(roughMetal[2]).toBeLessThan(furnace * 0.97);
    expect(metal[2]).toBeLessThan(metal[0]);
  }, LOAD_TIMEOUT * 2);
});
