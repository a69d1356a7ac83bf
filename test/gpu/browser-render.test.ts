/**
 * The renderer in headless Chromium (WebGPU on SwiftShader): the browser-only code paths
 * (navigator.gpu, canvas configuration and sizing, createImageBitmap decoding) and a
 * comparison with the same frame rendered in Node with the JS image decoders.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { KTX2_WORKER_MEASURE } from '../../src/gpu/textures/ktx2-offthread.ts';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { assetPath } from '../support/assets.ts';
import { testPageUrl } from '../support/built-pages.ts';
import { compressGlb } from '../support/compressed.ts';
import { encodeKtx2, gradientImage, ktx2Quad, pngQuad } from '../support/ktx2.ts';
import { decodeImageBytes, encodePng, writeArtifactPng } from '../support/png.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from './gpu-test.ts';
import type { RendererCheckResult } from './browser/renderer-page.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);
const device = await testDevice();
/** The page's canvas is 256 CSS pixels at devicePixelRatio 1; the offscreen frames match it. */
const SIZE = 256;
/** The page background (#282b30) the premultiplied canvas is composited over. */
const BACKDROP = [0x28, 0x2b, 0x30];
const YAW = 0.6, PITCH = 0.15, TIME = 0.5;

describe.skipIf(!!unavailable || !device)('Renderer in headless Chromium', () => {
  const session = useBrowserSession();
  let page: Page;
  let pageErrors: string[];
  // One page for every check, as one page would render several models: its device (and so
  // the renderer's pipelines, compiled on SwiftShader) is made once, not once per frame compared.
  beforeAll(async () => {
    ({ page, consoleErrors: pageErrors } = await session.newPage());
    await page.goto(testPageUrl(session.baseUrl, 'test/gpu/browser/renderer.html'));
    await page.waitForFunction(() => typeof window.rendererCheck === 'function' && typeof window.fitImageCheck === 'function');
  }, 60_000);
  /** The console errors since the last call: each test judges its own. */
  const consoleErrorsSinceLast = (): string[] => pageErrors.splice(0);

  it('CesiumMan on a canvas: device, canvas and createImageBitmap paths; matches the Node render', async () => {
    const bytes = new Uint8Array(readFileSync(assetPath('CesiumMan')));
    const result: RendererCheckResult = await page.evaluate(
      ([b64, t, yaw, pitch, size]) => window.rendererCheck(b64, 0, t, yaw, pitch, size),
      [Buffer.from(bytes).toString('base64'), TIME, YAW, PITCH, SIZE] as const,
    );
    const shot = decodeImageBytes(new Uint8Array(await page.screenshot({ clip: { x: 0, y: 0, width: SIZE, height: SIZE } })));
    writeArtifactPng('browser-CesiumMan-canvas', shot.width, shot.height, new Uint8Array(shot.data));
    expect(result.errors).toEqual([]);
    expect(consoleErrorsSinceLast()).toEqual([]);
    // The canvas's own format: the shader encodes sRGB (see configureCanvas).
    expect(result.viewFormat).toMatch(/^(bgra|rgba)8unorm$/);
    // Sized by the ResizeObserver helper.
    expect(result.canvasSize).toEqual([SIZE, SIZE]);
    const browser = new Uint8Array(Buffer.from(result.pixels, 'base64'));
    writeArtifactPng('browser-CesiumMan-offscreen', SIZE, SIZE, browser);

    // What the page shows is the frame, composited as premultiplied alpha over the page.
    let shotDiff = 0;
    for (let i = 0; i < browser.length; i += 4) {
      const a = browser[i + 3] / 255;
      for (let c = 0; c < 3; c++) shotDiff += Math.abs(shot.data[i + c] - (browser[i + c] + BACKDROP[c] * (1 - a)));
    }
    expect(shotDiff / (SIZE * SIZE * 3), 'mean difference, canvas on the page vs offscreen frame').toBeLessThan(2);

    // The same frame in Node (jpeg-js instead of the browser's JPEG decoder).
    const scene = new OffscreenScene(device!, SIZE, SIZE, result.viewFormat as GPUTextureFormat);
    try {
      const node = await expectNoGpuErrors(device!, async () => {
        scene.camera.yaw = YAW;
        scene.camera.pitch = PITCH;
        await scene.setModel(await loadModel(bytes, 'CesiumMan'));
        return scene.pose(0, TIME).render();
      });
      expect(coverage(node)).toBeGreaterThan(0.05);
      let sum = 0, covered = 0;
      for (let i = 0; i < browser.length; i += 4) {
        if (node.rgba[i + 3] === 0 && browser[i + 3] === 0) continue;
        covered++;
        for (let c = 0; c < 4; c++) sum += Math.abs(node.rgba[i + c] - browser[i + c]);
      }
      // Same geometry and shading; only the two JPEG decoders may round differently.
      expect(sum / (covered * 4), 'mean channel difference over drawn pixels').toBeLessThan(2);
    } finally {
      scene.destroy();
    }
  }, 60_000);

  it('a meshopt + quantized CesiumMan: the meshopt decoder runs in the page, unorm/snorm vertices draw like the original', async () => {
    const original = new Uint8Array(readFileSync(assetPath('CesiumMan')));
    const variant = await compressGlb(original, 'meshopt');
    const frames: Uint8Array[] = [];
    for (const bytes of [original, variant]) {
      const result: RendererCheckResult = await page.evaluate(
        ([b64, t, yaw, pitch, size]) => window.rendererCheck(b64, 0, t, yaw, pitch, size),
        [Buffer.from(bytes).toString('base64'), TIME, YAW, PITCH, SIZE] as const,
      );
      expect(result.errors).toEqual([]);
      expect(consoleErrorsSinceLast()).toEqual([]);
      frames.push(new Uint8Array(Buffer.from(result.pixels, 'base64')));
    }
    let onlyOne = 0, both = 0, sum = 0, covered = 0;
    for (let i = 0; i < frames[0].length; i += 4) {
      const a = frames[0][i + 3] === 255, b = frames[1][i + 3] === 255;
      if (a) covered++;
      if (a !== b) onlyOne++;
      else if (a) {
        both++;
        for (let c = 0; c < 3; c++) sum += Math.abs(frames[0][i + c] - frames[1][i + c]);
      }
    }
    expect(covered).toBeGreaterThan(SIZE * SIZE * 0.05);
    // As in test/gpu/model/quantized-vertex.test.ts: edge pixels may flip, shading moves under a level.
    expect(onlyOne, `pixels covered in one frame only (of ${covered})`).toBeLessThanOrEqual(Math.max(8, covered * 0.005));
    expect(sum / (both * 3), 'mean RGB difference where both are covered').toBeLessThan(1.5);
  }, 120_000);

  it('a KTX2 (UASTC) base colour: transcoded in the library\'s worker and drawn like the PNG original', async () => {
    const image = gradientImage(32, 32);
    const png = encodePng(image.width, image.height, image.data);
    const frames: Uint8Array[] = [];
    for (const bytes of [pngQuad(png), ktx2Quad(await encodeKtx2(image, { uastc: true }), undefined)]) {
      // The worker's measures of this model only.
      await page.evaluate((name) => performance.clearMeasures(name), KTX2_WORKER_MEASURE);
      const result: RendererCheckResult = await page.evaluate(
        ([b64, size]) => window.rendererCheck(b64, -1, 0, 0, 0, size),
        [Buffer.from(bytes).toString('base64'), SIZE] as const,
      );
      expect(result.errors).toEqual([]);
      expect(consoleErrorsSinceLast()).toEqual([]);
      frames.push(new Uint8Array(Buffer.from(result.pixels, 'base64')));
      // The KTX2 image was transcoded in the library's worker (ktx2-offthread.ts), the PNG decoded as usual.
      const measures = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMeasure).detail as string), KTX2_WORKER_MEASURE);
      expect(measures).toEqual(frames.length === 1 ? [] : ['images[0]']);
    }
    let covered = 0, off = 0;
    for (let i = 0; i < frames[0].length; i += 4) {
      if (frames[0][i + 3] === 0) continue;
      covered++;
      for (let c = 0; c < 3; c++) if (Math.abs(frames[0][i + c] - frames[1][i + c]) > 6) { off++; break; }
    }
    expect(covered).toBeGreaterThan(SIZE * SIZE * 0.1);
    expect(off / covered, 'pixels off by more than 6 levels').toBeLessThan(0.03);
  }, 120_000);

  it('an image beyond maxTextureDimension2D is resized by createImageBitmap to fit, aspect kept, and uploads cleanly', async () => {
    const result = await page.evaluate(() => window.fitImageCheck(60));
    expect(result.size).toEqual([60, 20, 60, 20]);
    expect(result.same).toBe(false);
    expect(result.left).toEqual([255, 0, 0, 255]);
    expect(result.right).toEqual([0, 0, 255, 255]);
    expect(consoleErrorsSinceLast()).toEqual([]);
  }, 60_000);
});
