/**
 * Compressed files dropped on the demo page, as a user would drop them, in real Chromium with
 * WebGPU on SwiftShader: a Draco Fox, a meshopt + quantized CesiumMan (gltfpack's defaults)
 * and a CesiumMan with a KTX2 texture (variants made at test time: test/support/compressed.ts,
 * ktx2.ts). Each replaces the shown model, lists its clips, draws, and plays: the clock
 * advances and the frame changes. Decoding ran off the page's main thread where the library
 * uses a worker (Draco, KTX2). Screenshots go to test-artifacts/demo-drop-*.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DRACO_WORKER_MEASURE } from '../../src/gltf/extensions/draco-offthread.ts';
import { KTX2_WORKER_MEASURE } from '../../src/gpu/textures/ktx2-offthread.ts';
import { assetPath } from '../support/assets.ts';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { compressFile } from '../support/compressed.ts';
import { ktx2Glb } from '../support/ktx2.ts';
import { ARTIFACTS_DIR, coverage, decodeImageBytes } from '../support/png.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

type Image = { data: Uint8Array | Uint8ClampedArray };

/** The main viewer's current frame, through its own capture(). */
async function frame(page: Page): Promise<Image> {
  const base64 = await page.evaluate(async () => {
    const viewer = document.getElementById('viewer') as HTMLElement & { capture(): Promise<Blob> };
    const bytes = new Uint8Array(await (await viewer.capture()).arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  });
  return decodeImageBytes(new Uint8Array(Buffer.from(base64, 'base64')));
}

function changedFraction(a: Image, b: Image): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]) > 24) n++;
  }
  return n / (a.data.length / 4);
}

/** Drops `bytes` as a file named `name` on the demo's stage, as a drag from the desktop does. */
async function dropFile(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  const dataTransfer = await page.evaluateHandle(([b64, fileName]) => {
    const bin = atob(b64);
    const data = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) data[i] = bin.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([data], fileName, { type: 'model/gltf-binary' }));
    return transfer;
  }, [Buffer.from(bytes).toString('base64'), name] as const);
  await page.dispatchEvent('#stage', 'dragover', { dataTransfer });
  await page.dispatchEvent('#stage', 'drop', { dataTransfer });
}

const whenLoaded = (page: Page) => page.waitForFunction(() => (document.getElementById('viewer') as HTMLElement & { loaded: boolean }).loaded, undefined, { timeout: 60_000 });

interface DropCase {
  readonly file: string;
  readonly make: () => Promise<Uint8Array>;
  readonly clips: string[];
  /** The worker measure the page must have recorded, and the paths it names. */
  readonly worker?: { readonly measure: string; readonly details: string[] };
}

const CASES: DropCase[] = [
  {
    file: 'fox-draco.glb', make: () => compressFile(assetPath('Fox'), 'draco'), clips: ['Survey', 'Walk', 'Run'],
    worker: { measure: DRACO_WORKER_MEASURE, details: ['meshes[0].primitives[0].extensions.KHR_draco_mesh_compression'] },
  },
  { file: 'cesium-man-meshopt.glb', make: () => compressFile(assetPath('CesiumMan'), 'meshopt'), clips: ['clip 0'] },
  {
    file: 'cesium-man-ktx2.glb', make: () => ktx2Glb(new Uint8Array(readFileSync(assetPath('CesiumMan')))), clips: ['clip 0'],
    worker: { measure: KTX2_WORKER_MEASURE, details: ['images[0]'] },
  },
];

describe.skipIf(!!unavailable)('compressed files dropped on the demo page', () => {
  let session: BrowserSession;
  /** One page for the three drops, one after another as a visitor would: opening the demo costs far more than a drop. */
  let page: Page;
  /** Console errors since the last test ended. */
  let testErrors: string[] = [];
  beforeAll(async () => {
    session = await startBrowserSession();
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    ({ page } = await session.newPage());
    // A small window (the demo's two columns, the whole stage in view): the page draws all the
    // time a clip plays, and on SwiftShader a frame costs about its pixels. The checks read
    // fractions of the frame.
    await page.setViewportSize({ width: 820, height: 480 });
    page.on('console', (msg) => { if (msg.type() === 'error') testErrors.push(msg.text()); });
    page.on('pageerror', (err) => testErrors.push(err.message));
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
  }, 90_000);
  afterAll(async () => { await session?.close(); });
  afterEach(() => { testErrors = []; });
  // Any WebGPU error in a page fails the test that caused it.
  afterEach(async () => { await session?.checkWebGpuErrors(); });

  for (const c of CASES) {
    it(`${c.file}: dropped, it loads, lists its clips, draws and plays`, async () => {
      const consoleErrors = testErrors;
      const bytes = await c.make();
      await dropFile(page, c.file, bytes);
      // The page's error line, when there is one, is what the poll shows.
      const status = () => page.evaluate(() => document.getElementById('error')!.textContent || document.getElementById('model-info')!.textContent);
      await expect.poll(status, { timeout: 60_000 }).toMatch(new RegExp(`^${c.file.replace('.', '\\.')}: 1 skin\\(s\\)`));
      expect(await page.$$eval('#clip option', (o) => o.map((x) => x.textContent))).toEqual(c.clips);
      expect(await page.textContent('#error')).toBeFalsy();
      if (c.worker) {
        const details = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => (e as PerformanceMeasure).detail as string), c.worker.measure);
        expect(details).toEqual(c.worker.details);
      }
      // It plays: the clock moves on and so does the character.
      const clock = () => page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { currentTime: number }).currentTime);
      const t0 = await clock();
      const first = await frame(page);
      expect(coverage(first)).toBeGreaterThan(0.005);
      await expect.poll(async () => Math.abs((await clock()) - t0), { timeout: 20_000 }).toBeGreaterThan(0.2);
      // A twentieth of the character's pixels move (SwiftShader's frame rate varies with the machine's load).
      const moving = coverage(first) * 0.05;
      await expect.poll(async () => changedFraction(first, await frame(page)), { timeout: 30_000 }).toBeGreaterThan(moving);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `demo-drop-${c.file.replace('.glb', '')}.png`) });
      expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
    }, 120_000);
  }
});
