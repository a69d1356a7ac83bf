/**
 * The ground shadow under an environment (RenderSettings.shadowIntensity / shadowSoftness,
 * as model-viewer's shadow-intensity / shadow-softness): the ground only catches the
 * shadow (invisible elsewhere), cast from the environment's dominant direction, as dark
 * as the intensity asks and wider at the edge when softer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import type { Environment } from '../../../src/gpu/environment/environment.ts';
import type { EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { prefilterEnvironment } from '../../../src/gpu/environment/prefilter.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice('environment shadow test device');
const SIZE = 128;

/** Dim everywhere, with a bright patch around `towards` (unit vector). */
function lampImage(towards: readonly number[]): EquirectImage {
  const width = 64, height = 32, rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const theta = ((y + 0.5) / height) * Math.PI, phi = ((x + 0.5) / width - 0.5) * 2 * Math.PI;
    const d = [Math.sin(phi) * Math.sin(theta), Math.cos(theta), -Math.cos(phi) * Math.sin(theta)];
    const c = d[0] * towards[0] + d[1] * towards[1] + d[2] * towards[2];
    rgb.fill(c > 0.9 ? 20 : 0.2, (y * width + x) * 3, (y * width + x) * 3 + 3);
  }
  return { width, height, rgb };
}

/** Shadow pixels: covered by the ground only (premultiplied black, some alpha). */
function shadowStats(frame: Frame): { count: number; meanX: number; maxAlpha: number; penumbra: number } {
  let count = 0, sumX = 0, maxAlpha = 0;
  const alphas: number[] = [];
  for (let i = 0; i < frame.rgba.length; i += 4) {
    const a = frame.rgba[i + 3];
    if (a === 0 || Math.max(frame.rgba[i], frame.rgba[i + 1], frame.rgba[i + 2]) > 0) continue;
    count++;
    sumX += (i / 4) % frame.width;
    maxAlpha = Math.max(maxAlpha, a);
    alphas.push(a);
  }
  // Partly shadowed pixels: the edge.
  const penumbra = alphas.filter((a) => a < maxAlpha * 0.8).length;
  return { count, meanX: sumX / Math.max(1, count), maxAlpha, penumbra };
}

describe.skipIf(!device)('the ground shadow under an environment', () => {
  const gpu = device!;
  const scene = new OffscreenScene(gpu, SIZE, SIZE);
  const s = scene.renderer.settings;
  const made: Environment[] = [];
  afterAll(() => { for (const e of made) e.destroy(); scene.destroy(); });

  async function render(env: Environment, intensity: number, softness: number): Promise<Frame> {
    scene.renderer.setEnvironment(env);
    s.shadows = intensity > 0;
    s.ground = intensity > 0;
    s.shadowIntensity = intensity;
    s.shadowSoftness = softness;
    return scene.render();
  }

  it('catches only the shadow, from the dominant direction, as dark as shadowIntensity, softer with shadowSoftness', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    await scene.setModel(model);
    scene.camera.pitch = 0.5;
    s.shadowMapSize = 512;
    await scene.renderer.prepareShadows();
    await scene.renderer.prepareGround();
    const above = await prefilterEnvironment(gpu, lampImage([0, 1, 0]), 'lamp above');
    const right = await prefilterEnvironment(gpu, lampImage([0.7, 0.7, 0]), 'lamp right');
    made.push(above, right);
    expect(above.dominantDirection[1]).toBeGreaterThan(0.95);
    expect(right.dominantDirection[0]).toBeGreaterThan(0.5);

    await expectNoGpuErrors(gpu, async () => {
      const none = shadowStats(await render(above, 0, 0));
      expect(none.count).toBe(0);
      const full = shadowStats(await render(above, 1, 0));
      const half = shadowStats(await render(above, 0.5, 0));
      const soft = shadowStats(await render(above, 1, 1));
      const fromRight = shadowStats(await render(right, 1, 0));
      // A shadow under the character, nothing on the rest of the disc (it would be black everywhere otherwise).
      expect(full.count).toBeGreaterThan(20);
      expect(full.count).toBeLessThan(SIZE * SIZE * 0.25);
      expect(full.maxAlpha).toBeGreaterThan(200);
      expect(half.maxAlpha).toBeGreaterThan(full.maxAlpha * 0.4);
      expect(half.maxAlpha).toBeLessThan(full.maxAlpha * 0.6);
      expect(soft.penumbra).toBeGreaterThan(full.penumbra * 1.5);
      // Light from the right (+x): the shadow falls to the left of the one cast from above.
      expect(fromRight.meanX).toBeLessThan(full.meanX - 4);
    });
  });

  it('without an environment, `shadows` keeps lighting the ground disc as before (matte, visible)', async () => {
    scene.renderer.setEnvironment(undefined);
    s.shadows = true;
    s.ground = true;
    s.shadowIntensity = 1;
    s.shadowSoftness = 0;
    const frame = await scene.render();
    let litGround = 0;
    for (let i = 0; i < frame.rgba.length; i += 4) if (frame.rgba[i + 3] > 0 && frame.rgba[i] > 20) litGround++;
    expect(litGround).toBeGreaterThan(SIZE * SIZE * 0.1);
  });
});
