/**
 * The two self-checking VRM expression samples drawn in Dawn (vrm-specification
 * samples/VRMC_vrm_expressions_isBinary_Overrides and _Overridden, in ../shared/assets/vrm).
 * Their big plane shows one tile of an 8×8 atlas, chosen by the texture-transform binds of
 * `happy` (x) and `blink` (y): the tiles that `isBinary` and the blink override can produce are
 * green with check marks, every other one red with crosses. So at every input weight a correct
 * implementation draws the plane green with no red; dropping `isBinary`, or the override, draws
 * red at some of the weights below. The MToon UV-animation sample is drawn too (MToon's own
 * tests check how). PNGs in test-artifacts/.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateMatricesAndPalettes } from '../../src/anim/instance.ts';
import { writeArtifactPng } from '../support/png.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 192;
const WEIGHTS = [0, 0.3, 0.7, 1];

/** Drawn pixels clearly red and clearly green (by hue, whatever the lighting makes of their brightness). */
function redAndGreen(frame: Frame): { red: number; green: number } {
  let red = 0, green = 0;
  const d = frame.rgba;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 255) continue;
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (r > 40 && r > 2 * g && r > 2 * b) red++;
    if (g > 30 && g > 1.5 * r && g > 1.5 * b) green++;
  }
  return { red, green };
}

describe.skipIf(!device)('the shared VRM samples drawn', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  for (const file of ['VRMC_vrm_expressions_isBinary_Overrides', 'VRMC_vrm_expressions_isBinary_Overridden']) {
    it(`${file}: green, never red, at every happy and blink weight`, async () => {
      const model = await loadModel(new Uint8Array(readFileSync(`../shared/assets/vrm/${file}.vrm`)), file);
      expect(model.warnings).toEqual([]);
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model);
        const expressions = scene.instance.vrm!.expressions;
        for (const happy of WEIGHTS) for (const blink of WEIGHTS) {
          expressions.setWeight('happy', happy);
          expressions.setWeight('blink', blink);
          updateMatricesAndPalettes(scene.instance);
          const frame = await scene.render();
          if (blink === 0.7) writeArtifactPng(`vrm-${file}-happy${happy}-blink${blink}`, frame.width, frame.height, frame.rgba);
          const { red, green } = redAndGreen(frame);
          const at = `happy ${happy}, blink ${blink}`;
          expect(green, `green pixels at ${at}`).toBeGreaterThan(0.05 * SIZE * SIZE);
          // A texel's worth of filtering across a tile's edge at most.
          expect(red, `red pixels at ${at}`).toBeLessThan(0.01 * green);
        }
      });
    });
  }

  it('VRMC_materials_mtoon_UV_Animation_Test: its three quads drawn', async () => {
    const file = 'VRMC_materials_mtoon_UV_Animation_Test';
    const model = await loadModel(new Uint8Array(readFileSync(`../shared/assets/vrm/${file}.vrm`)), file);
    expect(model.warnings).toEqual([]);
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      updateMatricesAndPalettes(scene.instance);
      const frame = await scene.render();
      writeArtifactPng(`vrm-${file}`, frame.width, frame.height, frame.rgba);
      expect(coverage(frame)).toBeGreaterThan(0.05);
    });
  });
});
