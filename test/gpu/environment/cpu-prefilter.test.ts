/**
 * The CPU prefilter (src/gpu/environment/cpu-prefilter.ts) against the GPU prefilter
 * (prefilter.ts) on a real device (Dawn on SwiftShader): every level of the radiance cube and of
 * the specular chain texel by texel, for the neutral studio and for an image with hard edges
 * (where the taps across cube face edges and the trilinear levels show); the Fox's frame lit by
 * either; and that it makes no pipeline.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { prefilterCubeOnCpu, prefilterEnvironmentOnCpu } from '../../../src/gpu/environment/cpu-prefilter.ts';
import type { Environment } from '../../../src/gpu/environment/environment.ts';
import type { EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { neutralEnvironment } from '../../../src/gpu/environment/neutral.ts';
import { prefilterEnvironment } from '../../../src/gpu/environment/prefilter.ts';
import { assetPath } from '../../support/assets.ts';
import { readHalfTexels } from '../../support/half-float.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice('cpu prefilter test device');

/** A dark room with a small, very bright square light and a bright band across the seam of the equirect: hard edges everywhere. */
function hardEdges(width = 256): EquirectImage {
  const height = width / 2, rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const light = x > width * 0.6 && x < width * 0.66 && y > height * 0.2 && y < height * 0.3;
      const band = (x < width * 0.05 || x > width * 0.95) && y > height * 0.45 && y < height * 0.6;
      const v = light ? 40 : band ? 3 : 0.05 + 0.2 * ((x >> 4) & 1);
      const o = (y * width + x) * 3;
      rgb[o] = v; rgb[o + 1] = v * 0.8; rgb[o + 2] = v * 0.6;
    }
  }
  return { width, height, rgb };
}

interface LevelDifference {
  readonly level: number;
  /** Largest |cpu − gpu| / max(|gpu|, FLOOR) over the level's rgb. */
  readonly worst: number;
  /** Share of the level's rgb values further apart than 1 % (relative, as `worst`). */
  readonly overOnePercent: number;
}

/** Values under this count as this large for relative differences (the images are lit at 0.05 and above). */
const FLOOR = 1e-3;

/** Each level of `texture` read back against the CPU's levels. */
async function compareLevels(gpu: GPUDevice, texture: GPUTexture, levels: readonly { size: number; texels: Float32Array }[]): Promise<LevelDifference[]> {
  expect(texture.mipLevelCount).toBe(levels.length);
  const out: LevelDifference[] = [];
  for (let level = 0; level < levels.length; level++) {
    const { size, texels } = levels[level];
    let worst = 0, over = 0;
    for (let face = 0; face < 6; face++) {
      const read = await readHalfTexels(gpu, texture, level, face, 4);
      for (let k = 0; k < size * size * 4; k++) {
        if (k % 4 === 3) continue;
        const g = read[k], c = texels[face * size * size * 4 + k];
        const d = Math.abs(c - g) / Math.max(Math.abs(g), FLOOR);
        worst = Math.max(worst, d);
        if (d > 0.01) over++;
      }
    }
    out.push({ level, worst, overOnePercent: over / (6 * size * size * 3) });
  }
  return out;
}

describe.runIf(device)('prefilterEnvironmentOnCpu', () => {
  const gpu = device!;

  it('neutral: every level of the radiance cube and the specular chain as the GPU prefilter makes it', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const image = neutralEnvironment();
      const onGpu = await prefilterEnvironment(gpu, image, 'neutral gpu');
      try {
        const cube = await prefilterCubeOnCpu(image);
        const radiance = await compareLevels(gpu, onGpu.radiance, cube.radiance);
        const specular = await compareLevels(gpu, onGpu.specular, cube.specular);
        // One bilinear tap of the equirect (repeated across its seam) or a 2×2 mean, stored as f16: within four
        // rounding steps (2⁻⁸ relative; SwiftShader's trigonometry and filtering are f32 approximations). Clamping at
        // the seam instead of repeating puts the texels there 4.5 % off.
        for (const d of radiance) expect(d.worst, `radiance level ${d.level}`).toBeLessThan(2 ** -8);
        // 64 trilinear taps each, across face edges: within 2 % (SwiftShader's level-of-detail and seam filtering).
        for (const d of specular) expect(d.worst, `specular level ${d.level}`).toBeLessThan(0.02);
      } finally {
        onGpu.destroy();
      }
    });
  });

  it('an image with hard edges and a small bright light: the same cubes but where a fraction of a texel turns a tap', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const image = hardEdges();
      const onGpu = await prefilterEnvironment(gpu, image, 'hard edges gpu');
      try {
        const cube = await prefilterCubeOnCpu(image);
        // A face, a direction or a level wrong moves the light (40 against a room of 0.05–0.25) or the band to other
        // texels: whole regions off by far more than these. Radiance: only texels on an edge differ (seen: 0.05 % over 1 %,
        // worst 21 %). Specular: which of 64 samples hit the small light turns on fractions of a texel (seen: up to 7 %
        // of values over 1 %, worst 6 %).
        for (const d of await compareLevels(gpu, onGpu.radiance, cube.radiance)) {
          expect(d.overOnePercent, `radiance level ${d.level}`).toBeLessThan(0.002);
          expect(d.worst, `radiance level ${d.level}`).toBeLessThan(0.3);
        }
        for (const d of await compareLevels(gpu, onGpu.specular, cube.specular)) {
          expect(d.overOnePercent, `specular level ${d.level}`).toBeLessThan(0.12);
          expect(d.worst, `specular level ${d.level}`).toBeLessThan(0.12);
        }
      } finally {
        onGpu.destroy();
      }
    });
  });

  it('the Fox lit by either: the same frame within one step of 255 per channel', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const image = neutralEnvironment();
      const frames: Frame[] = [];
      const environments: Environment[] = [await prefilterEnvironment(gpu, image, 'gpu neutral'), await prefilterEnvironmentOnCpu(gpu, image, 'cpu neutral')];
      const fox = await loadModel(new Uint8Array(readFileSync(assetPath('Fox'))), 'Fox');
      for (const environment of environments) {
        const scene = new OffscreenScene(gpu, 160, 120);
        try {
          scene.renderer.setEnvironment(environment);
          await scene.setModel(fox);
          frames.push(await scene.render());
        } finally {
          scene.destroy();
          environment.destroy();
        }
      }
      let worst = 0, lit = 0;
      for (let i = 0; i < frames[0].rgba.length; i++) {
        worst = Math.max(worst, Math.abs(frames[0].rgba[i] - frames[1].rgba[i]));
        if (i % 4 === 3 && frames[0].rgba[i] > 0) lit++;
      }
      expect(lit).toBeGreaterThan(1000);
      expect(worst).toBeLessThanOrEqual(1);
    });
  });

  it('makes no pipeline and sets the textures up as the GPU prefilter does', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const calls: string[] = [];
      const counting = new Proxy(gpu, {
        get(target, key) {
          const value = Reflect.get(target, key, target) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (String(key).includes('Pipeline') || key === 'createShaderModule') calls.push(String(key));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const environment = await prefilterEnvironmentOnCpu(counting, neutralEnvironment(), 'counted');
      try {
        expect(calls).toEqual([]);
        expect([environment.radiance.width, environment.radiance.depthOrArrayLayers, environment.radiance.mipLevelCount]).toEqual([128, 6, 8]);
        expect([environment.specular.width, environment.specular.mipLevelCount]).toEqual([32, 6]);
        expect(environment.irradianceCoefficients.length).toBe(36);
      } finally {
        environment.destroy();
      }
    });
  });
});

describe('prefilterCubeOnCpu', () => {
  it('yields between the faces of every level, so that no slice holds a page\'s thread for a whole level', async () => {
    let slices = 0;
    await prefilterCubeOnCpu(neutralEnvironment(), async () => { slices++; });
    // Six radiance faces, then before each specular level 1…5 and between its six faces.
    expect(slices).toBe(6 + 5 * 6);
  });
});
