/**
 * <skinned-mesh-viewer>'s model-viewer names, one by one, in real Chromium (WebGPU on
 * SwiftShader): loading and reveal, the camera, the animation API, the model and capture,
 * and their events. Models are served by Playwright routes (element-support.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { assetBody, decodeBase64Image, foregroundFraction, serveAssets, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
/** A 4×4 red PNG-like poster as an SVG data URL (no file, no network). */
const POSTER = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>')}`;

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> model-viewer names in headless Chromium', () => {
  let session: BrowserSession;
  let page: Page;
  let requested: string[];
  let warnings: string[];
  let consoleErrors: string[];
  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page, consoleErrors } = await session.newPage());
    warnings = [];
    page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
    requested = await serveAssets(page);
    await page.goto(`${session.baseUrl}/test/browser/pages/element-basic.html`);
    await page.waitForFunction(() => window.helpers !== undefined && customElements.get('skinned-mesh-viewer') !== undefined);
  }, 60_000);
  afterAll(async () => { await session?.close(); });
  afterEach(async () => { await session?.checkWebGpuErrors(); });
  beforeEach(async () => {
    await page.evaluate(() => {
      document.getElementById('stage')!.replaceChildren();
      window.scrollTo(0, 0);
    });
  });

  async function addViewer(id: string, attributes: Record<string, string>, style = ''): Promise<void> {
    await page.evaluate(([i, attrs, css]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = i;
      if (css) el.style.cssText = css;
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      window.helpers.watch(el);
      document.getElementById('stage')!.append(el);
    }, [id, attributes, style] as const);
  }
  const whenLoaded = (id: string) => page.evaluate(([i, t]) => window.helpers.whenLoaded(window.helpers.viewer(i), t), [id, LOAD_TIMEOUT] as const);
  const waitForFrames = (id: string, n = 1) => page.evaluate(([i, c]) => window.helpers.waitForFrames(window.helpers.viewer(i), c), [id, n] as const);
  /** For viewers that are not animating: the frame drawn after loading. */
  const firstFrame = (id: string) => page.evaluate((i) => window.helpers.waitForTotalFrames(window.helpers.viewer(i), 1), id);
  const frames = (id: string) => page.evaluate((i) => window.instrument.frames(window.helpers.canvasOf(window.helpers.viewer(i))), id);
  const events = (id: string, type?: string) => page.evaluate(([i, t]) => window.helpers.events(window.helpers.viewer(i)).filter((e) => !t || e.type === t), [id, type] as const);
  const sleep = (ms: number) => page.evaluate((m) => window.helpers.sleep(m), ms);
  async function capture(id: string): Promise<Rgba8Image> {
    const { base64 } = await page.evaluate((i) => window.helpers.captureBase64(window.helpers.viewer(i)), id);
    return decodeBase64Image(base64);
  }
  /** The poster's state as the user sees it. */
  const poster = (id: string) => page.evaluate((i) => {
    const el = window.helpers.viewer(i);
    const root = el.shadowRoot!;
    const container = root.querySelector<HTMLElement>('.poster-container')!;
    const canvas = root.querySelector('canvas')!;
    return {
      shown: !container.hidden && container.getBoundingClientRect().height > 0,
      image: getComputedStyle(root.querySelector('[part="default-poster"]')!).backgroundImage,
      canvasOpacity: getComputedStyle(canvas).opacity,
      visible: el.modelIsVisible,
    };
  }, id);

  describe('loading and reveal', () => {
    it('poster shows until the first frame (reveal="auto"), then comes down with poster-dismissed and model-visibility', async () => {
      await addViewer('auto', { src: '/assets/slow/RiggedSimple.glb', poster: POSTER, loading: 'eager' });
      const before = await poster('auto');
      expect(before.shown).toBe(true);
      expect(before.image).toContain('data:image/svg+xml');
      expect(before.canvasOpacity).toBe('0');
      expect(before.visible).toBe(false);
      await whenLoaded('auto');
      await expect.poll(async () => (await poster('auto')).shown).toBe(false);
      const after = await poster('auto');
      expect(after.canvasOpacity).toBe('1');
      expect(after.visible).toBe(true);
      expect(await frames('auto')).toBeGreaterThan(0);
      expect(await events('auto', 'poster-dismissed')).toHaveLength(1);
      expect(await events('auto', 'model-visibility')).toEqual([{ type: 'model-visibility', detail: { visible: true } }]);
      // The property reflects the attribute; clearing it leaves no image.
      await page.evaluate(() => { window.helpers.viewer('auto').poster = null; });
      expect((await poster('auto')).image).toBe('none');
    });

    it('reveal="manual" keeps the poster over drawn frames until dismissPoster(); showPoster() puts it back', async () => {
      await addViewer('manual', { builtin: 'character', poster: POSTER, reveal: 'manual', loading: 'eager' });
      await whenLoaded('manual');
      await firstFrame('manual');
      await sleep(100);
      expect(await poster('manual')).toMatchObject({ shown: true, canvasOpacity: '0', visible: false });
      expect(await events('manual', 'poster-dismissed')).toEqual([]);
      await page.evaluate(() => window.helpers.viewer('manual').dismissPoster());
      expect(await poster('manual')).toMatchObject({ shown: false, canvasOpacity: '1', visible: true });
      expect(await events('manual', 'poster-dismissed')).toHaveLength(1);
      await page.evaluate(() => window.helpers.viewer('manual').showPoster());
      expect(await poster('manual')).toMatchObject({ shown: true, visible: false });
      expect((await events('manual', 'model-visibility')).map((e) => e.detail.visible)).toEqual([true, false]);
      await page.evaluate(() => window.helpers.viewer('manual').dismissPoster());
      expect((await poster('manual')).shown).toBe(false);
      expect(await events('manual', 'poster-dismissed')).toHaveLength(2);
    });

    it('loading="lazy" fetches only near the viewport; "eager" at once; "auto" with reveal="manual" waits for dismissPoster()', async () => {
      await page.evaluate(() => { document.getElementById('stage')!.style.paddingTop = '3000px'; });
      try {
        await addViewer('lazy', { src: '/assets/Fox.glb', loading: 'lazy' });
        await addViewer('eager', { src: '/assets/CesiumMan.glb', loading: 'eager' });
        await whenLoaded('eager');
        await sleep(300);
        expect(requested).not.toContain('Fox.glb');
        expect(await page.evaluate(() => window.helpers.viewer('lazy').loaded)).toBe(false);
        // Half a viewport (600 px) ahead counts as near: scrolled to 250 px above it, it loads.
        await page.evaluate(() => window.scrollTo(0, 3000 - 600 - 250));
        await whenLoaded('lazy');
        expect(requested).toContain('Fox.glb');
      } finally {
        await page.evaluate(() => { document.getElementById('stage')!.style.paddingTop = ''; });
      }
      await addViewer('waits', { src: '/assets/RiggedFigure.glb', reveal: 'manual' });
      await sleep(400);
      expect(requested).not.toContain('RiggedFigure.glb');
      await page.evaluate(() => window.helpers.viewer('waits').dismissPoster());
      await whenLoaded('waits');
      await expect.poll(async () => (await poster('waits')).shown).toBe(false);
      // Unknown values warn and act as auto.
      await page.evaluate(() => { window.helpers.viewer('waits').loading = 'soon'; });
      expect(warnings.some((w) => w.includes('loading="soon"'))).toBe(true);
    });

    it('an eager viewer off screen draws its first frame anyway, so it is never an empty box when scrolled to; it animates only on screen', async () => {
      await addViewer('below', { builtin: 'character', autoplay: '', loop: '', loading: 'eager' }, 'position: absolute; top: 4000px');
      await whenLoaded('below');
      await firstFrame('below');
      const drawn = await frames('below');
      await sleep(300);
      // Playing but off screen: that one frame only.
      expect(await frames('below')).toBe(drawn);
      expect(await page.evaluate(() => window.helpers.viewer('below').modelIsVisible)).toBe(false);
      expect((await poster('below')).shown).toBe(false);
      // What the canvas holds is the model (the first frame was drawn into it, not an empty texture).
      const grabbed = await page.evaluate(() => window.helpers.grabBase64(window.helpers.viewer('below')));
      const image = { width: grabbed.width, height: grabbed.height, data: new Uint8Array(Buffer.from(grabbed.base64, 'base64')) };
      expect(foregroundFraction(image)).toBeGreaterThan(0.03);
      expect(foregroundFraction(await capture('below'))).toBeGreaterThan(0.03);
      await page.evaluate(() => window.helpers.viewer('below').scrollIntoView());
      await waitForFrames('below', 5);
      expect((await events('below', 'model-visibility')).at(-1)!.detail).toEqual({ visible: true });
    });

    it('with-credentials sends cookies with a cross-origin model fetch; without it, none', async () => {
      const origin = new URL(session.baseUrl).origin;
      await page.context().addCookies([{ name: 'session', value: 'h3', domain: 'models.example', path: '/', secure: true, sameSite: 'None' }]);
      const cookies: (string | undefined)[] = [];
      await page.route('https://models.example/**', async (route) => {
        cookies.push(route.request().headers().cookie);
        const asset = assetBody('RiggedSimple.glb')!;
        await route.fulfill({
          status: 200,
          headers: { 'content-type': asset.type, 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' },
          body: Buffer.from(asset.body),
        });
      });
      await addViewer('creds', { src: 'https://models.example/a.glb', 'with-credentials': '', loading: 'eager' });
      await whenLoaded('creds');
      await addViewer('nocreds', { src: 'https://models.example/b.glb', loading: 'eager' });
      await whenLoaded('nocreds');
      expect(cookies).toEqual(['session=h3', undefined]);
      expect(await page.evaluate(() => window.helpers.viewer('creds').withCredentials)).toBe(true);
      expect(consoleErrors).toEqual([]);
    });
  });
});
