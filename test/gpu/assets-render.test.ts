/**
 * End-to-end renders of the built-in character and real assets into test-artifacts/
 * (git-ignored) for people to look at, with checks that catch the usual failures:
 * nothing drawn, black or inside-out shading, meshes in the wrong place, no animation.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import type { ModelInstance } from '../../src/anim/instance.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';
import { assetPath } from '../support/assets.ts';
import { writeArtifactPng } from '../support/png.ts';
import { coverage, expectNoGpuErrors, loadModel, luma, OffscreenScene, pixel, projectToPixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 256;

interface Case {
  readonly name: string;
  readonly bytes: () => Uint8Array;
  readonly clip: string;
  readonly times: readonly [number, number];
}

const CASES: readonly Case[] = [
  { name: 'character', bytes: () => buildBuiltinGlb('character'), clip: 'Walk', times: [0.2, 0.7] },
  { name: 'CesiumMan', bytes: () => new Uint8Array(readFileSync(assetPath('CesiumMan'))), clip: '', times: [0.3, 1.1] },
  { name: 'Fox', bytes: () => new Uint8Array(readFileSync(assetPath('Fox'))), clip: 'Walk', times: [0.2, 0.6] },
  { name: 'RobotExpressive', bytes: () => new Uint8Array(readFileSync(assetPath('RobotExpressive'))), clip: 'Dance', times: [0.4, 1.3] },
];

/** Mean luma of covered pixels and the share of covered pixels that are near black. */
function shading(frame: Frame): { mean: number; black: number } {
  let sum = 0, n = 0, black = 0;
  for (let y = 0; y < frame.height; y++) for (let x = 0; x < frame.width; x++) {
    if (pixel(frame, x, y)[3] < 255) continue;
    const l = luma(frame, x, y);
    sum += l;
    n++;
    if (l < 8) black++;
  }
  return { mean: sum / Math.max(1, n), black: black / Math.max(1, n) };
}

/** The premultiplied frame over a dark grey backdrop, for looking at. */
function overBackdrop(frame: Frame): Uint8Array {
  const out = new Uint8Array(frame.rgba);
  for (let i = 0; i < out.length; i += 4) {
    const a = out[i + 3] / 255;
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(out[i + c] + BACKDROP[c] * (1 - a));
    out[i + 3] = 255;
  }
  return out;
}
const BACKDROP = [40, 43, 48];

/** World-space centre of each mesh node's posed vertices (skinned on the CPU where skinned). */
function meshNodeCentres(instance: ModelInstance): number[][] {
  const { model } = instance;
  return model.meshNodes.map((mn, i) => {
    const c = [0, 0, 0];
    let n = 0;
    const o = model.hierarchy.slotOf[mn.node] * 16;
    const m = instance.nodeMatrices;
    for (const prim of model.meshes[mn.mesh].primitives) {
      const pos = instance.paletteOffsets[i] >= 0
        ? skinPrimitive(prim, instance.palette, createSkinnedVertices(prim, 'float64'), instance.paletteOffsets[i]).positions
        : prim.positions;
      for (let v = 0; v < prim.vertexCount; v++) {
        for (let k = 0; k < 3; k++) c[k] += m[o + k] * pos[v * 3] + m[o + 4 + k] * pos[v * 3 + 1] + m[o + 8 + k] * pos[v * 3 + 2] + m[o + 12 + k];
        n++;
      }
    }
    return c.map((x) => x / n);
  });
}

describe.skipIf(!device)('rendering real assets (PNGs in test-artifacts/)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    // Transparent, so alpha tells what was drawn; the PNGs get a backdrop composited in.
    scene.renderer.settings.clearColor.set([0, 0, 0, 0]);
    // A three-quarter view from slightly above shows depth better than the front.
    scene.camera.yaw = 0.6;
    scene.camera.pitch = 0.15;
  });
  afterAll(() => scene?.destroy());

  for (const c of CASES) {
    it(`${c.name}: drawn, lit, animated`, async () => {
      const model = await loadModel(c.bytes(), c.name);
      const clip = Math.max(0, model.animations.findIndex((a) => a.name === c.clip));
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model);
        const frames: Frame[] = [];
        for (const t of c.times) {
          const frame = await scene.pose(clip, t).render();
          writeArtifactPng(`${c.name}-t${t}`, frame.width, frame.height, overBackdrop(frame));
          frames.push(frame);
          const cov = coverage(frame);
          expect(cov, 'coverage').toBeGreaterThan(0.04);
          expect(cov, 'coverage').toBeLessThan(0.7);
          const { mean, black } = shading(frame);
          expect(mean, 'mean luma of the model').toBeGreaterThan(40);
          expect(black, 'share of black pixels').toBeLessThan(0.1);
          // Every mesh node (rigid, bone-parented or skinned) is drawn where the CPU puts it.
          for (const [i, centre] of meshNodeCentres(scene.instance).entries()) {
            const [x, y] = projectToPixel(scene.camera, SIZE, SIZE, centre);
            let covered = false;
            for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) covered ||= pixel(frame, x + dx, y + dy)[3] === 255;
            expect(covered, `meshNodes[${i}] (node ${model.meshNodes[i].node}) at pixel (${x.toFixed(0)}, ${y.toFixed(0)})`).toBe(true);
          }
        }
        let changed = 0;
        for (let i = 3; i < frames[0].rgba.length; i += 4) if (frames[0].rgba[i] !== frames[1].rgba[i]) changed++;
        expect(changed, 'pixels changed between the two times').toBeGreaterThan(50);
      });
    });
  }
});
