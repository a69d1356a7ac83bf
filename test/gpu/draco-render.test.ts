/**
 * GPU renders of Draco variants (made at test time) against their originals, same camera and
 * pose: the decoded geometry must draw the same picture up to Draco's quantization, which at
 * this size moves silhouettes by a small fraction of a pixel and shading by a few levels.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetPath } from '../support/assets.ts';
import { compressFile } from '../support/compressed.ts';
import { sharedAccessorFixture } from '../support/draco-shared-accessor.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 256;

/** Skinned (CesiumMan, Fox) and rigid plus morphed parts (RobotExpressive). */
const CASES = [
  { name: 'CesiumMan', clip: '', time: 0.7 },
  { name: 'Fox', clip: 'Walk', time: 0.4 },
  { name: 'RobotExpressive', clip: 'Dance', time: 0.9 },
] as const;

/**
 * Of the pixels either render covers, the share whose coverage differs: only silhouette
 * pixels whose centre a sub-pixel shift crosses can differ (the model spans ~200 pixels and
 * positions move by under 1e-4 of it, ~0.02 pixels).
 */
const COVERAGE_DIFFERENCE = 0.005;
/**
 * Mean absolute 8-bit colour difference over pixels both cover: normals off by under 0.25°,
 * texture coordinates by under a quarter texel of a 1024² texture, and the few silhouette
 * and depth-fight pixels whose colour flips entirely.
 */
const MEAN_COLOUR_DIFFERENCE = 1;

function compare(a: Frame, b: Frame): { coverage: number; colour: number } {
  let either = 0, differ = 0, both = 0, sum = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    const ca = a.rgba[i + 3] > 0, cb = b.rgba[i + 3] > 0;
    if (ca || cb) either++;
    if (ca !== cb) differ++;
    if (ca && cb) {
      both++;
      for (let c = 0; c < 3; c++) sum += Math.abs(a.rgba[i + c] - b.rgba[i + c]) / 3;
    }
  }
  return { coverage: differ / Math.max(1, either), colour: sum / Math.max(1, both) };
}

describe.skipIf(!device)('Draco variants render like their originals', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.camera.yaw = 0.6;
    scene.camera.pitch = 0.15;
  });
  afterAll(() => scene?.destroy());

  for (const c of CASES) {
    it(`${c.name}`, async () => {
      const original = await loadModel(new Uint8Array(readFileSync(assetPath(c.name))), c.name);
      const draco = await loadModel(await compressFile(assetPath(c.name), 'draco'), `${c.name} (Draco)`);
      const clip = Math.max(0, original.animations.findIndex((a) => a.name === c.clip));
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(original);
        const want = await scene.pose(clip, c.time).render();
        // Same camera: framed on the original.
        await scene.setModel(draco, false);
        const got = await scene.pose(clip, c.time).render();
        const { coverage, colour } = compare(want, got);
        expect(coverage, 'share of covered pixels whose coverage differs').toBeLessThan(COVERAGE_DIFFERENCE);
        expect(colour, 'mean colour difference where both cover').toBeLessThan(MEAN_COLOUR_DIFFERENCE);
      });
    });
  }
});

describe.skipIf(!device)('the Draco file naming one accessor for TEXCOORD_0…3 draws like its decoded twin', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.camera.yaw = 0.4;
    scene.camera.pitch = 0.3;
  });
  afterAll(() => scene?.destroy());

  it('the same pixels, bent; and the checker on TEXCOORD_1 would show a wrong set', async () => {
    // test/support/draco-shared-accessor.ts: a checker texture read through TEXCOORD_1.
    const { draco, twin } = await sharedAccessorFixture();
    const shared = await loadModel(draco, 'shared TEXCOORD accessor (Draco)');
    const decoded = await loadModel(twin, 'decoded twin');
    const bend = decoded.animations.findIndex((a) => a.name === 'Bend');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(decoded);
      const want = await scene.pose(bend, 0.8).render();
      await scene.setModel(shared, false);
      const got = await scene.pose(bend, 0.8).render();
      expect(Array.from(got.rgba)).toEqual(Array.from(want.rgba));
      // The control: the twin with TEXCOORD_0's data in TEXCOORD_1 (what reading the shared
      // accessor as one array would draw) is a different picture.
      const prim = decoded.meshes[0].primitives[0];
      const wrong = { ...decoded, meshes: [{ ...decoded.meshes[0], primitives: [{ ...prim, texcoords1: prim.texcoords0 }] }] };
      await scene.setModel(wrong, false);
      const control = compare(want, await scene.pose(bend, 0.8).render());
      expect(control.colour, 'mean colour difference with TEXCOORD_0 drawn for TEXCOORD_1').toBeGreaterThan(10 * MEAN_COLOUR_DIFFERENCE);
    });
  }, 60_000);
});
