/**
 * The scenes of the PBR extensions' side by side with three.js (pbr-three.test.ts, and
 * scripts/pbr-three-figure.ts for docs/pbr-vs-three.png): generated equivalents of the Khronos
 * extension test scenes, three spheres each (test/support/spheres.ts) under one directional key
 * light and a uniform ambient, seen by one camera. ClearCoatTest: a rough red and a blue base
 * under coats of three roughnesses and strengths; SheenChair's cloth: dark rough fabric under
 * white, pink and blue sheen of rising roughness; TransmissionTest: clear, green-tinted and
 * slightly rough glass in front of a light/dark backdrop; IridescenceLamp's film: thin films of
 * three thicknesses and indices over a black dielectric, a metal and a grey dielectric.
 */
import { toBase64, type GltfMaterialJson } from '../../src/gltf/builder.ts';
import { sphereGlb, type SphereOptions } from '../support/spheres.ts';
import type { Rgba8Image } from './element-support.ts';
import type { SideBySideScene } from './pages/side-by-side-scene.ts';
import type { MaskCamera } from './pbr-similarity.ts';

const WIDTH = 240, HEIGHT = 96;
const SPACING = 2.5;
export const CAMERA: MaskCamera = { width: WIDTH, height: HEIGHT, eye: [SPACING, 0.8, 8.5], target: [SPACING, 0, 0], fovY: (22 * Math.PI) / 180 };
export const SPHERE_CENTRES: readonly (readonly [number, number, number])[] = [0, 1, 2].map((k) => [k * SPACING, 0, 0] as const);
const AMBIENT = [0.3, 0.3, 0.3] as const;
const KEY = [2.5, 2.5, 2.5] as const;
const LIGHT_DIRECTION = [0.38, 0.62, 0.69] as const;

const pbr = (base: Record<string, unknown>, extensions: Record<string, unknown>): GltfMaterialJson => ({
  pbrMetallicRoughness: { metallicFactor: 0, ...base }, extensions,
});

export interface PbrThreeCase {
  readonly name: string;
  /** The one extension the scene's materials use. */
  readonly extension: string;
  readonly materials: readonly GltfMaterialJson[];
  readonly options?: SphereOptions;
}

const RED = { baseColorFactor: [0.6, 0.05, 0.05, 1], roughnessFactor: 0.8 };
const CLOTH = { baseColorFactor: [0.06, 0.06, 0.08, 1], roughnessFactor: 1 };

export const PBR_THREE_CASES: readonly PbrThreeCase[] = [
  {
    name: 'clearcoat', extension: 'KHR_materials_clearcoat', materials: [
      pbr(RED, { KHR_materials_clearcoat: { clearcoatFactor: 1, clearcoatRoughnessFactor: 0.05 } }),
      pbr(RED, { KHR_materials_clearcoat: { clearcoatFactor: 1, clearcoatRoughnessFactor: 0.35 } }),
      pbr({ baseColorFactor: [0.05, 0.1, 0.6, 1], roughnessFactor: 0.6 }, { KHR_materials_clearcoat: { clearcoatFactor: 0.5, clearcoatRoughnessFactor: 0.1 } }),
    ],
  },
  {
    name: 'sheen', extension: 'KHR_materials_sheen', materials: [
      pbr(CLOTH, { KHR_materials_sheen: { sheenColorFactor: [1, 1, 1], sheenRoughnessFactor: 0.3 } }),
      pbr(CLOTH, { KHR_materials_sheen: { sheenColorFactor: [0.9, 0.35, 0.6], sheenRoughnessFactor: 0.6 } }),
      pbr({ baseColorFactor: [0.1, 0.08, 0.05, 1], roughnessFactor: 1 }, { KHR_materials_sheen: { sheenColorFactor: [0.4, 0.7, 1], sheenRoughnessFactor: 1 } }),
    ],
  },
  {
    name: 'transmission', extension: 'KHR_materials_transmission', materials: [
      pbr({ baseColorFactor: [1, 1, 1, 1], roughnessFactor: 0 }, { KHR_materials_transmission: { transmissionFactor: 1 } }),
      pbr({ baseColorFactor: [0.4, 0.9, 0.5, 1], roughnessFactor: 0 }, { KHR_materials_transmission: { transmissionFactor: 1 } }),
      pbr({ baseColorFactor: [0.9, 0.9, 1, 1], roughnessFactor: 0.15 }, { KHR_materials_transmission: { transmissionFactor: 0.8 } }),
    ],
    // Light behind the left half, dark behind the right, meeting behind the middle sphere.
    options: { backdrop: [[0.75, 0.72, 0.6], [0.05, 0.06, 0.08]], backdropCentreX: SPACING, backdropHalfWidth: 8 },
  },
  {
    name: 'iridescence', extension: 'KHR_materials_iridescence', materials: [
      pbr({ baseColorFactor: [0.05, 0.05, 0.05, 1], roughnessFactor: 0.2 }, { KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceIor: 1.3, iridescenceThicknessMaximum: 400 } }),
      pbr({ baseColorFactor: [0.9, 0.9, 0.9, 1], roughnessFactor: 0.25, metallicFactor: 1 }, { KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceIor: 1.5, iridescenceThicknessMaximum: 600 } }),
      pbr({ baseColorFactor: [0.2, 0.2, 0.25, 1], roughnessFactor: 0.4 }, { KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceIor: 1.8, iridescenceThicknessMaximum: 250 } }),
    ],
  },
];

/** The case's file; without the extension: the same materials with it removed (what ignoring it draws). */
export function pbrThreeGlb(c: PbrThreeCase, withExtension = true): Uint8Array {
  const materials = withExtension ? c.materials : c.materials.map((m) => ({ ...m, extensions: {} }));
  return sphereGlb(materials[0], { ...c.options, more: materials.slice(1), extensionsUsed: withExtension ? [c.extension] : [] });
}

export function pbrThreeScene(glb: Uint8Array): SideBySideScene {
  return {
    glb: toBase64(glb), width: CAMERA.width, height: CAMERA.height, eye: [...CAMERA.eye] as [number, number, number], target: [...CAMERA.target] as [number, number, number],
    fovY: CAMERA.fovY, near: 0.1, far: 50, lightDirection: [...LIGHT_DIRECTION], lightColor: [...KEY], skyColor: [...AMBIENT], groundColor: [...AMBIENT],
    // The transmission pass's pipelines build on the first frame.
    warmFrames: 1,
  };
}

/** Images of one size side by side, `gap` pixels apart, over an opaque `background` (sRGB bytes). */
export function besideEachOther(images: readonly Rgba8Image[], gap: number, background: readonly [number, number, number]): Rgba8Image {
  const { width, height } = images[0];
  const total = images.length * width + (images.length - 1) * gap;
  const data = new Uint8Array(total * height * 4);
  for (let p = 0; p < total * height; p++) data.set([...background, 255], p * 4);
  images.forEach((image, k) => {
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4, o = (y * total + k * (width + gap) + x) * 4, a = image.data[i + 3] / 255;
      for (let c = 0; c < 3; c++) data[o + c] = Math.round(image.data[i + c] * a + background[c] * (1 - a));
    }
  });
  return { width: total, height, data };
}

/** Images of one width stacked top to bottom, `gap` pixels apart, over `background`. */
export function aboveEachOther(images: readonly Rgba8Image[], gap: number, background: readonly [number, number, number]): Rgba8Image {
  const { width } = images[0];
  const total = images.reduce((h, image) => h + image.height, 0) + (images.length - 1) * gap;
  const data = new Uint8Array(width * total * 4);
  for (let p = 0; p < width * total; p++) data.set([...background, 255], p * 4);
  let y0 = 0;
  for (const image of images) {
    data.set(image.data, y0 * width * 4);
    y0 += image.height + gap;
  }
  return { width, height: total, data };
}
