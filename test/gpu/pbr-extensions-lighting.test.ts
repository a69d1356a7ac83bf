/**
 * The lighting contract of each PBR material extension, in Dawn on generated spheres
 * (test/support/spheres.ts), under both lightings (`legacy`: the key light and hemisphere;
 * `environment`: the neutral studio, image-based): what the extension's specification says it
 * does, measured in linear radiance (no tone mapping, the sRGB target decoded). Every assertion is
 * also made on a wrong input — the extension at a value that should not show the effect — and
 * shown to fail there (`expect…not`), so none can pass by accident.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GltfMaterialJson } from '../../src/gltf/builder.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { neutralEnvironment } from '../../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../../src/gpu/environment/prefilter.ts';
import type { Environment } from '../../src/gpu/environment/environment.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { srgbToLinear } from '../../src/gpu/textures/textures.ts';
import { sphereGlb, splitPng, type SphereOptions } from '../support/spheres.ts';
import { expectNoGpuErrors, OffscreenScene, projectToPixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 128;
/** The sphere (radius 1) seen head-on from this far fills most of the frame. */
const DISTANCE = 3.2;

type Lighting = 'legacy' | 'environment';
const LIGHTINGS: readonly Lighting[] = ['legacy', 'environment'];

/** A render of the sphere: linear RGB per pixel, the sphere's centre and radius in pixels. */
interface SphereImage {
  readonly rgb: Float32Array;
  readonly cx: number;
  readonly cy: number;
  readonly radius: number;
}

function luma(img: SphereImage, x: number, y: number): number {
  const i = (Math.round(y) * SIZE + Math.round(x)) * 3;
  return 0.2126 * img.rgb[i] + 0.7152 * img.rgb[i + 1] + 0.0722 * img.rgb[i + 2];
}

function rgbAt(img: SphereImage, x: number, y: number): [number, number, number] {
  const i = (Math.round(y) * SIZE + Math.round(x)) * 3;
  return [img.rgb[i], img.rgb[i + 1], img.rgb[i + 2]];
}

/** Pixels inside the sphere at a radius fraction in [from, to), as [x, y]. */
function ring(img: SphereImage, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const r = Math.hypot(x + 0.5 - img.cx, y + 0.5 - img.cy) / img.radius;
      if (r >= from && r < to) out.push([x, y]);
    }
  }
  return out;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

describe.skipIf(!device)('PBR material extensions: the lighting contracts', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let environment: Environment;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.renderer.settings.toneMapping = ToneMapping.NONE;
    scene.renderer.settings.clearColor.set([0, 0, 0, 1]);
    environment = await prefilterEnvironment(gpu, neutralEnvironment(), 'neutral');
  }, 120_000);
  afterAll(() => {
    scene?.destroy();
    environment?.destroy();
  });

  /** `time`: when the file's clip is playing (options.pointerTracks), its time; otherwise the rest pose. */
  async function render(material: GltfMaterialJson, lighting: Lighting, options: SphereOptions = {}, time?: number): Promise<SphereImage> {
    const model = await loadGltf(sphereGlb(material, options), { name: 'sphere' });
    expect(model.warnings).toEqual([]);
    return expectNoGpuErrors(gpu, async () => {
      scene.renderer.setEnvironment(lighting === 'environment' ? environment : undefined);
      await scene.setModelHeadOn(model, DISTANCE);
      scene.pose(time === undefined ? -1 : 0, time ?? 0);
      // Again once built when the first frame asked for pipelines (the transmission pass's).
      const frame: Frame = await scene.renderSettled();
      const rgb = new Float32Array(SIZE * SIZE * 3);
      for (let p = 0; p < SIZE * SIZE; p++) for (let c = 0; c < 3; c++) rgb[p * 3 + c] = srgbToLinear(frame.rgba[p * 4 + c] / 255);
      const [cx, cy] = projectToPixel(scene.camera, SIZE, SIZE, [0, 0, 0]);
      // The silhouette's top: where the ray grazing the sphere crosses the plane through its centre.
      const [, top] = projectToPixel(scene.camera, SIZE, SIZE, [0, DISTANCE / Math.sqrt(DISTANCE * DISTANCE - 1), 0]);
      return { rgb, cx, cy, radius: cy - top };
    });
  }

  const pbr = (extra: Record<string, unknown>, base: Record<string, unknown> = {}): GltfMaterialJson => ({
    pbrMetallicRoughness: { baseColorFactor: [0.5, 0.5, 0.5, 1], metallicFactor: 0, roughnessFactor: 1, ...base },
    extensions: extra,
  });

  for (const lighting of LIGHTINGS) {
    describe(`under ${lighting === 'legacy' ? 'the legacy key light and hemisphere' : 'image-based light (the neutral studio)'}`, () => {
      it('clearcoat adds a second lobe that stays sharp over a rough base', async () => {
        const EXT = 'KHR_materials_clearcoat';
        const used = { extensionsUsed: [EXT] };
        const base = await render(pbr({}), lighting);
        const sharp = await render(pbr({ [EXT]: { clearcoatFactor: 1, clearcoatRoughnessFactor: 0.05 } }), lighting, used);
        const rough = await render(pbr({ [EXT]: { clearcoatFactor: 1, clearcoatRoughnessFactor: 1 } }), lighting, used);
        const inside = ring(base, 0, 0.95);
        // The light the coat adds where it adds the most, over the rough base: a sharp lobe
        // concentrates it (a mirror image of the key light, or of the studio's lights).
        const peak = (img: SphereImage) => Math.max(...inside.map(([x, y]) => luma(img, x, y) - luma(base, x, y)));
        const sharpLobe = (img: SphereImage) => peak(img) > 0.15;
        const report = (img: SphereImage) => `peak ${peak(img).toFixed(4)} (sharp coat ${peak(sharp).toFixed(4)}, rough coat ${peak(rough).toFixed(4)})`;
        expect(sharpLobe(sharp), report(sharp)).toBe(true);
        // Wrong input: a rough coat spreads the same light too thin.
        expect(sharpLobe(rough), report(rough)).toBe(false);
      });

      it('sheen brightens grazing angles on a rough cloth sphere', async () => {
        const EXT = 'KHR_materials_sheen';
        const cloth = { baseColorFactor: [0.05, 0.05, 0.05, 1] };
        const bare = await render(pbr({}, cloth), lighting);
        const sheen = await render(pbr({ [EXT]: { sheenColorFactor: [1, 1, 1], sheenRoughnessFactor: 0.6 } }, cloth), lighting, { extensionsUsed: [EXT] });
        const black = await render(pbr({ [EXT]: { sheenColorFactor: [0, 0, 0], sheenRoughnessFactor: 0.6 } }, cloth), lighting, { extensionsUsed: [EXT] });
        const gain = (img: SphereImage, from: number, to: number) => mean(ring(bare, from, to).map(([x, y]) => luma(img, x, y) - luma(bare, x, y)));
        const grazingFirst = (img: SphereImage) => gain(img, 0.85, 0.97) > 0.01 && gain(img, 0.85, 0.97) > 2 * gain(img, 0, 0.4);
        expect(grazingFirst(sheen), `rim gain ${gain(sheen, 0.85, 0.97).toFixed(4)}, centre gain ${gain(sheen, 0, 0.4).toFixed(4)}`).toBe(true);
        // Wrong input: a black sheen brightens nothing.
        expect(grazingFirst(black)).toBe(false);
      });

      it('specular 0 removes the dielectric highlight', async () => {
        const EXT = 'KHR_materials_specular';
        // A black dielectric: all it shows is its specular reflection.
        const glossy = { baseColorFactor: [0, 0, 0, 1], roughnessFactor: 0.25 };
        const zero = await render(pbr({ [EXT]: { specularFactor: 0 } }, glossy), lighting, { extensionsUsed: [EXT] });
        const one = await render(pbr({ [EXT]: { specularFactor: 1, specularColorFactor: [1, 1, 1.0001] } }, glossy), lighting, { extensionsUsed: [EXT] });
        const inside = ring(zero, 0, 0.97);
        const peak = (img: SphereImage) => Math.max(...inside.map(([x, y]) => luma(img, x, y)));
        const noHighlight = (img: SphereImage) => peak(img) < 0.004;
        expect(noHighlight(zero), `peak ${peak(zero).toFixed(4)}`).toBe(true);
        // Wrong input: specular 1 keeps it.
        expect(noHighlight(one), `peak ${peak(one).toFixed(4)}`).toBe(false);
      });

      it('ior 1 makes a dielectric reflect nothing at normal incidence', async () => {
        const EXT = 'KHR_materials_ior';
        const black = { baseColorFactor: [0, 0, 0, 1], roughnessFactor: 0.3 };
        const air = await render(pbr({ [EXT]: { ior: 1 } }, black), lighting, { extensionsUsed: [EXT] });
        const glass = await render(pbr({ [EXT]: { ior: 1.5 } }, black), lighting, { extensionsUsed: [EXT] });
        // The middle of the sphere faces the eye; the key light's highlight is elsewhere.
        const centre = (img: SphereImage) => mean(ring(img, 0, 0.1).map(([x, y]) => luma(img, x, y)));
        const reflectsNothing = (img: SphereImage) => centre(img) < 0.002;
        expect(reflectsNothing(air), `centre ${centre(air).toFixed(5)}`).toBe(true);
        // Wrong input: IOR 1.5 reflects F0 = 4%.
        expect(reflectsNothing(glass), `centre ${centre(glass).toFixed(5)}`).toBe(false);
      });

      it('transmission shows the background through the sphere, tinted by the base colour', async () => {
        const EXT = 'KHR_materials_transmission';
        const backdrop = [0.6, 0.6, 0.6] as const;
        const red = { baseColorFactor: [1, 0.25, 0.25, 1], roughnessFactor: 0 };
        const options = { extensionsUsed: [EXT], backdrop };
        const clear = await render(pbr({ [EXT]: { transmissionFactor: 1 } }, red), lighting, options);
        const opaque = await render(pbr({ [EXT]: { transmissionFactor: 0 } }, red), lighting, options);
        const middle = (img: SphereImage) => {
          const px = ring(img, 0, 0.25).map(([x, y]) => rgbAt(img, x, y));
          return [0, 1, 2].map((c) => mean(px.map((p) => p[c])));
        };
        // Through the middle: the backdrop, less the few percent reflected, times the base colour.
        const showsTintedBackdrop = (img: SphereImage) => {
          const [r, g, b] = middle(img);
          return Math.abs(r - backdrop[0]) < 0.12 && Math.abs(g - backdrop[1] * 0.25) < 0.08 && Math.abs(b - backdrop[2] * 0.25) < 0.08;
        };
        expect(showsTintedBackdrop(clear), `middle ${middle(clear).map((v) => v.toFixed(3))}`).toBe(true);
        // Wrong input: no transmission shows the lit red surface instead.
        expect(showsTintedBackdrop(opaque), `middle ${middle(opaque).map((v) => v.toFixed(3))}`).toBe(false);
      });

      it('volume attenuation darkens thick parts', async () => {
        const EXT = ['KHR_materials_transmission', 'KHR_materials_volume'];
        // Thickness texture (green): 0 on the left half of the sphere, full on the right.
        const textures = [splitPng([0, 0, 0, 255], [0, 255, 0, 255])];
        const material = (attenuationColor: number[]) => pbr({
          KHR_materials_transmission: { transmissionFactor: 1 },
          KHR_materials_volume: { thicknessFactor: 1, thicknessTexture: { index: 0 }, attenuationDistance: 0.5, attenuationColor },
        }, { baseColorFactor: [1, 1, 1, 1], roughnessFactor: 0 });
        const options = { extensionsUsed: EXT, backdrop: [0.6, 0.6, 0.6] as const, textures };
        const tinted = await render(material([0.5, 0.5, 0.5]), lighting, options);
        const white = await render(material([1, 1, 1]), lighting, options);
        const side = (img: SphereImage, left: boolean) => mean(ring(img, 0.1, 0.5).filter(([x]) => (x + 0.5 < img.cx - 4) === left && (x + 0.5 > img.cx + 4) === !left).map(([x, y]) => luma(img, x, y)));
        // Beer-Lambert over a thickness of 1 with distance 0.5: 0.5² = 0.25 of the light gets through the thick half.
        const thickDarker = (img: SphereImage) => side(img, false) / side(white, false) < 0.45 && side(img, true) / side(white, true) > 0.85;
        expect(thickDarker(tinted), `thick ${(side(tinted, false) / side(white, false)).toFixed(3)}, thin ${(side(tinted, true) / side(white, true)).toFixed(3)}`).toBe(true);
        // Wrong input: a white attenuation colour darkens nothing.
        expect(thickDarker(white)).toBe(false);
      });

      it('iridescence shifts hue with angle', async () => {
        const EXT = 'KHR_materials_iridescence';
        const dark = { baseColorFactor: [0.02, 0.02, 0.02, 1], roughnessFactor: 0.3 };
        const film = await render(pbr({ [EXT]: { iridescenceFactor: 1, iridescenceIor: 1.8, iridescenceThicknessMaximum: 500 } }, dark), lighting, { extensionsUsed: [EXT] });
        const none = await render(pbr({ [EXT]: { iridescenceFactor: 0 } }, dark), lighting, { extensionsUsed: [EXT] });
        // Hue (degrees) of the mean colour of a ring, from its chroma.
        const hue = (img: SphereImage, from: number, to: number) => {
          const px = ring(img, from, to).map(([x, y]) => rgbAt(img, x, y));
          const [r, g, b] = [0, 1, 2].map((c) => mean(px.map((p) => p[c])));
          return { degrees: (Math.atan2(Math.sqrt(3) * (g - b), 2 * r - g - b) * 180) / Math.PI, chroma: Math.max(r, g, b) - Math.min(r, g, b), level: Math.max(r, g, b) };
        };
        const shifts = (img: SphereImage) => {
          const a = hue(img, 0, 0.3), b = hue(img, 0.75, 0.9);
          const turn = Math.abs(((a.degrees - b.degrees + 540) % 360) - 180);
          return a.chroma > 0.15 * a.level && b.chroma > 0.15 * b.level && turn > 25;
        };
        expect(shifts(film), JSON.stringify([hue(film, 0, 0.3), hue(film, 0.75, 0.9)])).toBe(true);
        // Wrong input: no film, no colour (the hemisphere and studio are near grey).
        expect(shifts(none), JSON.stringify([hue(none, 0, 0.3), hue(none, 0.75, 0.9)])).toBe(false);
      });

      it('anisotropy stretches the highlight along its direction', async () => {
        const EXT = 'KHR_materials_anisotropy';
        const glossy = { baseColorFactor: [0, 0, 0, 1], roughnessFactor: 0.3 };
        const stretched = await render(pbr({ [EXT]: { anisotropyStrength: 0.9 } }, glossy), lighting, { extensionsUsed: [EXT] });
        const round = await render(pbr({ [EXT]: { anisotropyStrength: 0 } }, glossy), lighting, { extensionsUsed: [EXT] });
        // Stretched along the tangent (x, around the sphere): blurred across x, so its detail runs down
        // (y): the ratio of vertical to horizontal gradients over the sphere.
        const streak = (img: SphereImage) => {
          const px = ring(img, 0, 0.8);
          const gx = mean(px.map(([x, y]) => Math.abs(luma(img, x + 1, y) - luma(img, x, y))));
          const gy = mean(px.map(([x, y]) => Math.abs(luma(img, x, y + 1) - luma(img, x, y))));
          return gy / gx;
        };
        const stretchedAlongTangent = (img: SphereImage) => streak(img) > 1.5;
        expect(stretchedAlongTangent(stretched), `streak ${streak(stretched).toFixed(2)}`).toBe(true);
        // Wrong input: no anisotropy, a round highlight.
        expect(stretchedAlongTangent(round), `streak ${streak(round).toFixed(2)}`).toBe(false);
      });

      it('diffuse transmission lets light from behind through a thin surface', async () => {
        const EXT = 'KHR_materials_diffuse_transmission';
        // The key light behind the sphere (in view space) and a studio lit from behind alike.
        const saved = Float32Array.from(scene.renderer.settings.lightDirection);
        scene.renderer.settings.lightDirection.set([0, 0.2, -1]);
        try {
          const leaf = { baseColorFactor: [0.8, 0.8, 0.8, 1] };
          const through = await render(pbr({ [EXT]: { diffuseTransmissionFactor: 1, diffuseTransmissionColorFactor: [0.2, 1, 0.2] } }, leaf), lighting, { extensionsUsed: [EXT] });
          const solid = await render(pbr({ [EXT]: { diffuseTransmissionFactor: 0 } }, leaf), lighting, { extensionsUsed: [EXT] });
          const centre = (img: SphereImage) => {
            const px = ring(img, 0, 0.3).map(([x, y]) => rgbAt(img, x, y));
            return [0, 1, 2].map((c) => mean(px.map((p) => p[c])));
          };
          // Light from behind comes through tinted by the transmission colour: green over red.
          const greenThrough = (img: SphereImage) => centre(img)[1] > 1.5 * centre(img)[0];
          expect(greenThrough(through), `centre ${centre(through).map((v) => v.toFixed(3))}`).toBe(true);
          // Wrong input: no diffuse transmission, the grey front alone.
          expect(greenThrough(solid), `centre ${centre(solid).map((v) => v.toFixed(3))}`).toBe(false);
        } finally {
          scene.renderer.settings.lightDirection.set(saved);
        }
      });

      it('dispersion splits the colours of what is seen through a refracting volume', async () => {
        const EXTS = ['KHR_materials_transmission', 'KHR_materials_volume', 'KHR_materials_ior', 'KHR_materials_dispersion'];
        const glass = (dispersion: number) => pbr({
          KHR_materials_transmission: { transmissionFactor: 1 },
          KHR_materials_volume: { thicknessFactor: 2 },
          KHR_materials_ior: { ior: 1.6 },
          KHR_materials_dispersion: { dispersion },
        }, { baseColorFactor: [1, 1, 1, 1], roughnessFactor: 0 });
        // A white left half and a black right half behind the sphere: an edge for the colours to part at.
        const options = { extensionsUsed: EXTS, backdrop: [[0.8, 0.8, 0.8], [0, 0, 0]] as const };
        const prism = await render(glass(20), lighting, options);
        const plain = await render(glass(0), lighting, options);
        // Where red and blue see different sides of the edge.
        const fringe = (img: SphereImage) => Math.max(...ring(img, 0, 0.8).map(([x, y]) => {
          const [r, , b] = rgbAt(img, x, y);
          return Math.abs(r - b);
        }));
        const splits = (img: SphereImage) => fringe(img) > 0.15;
        expect(splits(prism), `fringe ${fringe(prism).toFixed(3)}`).toBe(true);
        // Wrong input: no dispersion, every channel refracts alike.
        expect(splits(plain), `fringe ${fringe(plain).toFixed(3)}`).toBe(false);
      });

      it('KHR_animation_pointer: an animated clearcoat factor draws as the static factor of the time', async () => {
        const EXT = 'KHR_materials_clearcoat';
        const coat = (clearcoatFactor: number) => pbr({ [EXT]: { clearcoatFactor, clearcoatRoughnessFactor: 0.05 } });
        // 0 at 0 s, 1 at 2 s: 0.5 at 1 s. The material's own factor (0) would leave it on the plain path.
        const pointerTracks = [{ pointer: `/materials/0/extensions/${EXT}/clearcoatFactor`, input: Float32Array.of(0, 2), output: Float32Array.of(0, 1), type: 'SCALAR' as const }];
        const animated = await render(coat(0), lighting, { extensionsUsed: [EXT], pointerTracks }, 1);
        const half = await render(coat(0.5), lighting, { extensionsUsed: [EXT] });
        const none = await render(coat(0), lighting, { extensionsUsed: [EXT] });
        const inside = ring(half, 0, 0.95);
        const difference = (a: SphereImage, b: SphereImage) => mean(inside.map(([x, y]) => Math.abs(luma(a, x, y) - luma(b, x, y))));
        // The coat shows: half a coat differs from none by more than the two drawings of half a coat.
        expect(difference(half, none)).toBeGreaterThan(10 * difference(animated, half) + 1e-3);
        expect(difference(animated, half), `animated vs static 0.5 ${difference(animated, half).toFixed(5)}`).toBeLessThan(1 / 255);
        // Wrong input: the material's own factor, as a renderer that ignores the track draws it.
        expect(difference(none, half)).not.toBeLessThan(1 / 255);
      });
    });
  }

  describe('KHR_animation_pointer beyond clearcoat (image-based light)', () => {
    /** A factor animated from `from` at 0 s to `to` at 2 s draws at 1 s as the static material of the midpoint. */
    interface AnimatedFactor {
      readonly extension: string;
      readonly property: string;
      readonly type: 'SCALAR' | 'VEC3';
      readonly from: readonly number[];
      readonly to: readonly number[];
      /** The material with the extension's property at `value` (others fixed). */
      readonly material: (value: number | readonly number[]) => GltfMaterialJson;
      readonly options?: SphereOptions;
    }
    const ANIMATED: readonly AnimatedFactor[] = [
      {
        extension: 'KHR_materials_sheen', property: 'sheenColorFactor', type: 'VEC3', from: [0, 0, 0], to: [1, 0.6, 0.8],
        material: (v) => pbr({ KHR_materials_sheen: { sheenColorFactor: v, sheenRoughnessFactor: 0.5 } }, { baseColorFactor: [0.05, 0.05, 0.05, 1] }),
      },
      {
        extension: 'KHR_materials_transmission', property: 'transmissionFactor', type: 'SCALAR', from: [0], to: [1],
        material: (v) => pbr({ KHR_materials_transmission: { transmissionFactor: v } }, { baseColorFactor: [0.9, 0.9, 0.9, 1], roughnessFactor: 0.1 }),
        options: { backdrop: [[0.9, 0.8, 0.5], [0.05, 0.1, 0.4]] },
      },
      {
        extension: 'KHR_materials_iridescence', property: 'iridescenceFactor', type: 'SCALAR', from: [0], to: [1],
        material: (v) => pbr({ KHR_materials_iridescence: { iridescenceFactor: v, iridescenceIor: 1.8, iridescenceThicknessMaximum: 500 } }, { baseColorFactor: [0.05, 0.05, 0.05, 1], roughnessFactor: 0.2 }),
      },
      {
        extension: 'KHR_materials_specular', property: 'specularFactor', type: 'SCALAR', from: [0], to: [1],
        material: (v) => pbr({ KHR_materials_specular: { specularFactor: v } }, { baseColorFactor: [0, 0, 0, 1], roughnessFactor: 0.25 }),
      },
    ];
    for (const a of ANIMATED) {
      it(`an animated ${a.property} draws as the static factor of the time`, async () => {
        const mid = a.from.map((f, i) => (f + a.to[i]) / 2);
        const value = (v: readonly number[]) => (a.type === 'SCALAR' ? v[0] : v);
        const pointerTracks = [{ pointer: `/materials/0/extensions/${a.extension}/${a.property}`, input: Float32Array.of(0, 2), output: Float32Array.of(...a.from, ...a.to), type: a.type }];
        const options = { ...a.options, extensionsUsed: [a.extension] };
        const animated = await render(a.material(value(a.from)), 'environment', { ...options, pointerTracks }, 1);
        const half = await render(a.material(value(mid)), 'environment', options);
        const start = await render(a.material(value(a.from)), 'environment', options);
        const inside = ring(half, 0, 0.95);
        const difference = (p: SphereImage, q: SphereImage) => mean(inside.map(([x, y]) => rgbAt(p, x, y).reduce((sum, c, k) => sum + Math.abs(c - rgbAt(q, x, y)[k]), 0) / 3));
        const report = `animated vs static midpoint ${difference(animated, half).toFixed(5)}, start vs midpoint ${difference(start, half).toFixed(5)}`;
        expect(difference(animated, half), report).toBeLessThan(1 / 255);
        // Wrong input: the material's own factor, as a renderer that ignores the track draws it.
        expect(difference(start, half), report).toBeGreaterThan(10 * difference(animated, half) + 2 / 255);
      });
    }
  });
});
