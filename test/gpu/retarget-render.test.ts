/**
 * CesiumMan's walk retargeted onto RiggedFigure (through a user map), drawn on Dawn next to
 * CesiumMan walking: the figure's silhouette follows the walker's phase (it overlaps the walker
 * at the same time more than a quarter cycle before or after), and it moves. Writes the strip the README
 * shows (test-artifacts/retarget-cesium-figure.png; public/retarget.png is a copy).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { retargetClips } from '../../src/anim/retarget/retarget.ts';
import { addClips } from '../../src/anim/retarget/add-clips.ts';
import { loadAnimationLibrary } from '../../src/anim/retarget/animation-library.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { CESIUM_TO_FIGURE } from '../anim/retarget/fixtures.ts';
import { assetPath } from '../support/assets.ts';
import { writeArtifactPng } from '../support/png.ts';
import { coverage, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice('retarget render');
const SIZE = 192;
const TIMES = [0, 0.25, 0.5, 0.75];

/** Pixels covered in both / covered in either. */
function overlap(a: Frame, b: Frame): number {
  let both = 0, either = 0;
  for (let i = 3; i < a.rgba.length; i += 4) {
    const x = a.rgba[i] > 0, y = b.rgba[i] > 0;
    if (x && y) both++;
    if (x || y) either++;
  }
  return both / either;
}

describe.skipIf(!device)('retargeted clips on the GPU', () => {
  const scenes: OffscreenScene[] = [];
  afterAll(() => { for (const s of scenes) s.destroy(); });

  it("RiggedFigure walks CesiumMan's walk in step with it", async () => {
    const asset = (name: string) => new Uint8Array(readFileSync(assetPath(name)));
    const cesium = await loadAnimationLibrary(asset('CesiumMan'), { name: 'CesiumMan.glb' });
    const figureBase = await loadGltf(asset('RiggedFigure'), { name: 'RiggedFigure.glb' });
    const { clips } = retargetClips(cesium.clips, cesium, figureBase, { jointMap: CESIUM_TO_FIGURE });
    const figure = addClips(figureBase, clips, 'CesiumMan.glb');
    const walk = figure.animations.length - 1;
    const left = new OffscreenScene(device!, SIZE, SIZE), right = new OffscreenScene(device!, SIZE, SIZE);
    scenes.push(left, right);
    await left.setModel(cesium.model);
    await right.setModel(figure, false);
    // One camera for both, from the side, so strides show.
    for (const s of [left, right]) {
      s.camera.target.set(left.camera.target);
      s.camera.distance = left.camera.distance * 1.1;
      s.camera.yaw = Math.PI / 2;
      s.camera.pitch = 0.1;
    }
    const walker: Frame[] = [], figures: Frame[] = [];
    for (const t of TIMES) {
      walker.push(await left.pose(0, t * cesium.clips[0].duration).render());
      figures.push(await right.pose(walk, t * cesium.clips[0].duration).render());
    }
    // The strip: walker over figure, one column per time.
    const width = SIZE * TIMES.length, height = SIZE * 2;
    const strip = new Uint8Array(width * height * 4);
    const put = (f: Frame, col: number, row: number) => {
      for (let y = 0; y < SIZE; y++) {
        for (let x = 0; x < SIZE; x++) {
          const s = (y * SIZE + x) * 4, d = ((row * SIZE + y) * width + col * SIZE + x) * 4;
          const a = f.rgba[s + 3] / 255;
          for (let c = 0; c < 3; c++) strip[d + c] = Math.round(f.rgba[s + c] * a + 255 * (1 - a));
          strip[d + 3] = 255;
        }
      }
    };
    TIMES.forEach((_, i) => { put(walker[i], i, 0); put(figures[i], i, 1); });
    writeArtifactPng('retarget-cesium-figure', width, height, strip);
    for (const f of figures) expect(coverage(f)).toBeGreaterThan(0.02);
    // In step: at each time the figure overlaps the walker of that time more than the walker a
    // quarter cycle before or after (half a cycle apart, the side views are near mirror images).
    for (let i = 0; i < TIMES.length; i++) {
      const same = overlap(figures[i], walker[i]);
      const n = TIMES.length;
      const off = Math.max(overlap(figures[i], walker[(i + 1) % n]), overlap(figures[i], walker[(i + n - 1) % n]));
      expect(same, `t=${TIMES[i]}`).toBeGreaterThan(off + 0.05);
    }
    // It moves: a quarter cycle apart the figure covers different pixels.
    expect(overlap(figures[0], figures[1])).toBeLessThan(0.9);

  });
});
