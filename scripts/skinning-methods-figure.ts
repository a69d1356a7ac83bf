/**
 * Renders docs/skinning-methods.png, docs/how-it-works.md's picture of the three skinning methods:
 * columns linear blend, dual quaternions, centres of rotation; top row the built-in
 * twist-cylinder at 180° of twist (front view), bottom row the built-in limb at the top of its
 * "Bend" clip (elbow 90°, wrist 45°; a close side view of the elbow). Drawn by the project's own Renderer on Dawn
 * (SwiftShader in Node) and read back: what the docs show is what the renderer draws.
 *
 *   node --import tsx --import ./scripts/raw-loader.mjs scripts/skinning-methods-figure.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SKINNING_METHODS } from '../src/anim/skinning-method.ts';
import { buildBuiltinGlb } from '../src/builtin/index.ts';
import { loadGltf } from '../src/gltf/load.ts';
import { computeInstanceBounds } from '../src/gpu/frame/bounds.ts';
import { createNodeDevice } from '../src/gpu/device/node-device.ts';
import { OffscreenScene } from '../test/gpu/gpu-test.ts';
import { encodePng } from '../test/support/png.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/skinning-methods.png');
const PANEL_W = 240, PANEL_H = 300, GAP = 6;
const BACKGROUND = [246, 246, 243];
/** `elbow`: a close view of the point (the limb's elbow at x = 1) instead of the whole model. */
const ROWS: readonly { model: string; clip: string; time: number; yaw: number; pitch: number; elbow?: readonly number[] }[] = [
  { model: 'twist-cylinder', clip: 'Twist', time: 2, yaw: 0.35, pitch: 0.15 },
  { model: 'limb', clip: 'Bend', time: 1, yaw: 0, pitch: 0, elbow: [1, 0.05, 0] },
];

const device = await createNodeDevice({ label: 'skinning-methods figure' });
const width = SKINNING_METHODS.length * PANEL_W + (SKINNING_METHODS.length + 1) * GAP;
const height = ROWS.length * PANEL_H + (ROWS.length + 1) * GAP;
const image = new Uint8Array(width * height * 4);
for (let i = 0; i < image.length; i += 4) image.set([205, 205, 200, 255], i);
const scene = new OffscreenScene(device, PANEL_W, PANEL_H);
scene.renderer.settings.clearColor.set([BACKGROUND[0] / 255, BACKGROUND[1] / 255, BACKGROUND[2] / 255, 1]);
try {
  for (const [row, spec] of ROWS.entries()) {
    const model = await loadGltf(buildBuiltinGlb(spec.model), { name: spec.model });
    await scene.setModel(model, false);
    const clip = model.animations.findIndex((c) => c.name === spec.clip);
    scene.pose(clip, spec.time);
    scene.camera.yaw = spec.yaw;
    scene.camera.pitch = spec.pitch;
    scene.camera.frame(computeInstanceBounds(scene.instance), PANEL_W / PANEL_H);
    scene.camera.distance *= 0.9;
    if (spec.elbow) {
      scene.camera.target.set(spec.elbow);
      scene.camera.distance = 1.1;
    }
    for (const [column, method] of SKINNING_METHODS.entries()) {
      scene.renderer.settings.skinning = method;
      await scene.renderer.prepareSkinning();
      const frame = await scene.render();
      if (scene.renderer.skinning !== method) throw new Error(`asked for ${method}, drew ${scene.renderer.skinning}`);
      const x0 = GAP + column * (PANEL_W + GAP), y0 = GAP + row * (PANEL_H + GAP);
      for (let y = 0; y < PANEL_H; y++) image.set(frame.rgba.subarray(y * PANEL_W * 4, (y + 1) * PANEL_W * 4), ((y0 + y) * width + x0) * 4);
    }
  }
} finally {
  scene.destroy();
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, encodePng(width, height, image));
console.log(`wrote ${OUT} (${width}×${height})`);
device.destroy();
process.exit(0);
