/**
 * Each PBR extension texture modulates its factor where the texture says, in Dawn: a sphere
 * (test/support/spheres.ts; u < 0.5 is the left half of the head-on view) with the extension's
 * texture split down the middle — the left half "on" (the value that shows the extension), the
 * right half "off" — against the same sphere with the texture "on" everywhere. Where the texture
 * agrees (the left half) the two images are the same; where it differs (the right half) they
 * differ by more than 2 levels on average. If a texture were ignored (or read from the wrong
 * channel, which these values tell apart: "off" changes only the channel the specification
 * names), the right halves would match too; the first case checks the measure fails there, with a
 * control whose split texture differs only in a channel the material does not read.
 * One 64×64 target under the neutral studio's image-based light.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GltfMaterialJson } from '../../src/gltf/builder.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Environment } from '../../src/gpu/environment/environment.ts';
import { neutralEnvironment } from '../../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../../src/gpu/environment/prefilter.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { sphereGlb, splitPng } from '../support/spheres.ts';
import { expectNoGpuErrors, OffscreenScene, projectToPixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 64;
const DISTANCE = 3.2;
/** Pixels this close to the seam (in sphere radii) mix both halves of the texture through filtering. */
const SEAM = 0.2;

type Rgba = readonly [number, number, number, number];
const WHITE: Rgba = [255, 255, 255, 255];

interface TextureCase {
  readonly name: string;
  readonly extension: string;
  /** The material, given the texture's index. */
  readonly material: (texture: number) => GltfMaterialJson;
  readonly on: Rgba;
  readonly off: Rgba;
  readonly extensionsUsed?: readonly string[];
  readonly backdrop?: boolean;
}

const base = (extensions: Record<string, unknown>, pbr: Record<string, unknown> = {}): GltfMaterialJson => ({
  pbrMetallicRoughness: { baseColorFactor: [0.5, 0.5, 0.5, 1], metallicFactor: 0, roughnessFactor: 0.5, ...pbr }, extensions,
});
const tex = (index: number, extra: Record<string, unknown> = {}) => ({ index, ...extra });

const CASES: readonly TextureCase[] = [
  {
    name: 'clearcoat (R)', extension: 'KHR_materials_clearcoat', on: WHITE, off: [0, 255, 255, 255],
    material: (t) => base({ KHR_materials_clearcoat: { clearcoatFactor: 1, clearcoatTexture: tex(t), clearcoatRoughnessFactor: 0.05 } }, { roughnessFactor: 1, baseColorFactor: [0.5, 0.1, 0.1, 1] }),
  },
  {
    name: 'clearcoat roughness (G)', extension: 'KHR_materials_clearcoat', on: [255, 20, 255, 255], off: WHITE,
    material: (t) => base({ KHR_materials_clearcoat: { clearcoatFactor: 1, clearcoatRoughnessFactor: 1, clearcoatRoughnessTexture: tex(t) } }, { roughnessFactor: 1, baseColorFactor: [0.5, 0.1, 0.1, 1] }),
  },
  {
    name: 'sheen colour (RGB)', extension: 'KHR_materials_sheen', on: WHITE, off: [0, 0, 0, 255],
    material: (t) => base({ KHR_materials_sheen: { sheenColorFactor: [1, 1, 1], sheenColorTexture: tex(t), sheenRoughnessFactor: 0.5 } }, { roughnessFactor: 1, baseColorFactor: [0.05, 0.05, 0.05, 1] }),
  },
  {
    name: 'sheen roughness (A)', extension: 'KHR_materials_sheen', on: [255, 255, 255, 60], off: WHITE,
    material: (t) => base({ KHR_materials_sheen: { sheenColorFactor: [1, 1, 1], sheenRoughnessFactor: 1, sheenRoughnessTexture: tex(t) } }, { roughnessFactor: 1, baseColorFactor: [0.05, 0.05, 0.05, 1] }),
  },
  {
    name: 'specular (A)', extension: 'KHR_materials_specular', on: WHITE, off: [255, 255, 255, 0],
    material: (t) => base({ KHR_materials_specular: { specularFactor: 1, specularTexture: tex(t) } }, { roughnessFactor: 0.25, baseColorFactor: [0, 0, 0, 1] }),
  },
  {
    name: 'specular colour (RGB)', extension: 'KHR_materials_specular', on: WHITE, off: [0, 0, 0, 255],
    material: (t) => base({ KHR_materials_specular: { specularColorFactor: [1, 1, 1], specularColorTexture: tex(t) } }, { roughnessFactor: 0.25, baseColorFactor: [0, 0, 0, 1] }),
  },
  {
    name: 'transmission (R)', extension: 'KHR_materials_transmission', on: WHITE, off: [0, 255, 255, 255], backdrop: true,
    material: (t) => base({ KHR_materials_transmission: { transmissionFactor: 1, transmissionTexture: tex(t) } }, { roughnessFactor: 0.1, baseColorFactor: [1, 1, 1, 1] }),
  },
  {
    name: 'thickness (G)', extension: 'KHR_materials_volume', on: WHITE, off: [255, 0, 255, 255], backdrop: true,
    extensionsUsed: ['KHR_materials_transmission', 'KHR_materials_volume'],
    material: (t) => base({
      KHR_materials_transmission: { transmissionFactor: 1 },
      KHR_materials_volume: { thicknessFactor: 1.5, thicknessTexture: tex(t), attenuationDistance: 0.5, attenuationColor: [0.2, 0.5, 0.9] },
    }, { roughnessFactor: 0.05, baseColorFactor: [1, 1, 1, 1] }),
  },
  {
    name: 'iridescence (R)', extension: 'KHR_materials_iridescence', on: WHITE, off: [0, 255, 255, 255],
    material: (t) => base({ KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceTexture: tex(t), iridescenceIor: 1.8, iridescenceThicknessMaximum: 500 } }, { roughnessFactor: 0.2, baseColorFactor: [0.05, 0.05, 0.05, 1] }),
  },
  {
    name: 'iridescence thickness (G)', extension: 'KHR_materials_iridescence', on: WHITE, off: [255, 0, 255, 255],
    material: (t) => base({
      KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceIor: 1.8, iridescenceThicknessMinimum: 100, iridescenceThicknessMaximum: 700, iridescenceThicknessTexture: tex(t) },
    }, { roughnessFactor: 0.2, baseColorFactor: [0.05, 0.05, 0.05, 1] }),
  },
  {
    name: 'anisotropy (B strength)', extension: 'KHR_materials_anisotropy', on: [255, 128, 255, 255], off: [255, 128, 0, 255],
    material: (t) => base({ KHR_materials_anisotropy: { anisotropyStrength: 1, anisotropyTexture: tex(t) } }, { roughnessFactor: 0.35, metallicFactor: 1, baseColorFactor: [0.9, 0.9, 0.9, 1] }),
  },
];

interface Halves {
  /** Mean absolute channel difference (8-bit) over the sphere's left and right halves, away from the seam. */
  readonly left: number;
  readonly right: number;
}

describe.skipIf(!device)('PBR extension textures modulate their factors where the texture says', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let environment: Environment;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.renderer.settings.toneMapping = ToneMapping.NONE;
    scene.renderer.settings.clearColor.set([0, 0, 0, 1]);
    environment = await prefilterEnvironment(gpu, neutralEnvironment(), 'neutral');
    scene.renderer.setEnvironment(environment);
  }, 120_000);
  afterAll(() => {
    scene?.destroy();
    environment?.destroy();
  });

  async function render(c: TextureCase, png: Uint8Array): Promise<Frame> {
    const model = await loadGltf(sphereGlb(c.material(0), {
      extensionsUsed: c.extensionsUsed ?? [c.extension], textures: [png], ...(c.backdrop ? { backdrop: [[0.9, 0.85, 0.7], [0.1, 0.3, 0.8]] as const } : {}),
    }), { name: c.name });
    expect(model.warnings).toEqual([]);
    return expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(model, DISTANCE);
      scene.pose(-1, 0);
      // Again once built when the first frame asked for pipelines (the transmission pass's).
      return scene.renderSettled();
    });
  }

  function halves(a: Frame, b: Frame): Halves {
    const [cx, cy] = projectToPixel(scene.camera, SIZE, SIZE, [0, 0, 0]);
    const [, top] = projectToPixel(scene.camera, SIZE, SIZE, [0, DISTANCE / Math.sqrt(DISTANCE * DISTANCE - 1), 0]);
    const radius = cy - top;
    const sum = [0, 0], count = [0, 0];
    for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
      const dx = (x + 0.5 - cx) / radius, dy = (y + 0.5 - cy) / radius;
      if (dx * dx + dy * dy > 0.9 * 0.9 || Math.abs(dx) < SEAM) continue;
      const side = dx < 0 ? 0 : 1, i = (y * SIZE + x) * 4;
      for (let ch = 0; ch < 3; ch++) sum[side] += Math.abs(a.rgba[i + ch] - b.rgba[i + ch]);
      count[side] += 3;
    }
    return { left: sum[0] / count[0], right: sum[1] / count[1] };
  }

  const modulates = (h: Halves) => h.left < 0.5 && h.right > 2;

  for (const c of CASES) {
    it(c.name, async () => {
      const everywhere = await render(c, splitPng(c.on, c.on));
      const split = await render(c, splitPng(c.on, c.off));
      const h = halves(split, everywhere);
      expect(modulates(h), `left ${h.left.toFixed(2)}, right ${h.right.toFixed(2)}`).toBe(true);
      if (c === CASES[0]) {
        // Wrong input: a split only in a channel clearcoat does not read (G) changes nothing.
        const unread = halves(await render(c, splitPng(c.on, [255, 0, 255, 255])), everywhere);
        expect(modulates(unread), `left ${unread.left.toFixed(2)}, right ${unread.right.toFixed(2)}`).toBe(false);
      }
    });
  }
});
