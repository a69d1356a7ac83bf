/**
 * The MToon lighting contract in real Chromium (WebGPU on SwiftShader), on generated spheres
 * drawn by the Renderer (test/browser/pages/mtoon-page.ts). Every pixel's normal, view and
 * light directions are known: the test casts each pixel's ray from the camera to the unit
 * sphere. Each property is checked against what the specification's formula gives at those
 * pixels, and the same check is shown failing for a wrong input (another shift, another
 * toony factor, another fresnel power, the other outline mode, the other draw order):
 *  - the shade colour appears exactly where N·L + shift crosses 0 (toony 1: a hard edge);
 *  - the toony factor sharpens the edge: the ramp from shade to lit is 2 − 2·toony wide in N·L;
 *  - the parametric rim is pow(1 − N·V + lift, power): brighter towards grazing;
 *  - the outline's width in pixels halves with twice the distance in world coordinates and
 *    stays the same in screen coordinates (factor × half the view height, as three-vrm);
 *  - the outline width texture's green channel scales the width (0 on one half: no outline there),
 *    and outlineLightingMix turns the outline colour from outlineColor (0) to outlineColor × the
 *    lit surface colour (1);
 *  - a transparentWithZWrite surface is drawn before the other blended ones and hides what
 *    is behind it; renderQueueOffsetNumber orders blended surfaces whatever their depth.
 */
import { describe, expect, it } from 'vitest';
import { srgbToLinear } from '../../src/gpu/textures/textures.ts';
import { toBase64 } from '../../src/gltf/builder.ts';
import { browserUnavailable } from '../support/browser.ts';
import { buildMToonFile, mtoonMaterial, solidImage } from '../support/mtoon-fixtures.ts';
import type { Rgba8Image } from './element-support.ts';
import { useMToonPage } from './mtoon-session.ts';
import type { MToonScene } from './pages/mtoon-page.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const SIZE = 200;
const FOV = (30 * Math.PI) / 180;
const DISTANCE = 4;
/** The outline test's two distances, the second twice the first. */
const OUTLINE_DISTANCES = [6, 12];
type V3 = [number, number, number];

const normalize = (v: readonly number[]): V3 => { const l = Math.hypot(v[0], v[1], v[2]); return [v[0] / l, v[1] / l, v[2] / l]; };
const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** The q-quantile of `xs`: the contract's error measure, so the few pixels along the silhouette, whose samples straddle it, do not decide. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(q * (s.length - 1))];
}

/** Light from the right, a little from the front and above. */
const LIGHT = normalize([1, 0.25, 0.35]);

/** The scene around one unit sphere at the origin, seen from +Z at `distance`; the key light's radiance is π (so it reflects as 1). */
function scene(glb: Uint8Array, extra: Partial<MToonScene> = {}, distance = DISTANCE): MToonScene {
  return {
    glb: toBase64(glb), width: SIZE, height: SIZE, eye: [0, 0, distance], target: [0, 0, 0], fovY: FOV, near: 0.1, far: 50,
    lightDirection: LIGHT, lightColor: [Math.PI, Math.PI, Math.PI], skyColor: [0, 0, 0], groundColor: [0, 0, 0], ...extra,
  };
}

function sphereFile(mtoon: Record<string, unknown>, base: Record<string, unknown> = {}): Uint8Array {
  return buildMToonFile({ spheres: [{ center: [0, 0, 0], radius: 1, material: 0 }], materials: [mtoonMaterial(mtoon, base)] });
}

interface SpherePixel {
  readonly x: number;
  readonly y: number;
  readonly n: V3;
  readonly v: V3;
  /** Linear RGB. */
  readonly rgb: V3;
}

/** The pixel's ray from the eye at (0, 0, distance) hitting the unit sphere: the normal there and the direction to the eye. */
function hit(x: number, y: number, distance: number): { n: V3; v: V3 } | undefined {
  const t = Math.tan(FOV / 2);
  const d = normalize([(((x + 0.5) / SIZE) * 2 - 1) * t, (1 - ((y + 0.5) / SIZE) * 2) * t, -1]);
  const o: V3 = [0, 0, distance];
  const b = dot(o, d), c = dot(o, o) - 1, disc = b * b - c;
  if (disc < 0) return undefined;
  const s = -b - Math.sqrt(disc);
  const n: V3 = [o[0] + s * d[0], o[1] + s * d[1], o[2] + s * d[2]];
  return { n, v: [-d[0], -d[1], -d[2]] };
}

/** Opaque pixels whose ray hits the sphere, with their geometry. */
function spherePixels(image: Rgba8Image, distance = DISTANCE): SpherePixel[] {
  const out: SpherePixel[] = [];
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) {
    const i = (y * image.width + x) * 4;
    if (image.data[i + 3] !== 255) continue;
    const h = hit(x, y, distance);
    if (h) out.push({ x, y, ...h, rgb: [0, 1, 2].map((c) => srgbToLinear(image.data[i + c] / 255)) as V3 });
  }
  return out;
}

describe.skipIf(!!unavailable)('MToon lighting contract (Chromium, WebGPU)', () => {
  const page = useMToonPage();
  const render = (s: MToonScene, name: string): Promise<Rgba8Image> => page.ours(s, `mtoon-contract-${name}`);

  it('the shade colour appears exactly where N·L + shift crosses 0 (toony 1), and a shift 0.15 off fails the check', async () => {
    for (const shift of [0, -0.4, 0.35]) {
      // Lit red, shade blue, nothing else: a pixel is red where the shading term is positive.
      const image = await render(scene(sphereFile({ shadeColorFactor: [0, 0, 1], shadingShiftFactor: shift, shadingToonyFactor: 1, giEqualizationFactor: 0 }, { pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } })), `shift-${shift}`);
      const pixels = spherePixels(image);
      const byPosition = new Map(pixels.map((p) => [p.y * SIZE + p.x, p]));
      /** Pixels whose colour disagrees with the sign of N·L + s, away from the edge (a pixel whose neighbours straddle it). */
      const mismatches = (s: number): number => {
        let n = 0;
        for (const p of pixels) {
          const t = dot(p.n, LIGHT) + s;
          let straddles = false;
          for (let dy = -1; dy <= 1 && !straddles; dy++) for (let dx = -1; dx <= 1; dx++) {
            const q = byPosition.get((p.y + dy) * SIZE + p.x + dx);
            if (q && Math.sign(dot(q.n, LIGHT) + s) !== Math.sign(t)) { straddles = true; break; }
          }
          if (straddles) continue;
          const red = p.rgb[0] > p.rgb[2];
          if (red !== t > 0) n++;
        }
        return n;
      };
      const lit = pixels.filter((p) => p.rgb[0] > p.rgb[2]).length;
      expect(lit, `shift ${shift}: both colours show`).toBeGreaterThan(500);
      expect(pixels.length - lit, `shift ${shift}: both colours show`).toBeGreaterThan(500);
      expect(mismatches(shift), `shift ${shift}`).toBe(0);
      expect(mismatches(shift + 0.15), `shift ${shift}, checked as ${shift + 0.15}`).toBeGreaterThan(200);
    }
  });

  it('the toony factor sharpens the edge: the ramp is 2 − 2·toony wide in N·L; another toony factor’s width fails', async () => {
    const widths: number[] = [];
    for (const toony of [0.2, 0.5, 0.8]) {
      // Lit white, shade black: the linear value is the shading term itself.
      const image = await render(scene(sphereFile({ shadeColorFactor: [0, 0, 0], shadingToonyFactor: toony, giEqualizationFactor: 0 })), `toony-${toony}`);
      const pixels = spherePixels(image);
      const ramp = (t: number, k: number) => Math.min(1, Math.max(0, (t - (-1 + k)) / (2 - 2 * k)));
      // The 99th percentile of |pixel − ramp|: 8-bit sRGB steps are up to 0.02 linear near 1.
      const error = (k: number) => quantile(pixels.map((p) => Math.abs(p.rgb[1] - ramp(dot(p.n, LIGHT), k))), 0.99);
      expect(error(toony), `toony ${toony}`).toBeLessThan(0.02);
      for (const wrong of [toony - 0.15, toony + 0.15]) expect(error(wrong), `toony ${toony} checked as ${wrong}`).toBeGreaterThan(0.04);
      // The measured width: the N·L span between 10% and 90% of the way from shade to lit.
      const ramped = pixels.filter((p) => p.rgb[1] > 0.1 && p.rgb[1] < 0.9).map((p) => dot(p.n, LIGHT));
      widths.push((Math.max(...ramped) - Math.min(...ramped)) / 0.8);
    }
    expect(widths[0]).toBeGreaterThan(widths[1]);
    expect(widths[1]).toBeGreaterThan(widths[2]);
    widths.forEach((w, i) => expect(w, `toony ${[0.2, 0.5, 0.8][i]}`).toBeCloseTo(2 - 2 * [0.2, 0.5, 0.8][i], 1));
  });

  it('the rim is pow(1 − N·V + lift, power), brighter at grazing angles; another power fails', async () => {
    const power = 3, lift = 0.1;
    // No lit or shade colour, the rim alone, unaffected by the light (rimLightingMix 0).
    const image = await render(scene(sphereFile({
      shadeColorFactor: [0, 0, 0], parametricRimColorFactor: [1, 1, 1], parametricRimFresnelPowerFactor: power, parametricRimLiftFactor: lift,
      rimLightingMixFactor: 0, giEqualizationFactor: 0,
    }, { pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 1] } })), 'rim');
    const pixels = spherePixels(image);
    const rim = (p: SpherePixel, k: number) => Math.min(1, Math.max(0, 1 - dot(p.n, p.v) + lift)) ** k;
    // The 99th percentile of |pixel − rim|: a silhouette pixel's samples span a wide range of N·V.
    const error = (k: number) => quantile(pixels.map((p) => Math.abs(p.rgb[0] - rim(p, k))), 0.99);
    expect(error(power)).toBeLessThan(0.05);
    for (const wrong of [1, 2, 4, 5]) expect(error(wrong), `power ${power} checked as ${wrong}`).toBeGreaterThan(0.1);
    const mean = (lo: number, hi: number) => {
      const band = pixels.filter((p) => dot(p.n, p.v) >= lo && dot(p.n, p.v) < hi);
      expect(band.length).toBeGreaterThan(50);
      return band.reduce((s, p) => s + p.rgb[0], 0) / band.length;
    };
    expect(mean(0.2, 0.35)).toBeGreaterThan(mean(0.5, 0.65) + 0.1);
    expect(mean(0.5, 0.65)).toBeGreaterThan(mean(0.85, 1.01) + 0.05);
  });

  /** The outline's thickness in pixels at the sphere's left and right: green pixels beyond the red disc on the middle row. */
  function outlinePixels(image: Rgba8Image): number {
    const y = SIZE / 2;
    let green = 0;
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 4;
      const [r, g, , a] = [image.data[i], image.data[i + 1], image.data[i + 2], image.data[i + 3]];
      if (a > 127 && g > r + 60) green++;
    }
    return green / 2;
  }

  it('outline width in pixels follows the mode: world coordinates halve at twice the distance, screen coordinates stay (factor × half the view height)', async () => {
    const outlined = (mode: string, factor: number) => sphereFile(
      { shadeColorFactor: [1, 0, 0], outlineWidthMode: mode, outlineWidthFactor: factor, outlineColorFactor: [0, 1, 0], outlineLightingMixFactor: 0 },
      { pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } },
    );
    const focal = (SIZE / 2) / Math.tan(FOV / 2);
    const world = 0.12, screen = 0.06;
    const measured: Record<string, number[]> = { world: [], screen: [] };
    // Far enough that the outlined sphere stays inside the view.
    for (const distance of OUTLINE_DISTANCES) {
      measured.world.push(outlinePixels(await render(scene(outlined('worldCoordinates', world), {}, distance), `outline-world-${distance}`)));
      measured.screen.push(outlinePixels(await render(scene(outlined('screenCoordinates', screen), {}, distance), `outline-screen-${distance}`)));
    }
    // World: the hull is a sphere of radius 1 + width; its silhouette's half width on screen is focal × tan(asin(r / d)).
    const halfWidth = (r: number, d: number) => focal * Math.tan(Math.asin(r / d));
    const worldExpected = OUTLINE_DISTANCES.map((d) => halfWidth(1 + world, d) - halfWidth(1, d));
    measured.world.forEach((m, i) => expect(Math.abs(m - worldExpected[i]), `world at ${OUTLINE_DISTANCES[i]}: ${m} px, expected ${worldExpected[i]}`).toBeLessThanOrEqual(1.5));
    // Screen: factor × half the view height, at every distance.
    measured.screen.forEach((m, i) => expect(Math.abs(m - (screen * SIZE) / 2), `screen at ${OUTLINE_DISTANCES[i]}: ${m} px`).toBeLessThanOrEqual(1.5));
    // The check tells the modes apart: world widths halve, screen widths would fail that.
    expect(measured.world[0] / measured.world[1]).toBeGreaterThan(1.7);
    expect(measured.screen[0] / measured.screen[1]).toBeLessThan(1.2);
    expect(Math.abs(measured.screen[1] - worldExpected[1] * (measured.screen[0] / worldExpected[0]))).toBeGreaterThan(2);
  });

  /** Outline (green) pixels on the middle row, left and right of the sphere. */
  function outlineSides(image: Rgba8Image): { left: number; right: number } {
    const y = SIZE / 2;
    const sides = { left: 0, right: 0 };
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 4;
      if (image.data[i + 3] > 127 && image.data[i + 1] > image.data[i] + 60) sides[x < SIZE / 2 ? 'left' : 'right']++;
    }
    return sides;
  }

  it('the outline width texture’s green channel scales the width: 0 on one half of the sphere leaves no outline there; outlineLightingMix 0 keeps outlineColor, 1 multiplies it by the lit surface colour', async () => {
    const screen = 0.06, expected = (screen * SIZE) / 2, distance = OUTLINE_DISTANCES[0];
    // The sphere's u runs round Y from +Z: u < 0.5 is its right side (+X), u > 0.5 its left.
    const HALF = 16;
    const halfGreen = new Uint8Array(HALF * HALF * 4);
    for (let i = 0; i < HALF * HALF; i++) halfGreen.set([255, i % HALF < HALF / 2 ? 0 : 255, 255, 255], i * 4);
    const withWidthTexture = (image: { width: number; height: number; rgba: Uint8Array }) => buildMToonFile({
      spheres: [{ center: [0, 0, 0], radius: 1, material: 0 }],
      images: [image],
      materials: [mtoonMaterial(
        { shadeColorFactor: [1, 0, 0], outlineWidthMode: 'screenCoordinates', outlineWidthFactor: screen, outlineWidthMultiplyTexture: { index: 0 }, outlineColorFactor: [0, 1, 0], outlineLightingMixFactor: 0 },
        { pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } },
      )],
    });
    const full = outlineSides(await render(scene(withWidthTexture(solidImage(HALF, HALF, [255, 255, 255, 255])), {}, distance), 'outline-width-texture-full'));
    const half = outlineSides(await render(scene(withWidthTexture({ width: HALF, height: HALF, rgba: halfGreen }), {}, distance), 'outline-width-texture-half'));
    const all = JSON.stringify({ full, half });
    // Green 1 everywhere: the plain width on both sides.
    expect(Math.abs(full.left - expected), all).toBeLessThanOrEqual(1.5);
    expect(Math.abs(full.right - expected), all).toBeLessThanOrEqual(1.5);
    // Green 0 on the right half: no outline there; the left keeps its width. A shader ignoring the texture draws both.
    expect(half.right, all).toBe(0);
    expect(Math.abs(half.left - expected), all).toBeLessThanOrEqual(1.5);

    // Lighting mix: a white outline round a blue surface (lit and shade both blue, so the light's side does not matter).
    const mixed = (mix: number) => sphereFile(
      { shadeColorFactor: [0, 0, 1], outlineWidthMode: 'screenCoordinates', outlineWidthFactor: screen, outlineColorFactor: [1, 1, 1], outlineLightingMixFactor: mix, giEqualizationFactor: 0 },
      { pbrMetallicRoughness: { baseColorFactor: [0, 0, 1, 1] } },
    );
    const focal = (SIZE / 2) / Math.tan(FOV / 2);
    const disc = focal * Math.tan(Math.asin(1 / distance));
    /** Mean sRGB colour of the opaque middle-row pixels at least a pixel outside the sphere's disc: the outline alone. */
    const outlineColour = (image: Rgba8Image): number[] => {
      const y = SIZE / 2, sum = [0, 0, 0];
      let n = 0;
      for (let x = 0; x < SIZE; x++) {
        const i = (y * SIZE + x) * 4;
        if (Math.abs(x + 0.5 - SIZE / 2) < disc + 1 || image.data[i + 3] !== 255) continue;
        for (let c = 0; c < 3; c++) sum[c] += image.data[i + c];
        n++;
      }
      expect(n, 'outline pixels outside the disc').toBeGreaterThanOrEqual(4);
      return sum.map((v) => v / n);
    };
    const unlit = outlineColour(await render(scene(mixed(0), {}, distance), 'outline-mix-0'));
    const lit = outlineColour(await render(scene(mixed(1), {}, distance), 'outline-mix-1'));
    const colours = JSON.stringify({ unlit, lit });
    // Mix 0: outlineColor itself, white.
    for (const c of unlit) expect(c, colours).toBeGreaterThan(200);
    // Mix 1: white × the blue surface: red and green gone, blue stays. A shader ignoring the mix leaves it white.
    expect(lit[0], colours).toBeLessThan(40);
    expect(lit[1], colours).toBeLessThan(40);
    expect(lit[2], colours).toBeGreaterThan(lit[0] + 60);
  });

  it('transparentWithZWrite surfaces go first and hide what is behind them; renderQueueOffsetNumber orders the rest; the wrong order shows', async () => {
    // A red sphere in front of a blue one, both half transparent; the overlap's blue says whether the blue one shows through.
    const pair = (front: Record<string, unknown>, back: Record<string, unknown>) => buildMToonFile({
      spheres: [{ center: [-0.35, 0, 0.8], radius: 0.6, material: 0 }, { center: [0.35, 0, -0.8], radius: 0.6, material: 1 }],
      materials: [
        mtoonMaterial({ shadeColorFactor: [1, 0, 0], giEqualizationFactor: 0, ...front }, { pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 0.5] }, alphaMode: 'BLEND' }),
        mtoonMaterial({ shadeColorFactor: [0, 0, 1], giEqualizationFactor: 0, ...back }, { pbrMetallicRoughness: { baseColorFactor: [0, 0, 1, 0.5] }, alphaMode: 'BLEND' }),
      ],
    });
    // Where both cover the view: between the two centres, on the middle row.
    const overlap = (image: Rgba8Image) => {
      const i = ((SIZE / 2) * SIZE + SIZE / 2) * 4;
      return { red: image.data[i], blue: image.data[i + 2] };
    };
    const cases: { name: string; front: Record<string, unknown>; back: Record<string, unknown>; blueShows: boolean }[] = [
      // Back to front by depth: the blue one first, the red one blended over it.
      { name: 'plain', front: {}, back: {}, blueShows: true },
      // The red one writes depth and goes first: the blue one, behind, is hidden where they overlap.
      { name: 'front z-write', front: { transparentWithZWrite: true }, back: {}, blueShows: false },
      // The blue one writes depth but goes first anyway (queue 0 < 19), the red one blends over it.
      { name: 'back z-write', front: {}, back: { transparentWithZWrite: true }, blueShows: true },
      // Offsets against depth: the red front one at −9 goes first; the blue one is drawn over it.
      { name: 'front offset -9', front: { renderQueueOffsetNumber: -9 }, back: {}, blueShows: true },
    ];
    const blue: Record<string, number> = {};
    for (const c of cases) {
      const image = await render(scene(pair(c.front, c.back), { skyColor: [0.5, 0.5, 0.5], groundColor: [0.5, 0.5, 0.5] }, 5), `order-${c.name.replace(/\W+/g, '-')}`);
      blue[c.name] = overlap(image).blue;
    }
    // In the overlap the blue one either contributes (it is under or over the red one) or is hidden (depth).
    expect(blue['front z-write'], JSON.stringify(blue)).toBeLessThan(20);
    expect(blue.plain, JSON.stringify(blue)).toBeGreaterThan(60);
    expect(blue['back z-write'], JSON.stringify(blue)).toBeGreaterThan(60);
    // Drawn over the red one, the blue one is stronger than seen through it.
    expect(blue['front offset -9'], JSON.stringify(blue)).toBeGreaterThan(blue.plain + 30);
  });
});
