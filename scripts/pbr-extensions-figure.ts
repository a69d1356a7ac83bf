/**
 * Renders docs/pbr-extensions.png, docs/loading.md's picture of the PBR material extensions: the
 * extension test spheres (test/support/spheres.ts) under the neutral studio's image-based light,
 * each in front of a backdrop whose left half is light and right half dark (what transmission
 * shows through). Top row: plain glTF PBR, clearcoat over a rough base, specular 0, IOR 1,
 * sheen on rough cloth, transmission; bottom row: volume, iridescence, anisotropy, dispersion,
 * diffuse transmission (lit from behind by the key light too), all ten. Drawn by the project's own
 * Renderer on Dawn (SwiftShader in Node) and read back: what the docs show is what the
 * renderer draws.
 *
 *   node --import tsx --import ./scripts/raw-loader.mjs scripts/pbr-extensions-figure.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GltfMaterialJson } from '../src/gltf/builder.ts';
import { loadGltf } from '../src/gltf/load.ts';
import { createNodeDevice } from '../src/gpu/device/node-device.ts';
import { neutralEnvironment } from '../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../src/gpu/environment/prefilter.ts';
import { OffscreenScene } from '../test/gpu/gpu-test.ts';
import { everyPbrExtension, PBR_EXTENSION_NAMES } from '../test/support/pbr-materials.ts';
import { encodePng } from '../test/support/png.ts';
import { sphereGlb } from '../test/support/spheres.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/pbr-extensions.png');
const PANEL = 200, GAP = 6, COLUMNS = 6;
const BACKDROP = [[0.75, 0.72, 0.6], [0.05, 0.06, 0.08]] as const;

const pbr = (extensions: Record<string, unknown>, base: Record<string, unknown> = {}): GltfMaterialJson => ({
  pbrMetallicRoughness: { baseColorFactor: [0.5, 0.5, 0.5, 1], metallicFactor: 0, roughnessFactor: 0.5, ...base },
  extensions,
});
const glass = { KHR_materials_transmission: { transmissionFactor: 1 } };
const all = everyPbrExtension(() => 0);
const untextured = Object.fromEntries(Object.entries(all).map(([name, values]) => [name, Object.fromEntries(Object.entries(values).filter(([k]) => !k.endsWith('Texture')))]));
const PANELS: readonly GltfMaterialJson[] = [
  pbr({}),
  pbr({ KHR_materials_clearcoat: { clearcoatFactor: 1, clearcoatRoughnessFactor: 0.05 } }, { roughnessFactor: 1, baseColorFactor: [0.6, 0.1, 0.1, 1] }),
  pbr({ KHR_materials_specular: { specularFactor: 0 } }, { roughnessFactor: 0.2 }),
  pbr({ KHR_materials_ior: { ior: 1 } }, { roughnessFactor: 0.2, baseColorFactor: [0.1, 0.1, 0.1, 1] }),
  pbr({ KHR_materials_sheen: { sheenColorFactor: [1, 0.8, 0.9], sheenRoughnessFactor: 0.6 } }, { roughnessFactor: 1, baseColorFactor: [0.3, 0.05, 0.15, 1] }),
  pbr(glass, { roughnessFactor: 0.1, baseColorFactor: [0.9, 1, 0.9, 1] }),
  pbr({ ...glass, KHR_materials_volume: { thicknessFactor: 1.5, attenuationDistance: 0.8, attenuationColor: [0.3, 0.6, 0.9] } }, { roughnessFactor: 0.05, baseColorFactor: [1, 1, 1, 1] }),
  pbr({ KHR_materials_iridescence: { iridescenceFactor: 1, iridescenceIor: 1.8, iridescenceThicknessMaximum: 500 } }, { roughnessFactor: 0.2, baseColorFactor: [0.05, 0.05, 0.05, 1] }),
  pbr({ KHR_materials_anisotropy: { anisotropyStrength: 0.9 } }, { roughnessFactor: 0.3, metallicFactor: 1, baseColorFactor: [0.9, 0.9, 0.9, 1] }),
  pbr({ ...glass, KHR_materials_volume: { thicknessFactor: 2 }, KHR_materials_ior: { ior: 1.6 }, KHR_materials_dispersion: { dispersion: 20 } }, { roughnessFactor: 0, baseColorFactor: [1, 1, 1, 1] }),
  pbr({ KHR_materials_diffuse_transmission: { diffuseTransmissionFactor: 1, diffuseTransmissionColorFactor: [0.2, 1, 0.2] } }, { roughnessFactor: 1 }),
  pbr(untextured, { roughnessFactor: 0.4, baseColorFactor: [0.8, 0.6, 0.4, 1] }),
];

const device = await createNodeDevice({ label: 'pbr-extensions figure' });
const rows = Math.ceil(PANELS.length / COLUMNS);
const width = COLUMNS * PANEL + (COLUMNS + 1) * GAP;
const height = rows * PANEL + (rows + 1) * GAP;
const image = new Uint8Array(width * height * 4);
for (let i = 0; i < image.length; i += 4) image.set([205, 205, 200, 255], i);
const scene = new OffscreenScene(device, PANEL, PANEL);
const environment = await prefilterEnvironment(device, neutralEnvironment(), 'neutral');
scene.renderer.setEnvironment(environment);
try {
  for (const [k, material] of PANELS.entries()) {
    const used = Object.keys(material.extensions as Record<string, unknown>).filter((name) => (PBR_EXTENSION_NAMES as readonly string[]).includes(name));
    const model = await loadGltf(sphereGlb(material, { extensionsUsed: used, backdrop: BACKDROP }), { name: `panel ${k}` });
    if (model.warnings.length > 0) throw new Error(`panel ${k}: ${JSON.stringify(model.warnings)}`);
    await scene.setModelHeadOn(model, 3.4);
    scene.camera.yaw = 0.25;
    scene.camera.pitch = 0.15;
    scene.pose(-1, 0);
    // Twice: the first frame may precede the transmission pass's pipelines.
    await scene.render();
    const frame = await scene.render();
    const x0 = GAP + (k % COLUMNS) * (PANEL + GAP), y0 = GAP + Math.floor(k / COLUMNS) * (PANEL + GAP);
    for (let y = 0; y < PANEL; y++) image.set(frame.rgba.subarray(y * PANEL * 4, (y + 1) * PANEL * 4), ((y0 + y) * width + x0) * 4);
  }
} finally {
  scene.destroy();
  environment.destroy();
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, encodePng(width, height, image));
console.log(`wrote ${OUT} (${width}×${height})`);
device.destroy();
process.exit(0);
