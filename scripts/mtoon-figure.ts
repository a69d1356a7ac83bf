/**
 * Composes docs/mtoon-vs-three-vrm.png, docs/vrm.md's picture of MToon: the built-in VRM 1.0
 * avatar and a close view of its face, each drawn by our Renderer (left of the pair) and by
 * three.js with three-vrm 3.5's MToon (right), from the same camera and lights. The images are
 * the ones test/browser/mtoon-three-vrm.test.ts reads back in Chromium and compares (its
 * artifacts), so the picture shows what the test measured. Run that test first, then:
 *
 *   node --import tsx scripts/mtoon-figure.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS_DIR, decodeImageBytes, encodePng } from '../test/support/png.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/mtoon-vs-three-vrm.png');
const PANELS = ['vrm-avatar-ours', 'vrm-avatar-three-vrm', 'vrm-avatar-face-ours', 'vrm-avatar-face-three-vrm'];
const GAP = 6;
const BACKGROUND = [246, 246, 243];

const images = PANELS.map((name) => decodeImageBytes(new Uint8Array(readFileSync(resolve(ARTIFACTS_DIR, `mtoon-vs-three-vrm-${name}.png`)))));
const width = images.reduce((w, im) => w + im.width, 0) + GAP * (images.length + 1);
const height = Math.max(...images.map((im) => im.height)) + 2 * GAP;
const out = new Uint8Array(width * height * 4);
for (let i = 0; i < width * height; i++) out.set([...BACKGROUND, 255], i * 4);
let left = GAP;
for (const im of images) {
  const top = GAP + Math.floor((height - 2 * GAP - im.height) / 2);
  for (let y = 0; y < im.height; y++) for (let x = 0; x < im.width; x++) {
    const s = (y * im.width + x) * 4, d = ((top + y) * width + left + x) * 4;
    // Straight alpha over the background.
    const a = im.data[s + 3] / 255;
    for (let c = 0; c < 3; c++) out[d + c] = Math.round(im.data[s + c] * a + BACKGROUND[c] * (1 - a));
  }
  left += im.width + GAP;
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, encodePng(width, height, out));
console.log(`wrote ${OUT} (${width}×${height})`);
