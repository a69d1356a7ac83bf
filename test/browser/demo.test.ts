/**
 * The demo page in real Chromium with WebGPU on SwiftShader: it starts on the built-in
 * character with no console errors, draws non-blank frames that change while the clip
 * plays, loads every skinned shared asset through its file input and lists the clips,
 * and its controls reach the viewer. Screenshots go to test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { ARTIFACTS_DIR, decodeImageBytes } from '../support/png.ts';
import { sharedAssets } from '../support/assets.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** The main viewer's current frame, through its own capture(). */
async function frame(page: Page): Promise<{ width: number; height: number; data: Uint8Array | Uint8ClampedArray }> {
  const base64 = await page.evaluate(async () => {
    const viewer = document.getElementById('viewer') as HTMLElement & { capture(): Promise<Blob> };
    const bytes = new Uint8Array(await (await viewer.capture()).arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s);
  });
  return decodeImageBytes(new Uint8Array(Buffer.from(base64, 'base64')));
}

/** Pixels that differ from the top-left (background) pixel. */
function coverage(image: { data: Uint8Array | Uint8ClampedArray }): number {
  const d = image.data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) n++;
  }
  return n / (d.length / 4);
}

function changedFraction(a: { data: Uint8Array | Uint8ClampedArray }, b: { data: Uint8Array | Uint8ClampedArray }): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]) > 24) n++;
  }
  return n / (a.data.length / 4);
}

const whenLoaded = (page: Page) => page.waitForFunction(() => (document.getElementById('viewer') as HTMLElement & { loaded: boolean }).loaded, undefined, { timeout: 60_000 });

describe.skipIf(!!unavailable)('the demo page', () => {
  let session: BrowserSession;
  const pages: Page[] = [];
  /** A fresh page; every page is closed after its test, so SwiftShader never renders several at once. */
  const openPage = async () => {
    const opened = await session.newPage();
    pages.push(opened.page);
    return opened;
  };
  afterEach(async () => {
    for (const p of pages.splice(0)) await p.close();
  });
  beforeAll(async () => {
    session = await startBrowserSession();
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
  }, 90_000);
  afterAll(async () => { await session?.close(); });
  // Any WebGPU error in a page fails the test that caused it.
  afterEach(async () => { await session?.checkWebGpuErrors(); });

  it('starts on the built-in character with no console errors, and its frames move', async () => {
    const { page, consoleErrors } = await openPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
    await expect.poll(() => page.textContent('#model-info')).toMatch(/builtin:character: 1 skin\(s\), 20 joints/);
    const clock = () => page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { currentTime: number }).currentTime);
    const t0 = await clock();
    const first = await frame(page);
    expect(coverage(first)).toBeGreaterThan(0.02);
    // The clip is playing: wait until it is a quarter of a (1 s) walk cycle further on.
    await expect.poll(async () => Math.abs((await clock()) - t0), { timeout: 20_000 }).toBeGreaterThan(0.25);
    const later = await frame(page);
    expect(changedFraction(first, later)).toBeGreaterThan(0.002);
    // The clip list and stats panel are filled.
    expect(await page.$$eval('#clip option', (o) => o.map((x) => x.textContent))).toEqual(['Walk', 'Idle', 'Wave']);
    await expect.poll(() => page.textContent('#stat-joints'), { timeout: 10_000 }).toBe('20');
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo.png') });
    // The embedded viewers draw once they are scrolled into view.
    await page.locator('#embedded').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => [...document.querySelectorAll('#embedded skinned-mesh-viewer')].every((v) => (v as HTMLElement & { loaded: boolean }).loaded), undefined, { timeout: 60_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo-embedded.png'), fullPage: true });
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
  });

  it('controls reach the viewer: pause, scrub, clip, skinning, debug', async () => {
    const { page, consoleErrors } = await openPage();
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
    await page.click('#play');
    expect(await page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { paused: boolean }).paused)).toBe(true);
    await page.fill('#scrub', '0.5');
    await page.dispatchEvent('#scrub', 'input');
    const t = await page.evaluate(() => {
      const v = document.getElementById('viewer') as HTMLElement & { currentTime: number; duration: number };
      return v.currentTime / v.duration;
    });
    expect(t).toBeCloseTo(0.5, 2);
    await page.selectOption('#clip', '2');
    expect(await page.getAttribute('#viewer', 'animation')).toBe('2');
    await page.check('input[name=debug][value=skeleton]');
    await page.check('input[name=debug][value=wireframe]');
    await page.check('input[name=debug][value=bounds]');
    expect(await page.getAttribute('#viewer', 'debug')).toBe('skeleton wireframe bounds');
    await page.check('input[name=skinning][value=dual-quaternion]');
    expect(await page.getAttribute('#viewer', 'skinning')).toBe('dual-quaternion');
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo-debug.png') });
    expect(consoleErrors.filter((e) => !/skinning/.test(e))).toEqual([]);
  });

  for (const asset of sharedAssets()) {
    it(`opens ${asset.name} through the file input and lists its clips`, async () => {
      const model = await loadGltfFile(asset.path);
      if (!model.meshNodes.some((m) => m.skin >= 0)) return; // the demo is for skinned models; others are checked elsewhere
      const { page, consoleErrors } = await openPage();
      await page.goto(`${session.baseUrl}/`);
      await whenLoaded(page);
      await page.setInputFiles('#file', asset.path);
      await expect.poll(() => page.textContent('#model-info'), { timeout: 60_000 }).toMatch(new RegExp(`^${asset.path.split('/').pop()!.replace('.', '\\.')}:`));
      const names = model.animations.map((c, i) => c.name || `clip ${i}`); // the demo's labels for unnamed clips
      expect(await page.$$eval('#clip option', (o) => o.map((x) => x.textContent))).toEqual(names);
      await page.waitForTimeout(200);
      expect(coverage(await frame(page))).toBeGreaterThan(0.002);
      expect(consoleErrors).toEqual([]);
    });
  }

  it('reports a broken file in the page and keeps the previous model', async () => {
    const { page } = await openPage();
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
    await page.setInputFiles('#file', { name: 'broken.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('glTF not really') });
    await expect.poll(() => page.textContent('#error')).toMatch(/glb/);
    expect(coverage(await frame(page))).toBeGreaterThan(0.02);
  });
  it('animation lab: each feature changes the paused frame, and customise changes the silhouette', async () => {
    const { page, consoleErrors } = await openPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
    expect(await page.isDisabled('#lab-wave')).toBe(false);
    // Paused at a fixed time, so only the lab changes the image.
    await page.click('#play');
    await page.fill('#scrub', '0.3');
    await page.dispatchEvent('#scrub', 'input');
    const settled = async () => {
      await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
      return frame(page);
    };
    // A busy machine may still be drawing the frame of the last change: take the frame once
    // two captures in a row agree.
    const stable = async () => {
      let previous = await settled();
      for (let i = 0; i < 20; i++) {
        const next = await settled();
        if (changedFraction(previous, next) === 0) return next;
        previous = next;
      }
      return previous;
    };
    const plain = await stable();
    expect(coverage(plain)).toBeGreaterThan(0.02);
    const changes: Record<string, number> = {};
    for (const id of ['lab-wave', 'lab-look', 'lab-reach']) {
      await page.check(`#${id}`);
      changes[id] = changedFraction(plain, await stable());
      await page.uncheck(`#${id}`);
      // Off again is exactly the plain frame: nothing accumulates in the pose.
      expect(changedFraction(plain, await stable()), `${id} off`).toBe(0);
    }
    for (const [id, changed] of Object.entries(changes)) expect(changed, id).toBeGreaterThan(0.001);
    // The wave's weight slider scales the layer: 0 is no change.
    await page.check('#lab-wave');
    await page.fill('#lab-wave-weight', '0');
    await page.dispatchEvent('#lab-wave-weight', 'input');
    expect(changedFraction(plain, await stable())).toBe(0);
    await page.fill('#lab-wave-weight', '1');
    await page.dispatchEvent('#lab-wave-weight', 'input');
    await page.uncheck('#lab-wave');

    // Customise: a bigger head and longer arms load an edited model, paused at the same time.
    const time = await page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { currentTime: number }).currentTime);
    const before = coverage(plain);
    await page.evaluate(() => {
      (window as unknown as { labLoads: number }).labLoads = 0;
      document.getElementById('viewer')!.addEventListener('load', () => { (window as unknown as { labLoads: number }).labLoads++; });
    });
    await page.fill('#lab-head-scale', '1.4');
    await page.dispatchEvent('#lab-head-scale', 'input');
    await page.fill('#lab-arm-length', '1.3');
    await page.dispatchEvent('#lab-arm-length', 'input');
    await page.waitForFunction(() => (window as unknown as { labLoads: number }).labLoads > 0, undefined, { timeout: 30_000 });
    await whenLoaded(page);
    const state = await page.evaluate(() => {
      const v = document.getElementById('viewer') as HTMLElement & { currentTime: number; paused: boolean; animation: string | null };
      return { time: v.currentTime, paused: v.paused };
    });
    expect(state.paused).toBe(true);
    expect(state.time).toBeCloseTo(time, 5);
    const edited = await settled();
    expect(changedFraction(plain, edited)).toBeGreaterThan(0.005);
    expect(coverage(edited)).not.toBeCloseTo(before, 3);
    // Every feature at once, for the screenshot.
    for (const id of ['lab-wave', 'lab-look', 'lab-reach']) await page.check(`#${id}`);
    await settled();
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo-lab.png') });
    expect(consoleErrors).toEqual([]);
  });

  it('crowd slider: N instances drawn in one draw per primitive, the frame changes; root motion moves the character between frames', async () => {
    const { page, consoleErrors } = await openPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${session.baseUrl}/`);
    await whenLoaded(page);
    type Viewer = HTMLElement & { stats: { instances: number; drawCalls: number; joints: number } | undefined; instances: number };
    const stats = () => page.evaluate(() => {
      const s = (document.getElementById('viewer') as Viewer).stats!;
      return { instances: s.instances, drawCalls: s.drawCalls, joints: s.joints };
    });
    // Set like a user drag would, without scrolling the panel (and the viewer out of view: it stops drawing).
    const slide = (n: number) => page.evaluate((v) => {
      const input = document.getElementById('instances') as HTMLInputElement;
      input.value = String(v);
      input.dispatchEvent(new Event('input'));
    }, n);
    const one = await frame(page);
    await slide(25);
    expect(await page.textContent('#instances-value')).toBe('25');
    // The built-in character's 4 primitives, drawn lit and into the shadow map, plus the
    // ground disc: 9 draws whatever the number of instances.
    const draws = 4 * 2 + 1;
    await expect.poll(stats, { timeout: 20_000 }).toEqual({ instances: 25, drawCalls: draws, joints: 25 * 20 });
    await expect.poll(() => page.textContent('#stat-instances'), { timeout: 20_000 }).toBe('25');
    // The framed crowd is all in view: nothing culled.
    expect(await page.textContent('#stat-culled')).toBe('0');
    const crowd = await frame(page);
    expect(changedFraction(one, crowd)).toBeGreaterThan(0.02);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo-crowd.png') });
    await slide(1);
    await expect.poll(stats, { timeout: 20_000 }).toEqual({ instances: 1, drawCalls: draws, joints: 20 });

    // Where the character is: the centroid of the pixels that are not background.
    const centroid = (image: { width: number; data: Uint8Array | Uint8ClampedArray }): [number, number] => {
      const d = image.data;
      let n = 0, sx = 0, sy = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) {
          const p = i / 4;
          n++; sx += p % image.width; sy += Math.floor(p / image.width);
        }
      }
      return [sx / n, sy / n];
    };
    const shift = (a: [number, number], b: [number, number]) => Math.hypot(b[0] - a[0], b[1] - a[1]);
    // Walking in place, the silhouette's centre stays put (only the limbs swing).
    const inPlace = centroid(await frame(page));
    await page.waitForTimeout(400);
    const stillInPlace = shift(inPlace, centroid(await frame(page)));
    await page.evaluate(() => document.getElementById('root-motion')!.click());
    expect(await page.getAttribute('#viewer', 'root-motion')).toBe('');
    const start = centroid(await frame(page));
    await expect.poll(async () => shift(start, centroid(await frame(page))), { timeout: 20_000 }).toBeGreaterThan(Math.max(20, 3 * stillInPlace));
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'demo-root-motion.png') });
    expect(consoleErrors).toEqual([]);
  }, 180_000); // Loads, slides to 25 and back, then watches root motion: slow on SwiftShader under load.
});
