/**
 * Every shared asset's variants that a page decodes in the library's workers — Draco
 * (test/support/compressed.ts), and KTX2 for those with textures (test/support/ktx2.ts) —
 * drawn in headless Chromium (WebGPU on SwiftShader) on one page, one device and one
 * Renderer, each against its uncompressed original drawn there with the same camera and pose,
 * with no WebGPU error. PNGs of the worst frames go to test-artifacts/compressed-*.png.
 * The meshopt + quantization and quantization-alone variants, which the same Renderer draws
 * from the same decoded data without a worker, are checked against their originals in Dawn
 * (test/gpu/model/quantized-vertex.test.ts: the same colour limits, a stricter coverage
 * count); their path through a page, the demo's drop, in test/browser/demo.test.ts.
 *
 * Tolerances, from the encoders' quantization steps: positions keep 14 bits (glTF-Transform's
 * quantize and meshopt, Draco's default), under 1/16000 of the model's size, so at 160 pixels
 * a vertex moves by far less than a pixel and only MSAA edge samples flip (a pixel's alpha
 * changes by one sample, 64 levels); normals keep 8–10 bits (under 0.5°) and texture
 * coordinates 12 bits (a quarter texel of a 1024² texture), which move shading by a level or
 * two and texel edges by a fraction of a texel. KTX2 (UASTC, then whichever format the device
 * transcodes to) is a lossy block code: colours move by a few levels, more at sharp edges.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetPath, sharedAssets } from '../support/assets.ts';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { testPageUrl } from '../support/built-pages.ts';
import { compressFile, type CompressedVariant } from '../support/compressed.ts';
import { fileHasImages, ktx2Glb } from '../support/ktx2.ts';
import { writeArtifactPng } from '../support/png.ts';
import type { CompressedRenderResult } from './browser/compressed-page.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** The geometry variant a page decodes in a worker (meshopt and quantized: quantized-vertex.test.ts). */
const WORKER_VARIANTS: readonly CompressedVariant[] = ['draco'];
const SIZE = 160;
/** Clip phase drawn: mid-motion, so skinning and morphing of the decoded data are in the frame. */
const PHASE = 0.37;
/** Per variant kind: mean |ΔRGB| over pixels both frames cover fully, and the share of those off by more than 24 levels. */
const COLOUR_TOLERANCE = { geometry: { mean: 1.5, far: 0.02 }, ktx2: { mean: 4, far: 0.03 } } as const;

interface Frame { readonly rgba: Uint8Array; readonly warnings: string[] }

interface Comparison {
  /** Pixels drawn in the original. */
  readonly covered: number;
  /** Pixels whose alpha differs by more than one MSAA sample (64 levels). */
  readonly coverageOff: number;
  /** Pixels fully covered in both frames. */
  readonly both: number;
  readonly meanRgb: number;
  /** Of `both`, the share with a channel off by more than 24 levels. */
  readonly far: number;
}

function compare(a: Uint8Array, b: Uint8Array): Comparison {
  let covered = 0, coverageOff = 0, both = 0, sum = 0, farCount = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i + 3] > 0) covered++;
    if (Math.abs(a[i + 3] - b[i + 3]) > 64) coverageOff++;
    if (a[i + 3] !== 255 || b[i + 3] !== 255) continue;
    both++;
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a[i + c] - b[i + c]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > 24) farCount++;
  }
  return { covered, coverageOff, both, meanRgb: sum / Math.max(1, both * 3), far: farCount / Math.max(1, both) };
}

describe.skipIf(!!unavailable)('compressed variants of every shared asset in headless Chromium', () => {
  const session = useBrowserSession();
  let render: (bytes: Uint8Array, frameAs: string) => Promise<Frame>;
  let closePage: () => Promise<void>;
  beforeAll(async () => {
    const { page, consoleErrors } = await session.newPage();
    await page.goto(testPageUrl(session.baseUrl, 'test/gpu/browser/compressed.html'));
    await page.waitForFunction(() => typeof window.renderCompressed === 'function');
    render = async (bytes, frameAs) => {
      const result: CompressedRenderResult = await page.evaluate(
        ([b64, name, phase, size]) => window.renderCompressed(b64, name, phase, size),
        [Buffer.from(bytes).toString('base64'), frameAs, PHASE, SIZE] as const,
      );
      expect(result.errors, `${frameAs}: WebGPU errors`).toEqual([]);
      expect(consoleErrors, `${frameAs}: console errors`).toEqual([]);
      return { rgba: new Uint8Array(Buffer.from(result.pixels, 'base64')), warnings: result.warnings };
    };
    closePage = () => page.close();
  }, 60_000);
  afterAll(async () => {
    await closePage?.();
  });

  for (const asset of sharedAssets()) {
    it(`${asset.name}: ${[...WORKER_VARIANTS, ...(fileHasImages(asset.path) ? ['ktx2'] : [])].join(', ')} draw like the original`, async () => {
      const original = await render(new Uint8Array(readFileSync(assetPath(asset.name))), asset.name);
      const variants: [string, Uint8Array][] = [];
      for (const v of WORKER_VARIANTS) variants.push([v, await compressFile(asset.path, v)]);
      if (fileHasImages(asset.path)) variants.push(['ktx2', await ktx2Glb(new Uint8Array(readFileSync(asset.path)))]);
      const report: string[] = [];
      for (const [name, bytes] of variants) {
        const frame = await render(bytes, asset.name);
        const c = compare(original.rgba, frame.rgba);
        report.push(`${name}: ${JSON.stringify({ ...c, meanRgb: +c.meanRgb.toFixed(3), far: +c.far.toFixed(4) })}`);
        const what = `${asset.name} ${name}: ${JSON.stringify(c)}`;
        if (c.coverageOff > 0 || c.meanRgb > 0.5) writeArtifactPng(`compressed-${asset.name}-${name}`, SIZE, SIZE, frame.rgba);
        expect(c.covered, what).toBeGreaterThan(SIZE * SIZE * 0.01);
        expect(c.coverageOff, what).toBeLessThanOrEqual(Math.max(4, c.covered * 0.01));
        const tolerance = name === 'ktx2' ? COLOUR_TOLERANCE.ktx2 : COLOUR_TOLERANCE.geometry;
        expect(c.meanRgb, what).toBeLessThanOrEqual(tolerance.mean);
        expect(c.far, what).toBeLessThanOrEqual(tolerance.far);
      }
      writeArtifactPng(`compressed-${asset.name}-original`, SIZE, SIZE, original.rgba);
      console.log(`${asset.name}:\n  ${report.join('\n  ')}`);
    }, 180_000);
  }
});
