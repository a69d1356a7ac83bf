/**
 * <skinned-mesh-viewer>'s model-viewer names, one by one, in real Chromium (WebGPU on
 * SwiftShader): loading and reveal, the camera, the animation API, the model and capture,
 * and their events. Models are served by Playwright routes (element-support.ts).
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { assetBody } from '../support/served-assets.ts';
import { changedFraction, decodeBase64Image, foregroundFraction, openElementPage, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
/** A 4×4 red PNG-like poster as an SVG data URL (no file, no network). */
const POSTER = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>')}`;

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> model-viewer names in headless Chromium', () => {
  const session = useBrowserSession();
  let page: Page;
  let requested: string[];
  let warnings: string[];
  let consoleErrors: string[];
  beforeAll(async () => {
    ({ page, consoleErrors, warnings, requested } = await openElementPage(session));
  }, 60_000);
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
  /** Two frames of the page: what a frame's observers and callbacks (IntersectionObserver, the element's loop) do has run. */
  const pageFrames = () => page.evaluate(() => window.helpers.nextFrames(2));
  /**
   * Resolves once a request the page makes now (for an asset no check here looks for) has been
   * answered by the asset route: any request the page had already started got there first, so a
   * negative check on `requested` after this is not early.
   */
  const requestsSoFar = () => page.evaluate(() => fetch('/assets/RiggedSimple.glb').then((r) => r.arrayBuffer()));
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
      // Frames drawn since the first: the poster would have come down at the first (reveal="auto").
      await page.evaluate(async () => {
        const el = window.helpers.viewer('manual');
        for (let i = 0; i < 2; i++) {
          el.requestRender();
          await window.helpers.waitForFrames(el, 1);
        }
      });
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
        // The lazy viewer's observer has reported (page frames) and any fetch it started has reached the route.
        await pageFrames();
        await requestsSoFar();
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
      await pageFrames();
      await requestsSoFar();
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
      await page.evaluate(() => window.helpers.nextFrames(10));
      // Playing but off screen: that one frame only (over ten of the page's animation frames).
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

  describe('camera', () => {
    const orbit = (id: string) => page.evaluate((i) => String(window.helpers.viewer(i).getCameraOrbit()), id);
    const target = (id: string) => page.evaluate((i) => String(window.helpers.viewer(i).getCameraTarget()), id);
    const fov = (id: string) => page.evaluate((i) => window.helpers.viewer(i).getFieldOfView(), id);
    const jump = (id: string) => page.evaluate((i) => window.helpers.viewer(i).jumpCameraToGoal(), id);
    const set = (id: string, name: string, value: string | null) => page.evaluate(([i, n, v]) => {
      const el = window.helpers.viewer(i);
      if (v === null) el.removeAttribute(n); else el.setAttribute(n, v);
    }, [id, name, value] as const);

    it('field-of-view, camera-target and camera-orbit ease to their goal (interpolation-decay) with camera-change; jumpCameraToGoal ends it', async () => {
      await addViewer('cam', { builtin: 'character', 'camera-orbit': '0deg 90deg 4m', 'interpolation-decay': '300', 'max-field-of-view': '45deg', loading: 'eager' });
      await whenLoaded('cam');
      await firstFrame('cam');
      expect(await fov('cam')).toBeCloseTo(30, 9);
      expect(await orbit('cam')).toBe(`0rad ${Math.PI / 2}rad 4m`);
      const narrow = await capture('cam');
      // Easing: not there in the same task, on the way after a frame, there after a while.
      const [now, soon] = await page.evaluate(async () => {
        const el = window.helpers.viewer('cam');
        el.fieldOfView = '40deg';
        const at = el.getFieldOfView();
        await window.helpers.nextFrames(2);
        return [at, el.getFieldOfView()];
      });
      expect(now).toBeCloseTo(30, 9);
      expect(soon).toBeGreaterThan(30);
      expect(soon).toBeLessThan(40);
      await expect.poll(() => fov('cam'), { timeout: 10_000 }).toBeCloseTo(40, 3);
      const wide = await capture('cam');
      // The same model at the same distance fills less of a wider view.
      expect(foregroundFraction(wide)).toBeLessThan(foregroundFraction(narrow) * 0.8);
      const changes = await events('cam', 'camera-change');
      expect(changes.length).toBeGreaterThan(2);
      expect(new Set(changes.map((e) => e.detail.source))).toEqual(new Set(['none']));

      await page.evaluate(() => { window.helpers.viewer('cam').cameraTarget = '0.5m 100cm -200mm'; });
      await jump('cam');
      expect(await target('cam')).toBe('0.5m 1m -0.2m');
      expect(await page.evaluate(() => {
        const el = window.helpers.viewer('cam');
        el.setAttribute('camera-orbit', '0.75rad 1rad 3m');
        return String(el.getCameraOrbit());
      })).toBe(`0rad ${Math.PI / 2}rad 4m`);
      await jump('cam');
      expect(await orbit('cam')).toBe('0.75rad 1rad 3m');
      await set('cam', 'camera-target', null);
      await jump('cam');
      const auto = await page.evaluate(() => window.helpers.viewer('cam').getCameraTarget());
      expect(auto.x).toBeCloseTo(0, 1);
      expect(auto.y).toBeGreaterThan(0.3);
    });

    it('min/max-camera-orbit and min/max-field-of-view clamp the goal; bad values warn and mean auto', async () => {
      // Twice as wide as tall: wider than the limb from any of these angles, so its field of view is not widened.
      await addViewer('limits', { builtin: 'limb', loading: 'eager', 'interpolation-decay': '0' }, 'width: 320px; height: 160px');
      await whenLoaded('limits');
      await set('limits', 'max-camera-orbit', '0.5rad 1.75rad 5m');
      await set('limits', 'min-camera-orbit', '-0.5rad 0.875rad 1m');
      await set('limits', 'camera-orbit', '90deg 170deg 9m');
      await jump('limits');
      expect(await orbit('limits')).toBe('0.5rad 1.75rad 5m');
      await set('limits', 'camera-orbit', '-90deg 10deg 10cm');
      await jump('limits');
      expect(await orbit('limits')).toBe('-0.5rad 0.875rad 1m');
      // model-viewer 4.4's limits: 12°…30° (the limb is narrower than the square view: no widening).
      await set('limits', 'field-of-view', '10deg');
      await jump('limits');
      expect(await fov('limits')).toBeCloseTo(12, 9);
      await set('limits', 'min-field-of-view', '5deg');
      await jump('limits');
      expect(await fov('limits')).toBeCloseTo(10, 9);
      await set('limits', 'field-of-view', '80deg');
      await jump('limits');
      expect(await fov('limits')).toBeCloseTo(30, 9);
      await set('limits', 'max-field-of-view', '60deg');
      await jump('limits');
      expect(await fov('limits')).toBeCloseTo(60, 9);
      expect(await page.evaluate(() => [window.helpers.viewer('limits').getMinimumFieldOfView(), window.helpers.viewer('limits').getMaximumFieldOfView()]))
        .toEqual([expect.closeTo(5, 9), expect.closeTo(60, 9)]);
      await set('limits', 'min-camera-orbit', 'sideways');
      expect(warnings.some((w) => w.includes('min-camera-orbit="sideways"'))).toBe(true);
    });

    it('camera controls: zoom/orbit/pan sensitivity, disable-zoom, disable-pan, right-drag and Shift+arrows pan, double click recenters unless disable-tap; touch-action', async () => {
      await addViewer('ctl', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0', 'camera-orbit': '0deg 90deg 4m', loading: 'eager' });
      await whenLoaded('ctl');
      const read = () => page.evaluate(() => {
        const el = window.helpers.viewer('ctl');
        el.jumpCameraToGoal();
        const o = el.getCameraOrbit(), t = el.getCameraTarget();
        return { theta: o.theta, radius: o.radius, x: t.x, y: t.y };
      });
      await page.focus('#ctl');
      const start = await read();
      await set('ctl', 'orbit-sensitivity', '0.5');
      await page.keyboard.press('ArrowLeft');
      expect((await read()).theta - start.theta).toBeCloseTo((5 * Math.PI) / 180, 9);
      await set('ctl', 'zoom-sensitivity', '2');
      await page.keyboard.press('+');
      expect((await read()).radius / start.radius).toBeCloseTo(1 / 1.15 ** 2, 9);
      const zoomed = (await read()).radius;
      await set('ctl', 'disable-zoom', '');
      await page.keyboard.press('+');
      const box = (await page.locator('#ctl').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      // The wheel has reached the viewer (and frames have run since) before the radius is read.
      type Wheeled = { wheeled: Promise<unknown> };
      await page.evaluate(() => {
        (window as unknown as Wheeled).wheeled = new Promise((resolve) => window.helpers.viewer('ctl').addEventListener('wheel', resolve, { once: true, capture: true }));
      });
      await page.mouse.wheel(0, 300);
      await page.evaluate(() => (window as unknown as Wheeled).wheeled);
      await pageFrames();
      expect((await read()).radius).toBe(zoomed);
      // Shift+arrow pans: the target moves, the angles stay.
      const before = await read();
      await page.keyboard.press('Shift+ArrowRight');
      const panned = await read();
      expect(panned.theta).toBe(before.theta);
      expect(Math.abs(panned.x - before.x)).toBeGreaterThan(0.01);
      // A right-drag pans too (pan-sensitivity 2 pans twice as far as 1 would).
      await set('ctl', 'pan-sensitivity', '2');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down({ button: 'right' });
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 40, { steps: 4 });
      await page.mouse.up({ button: 'right' });
      const dragged = await read();
      expect(dragged.theta).toBe(before.theta);
      expect(dragged.y - panned.y).toBeCloseTo(2 * (40 / box.height) * 2 * dragged.radius * Math.tan(Math.PI / 12), 3);
      // Double click: back to camera-target (auto: the framed centre).
      await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
      const recentered = await read();
      expect([recentered.x, recentered.y]).toEqual([start.x, start.y]);
      await set('ctl', 'disable-tap', '');
      await page.keyboard.press('Shift+ArrowUp');
      const off = await read();
      await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
      expect((await read()).y).toBe(off.y);
      // disable-pan: Shift+arrows orbit instead.
      await set('ctl', 'disable-pan', '');
      await page.keyboard.press('Shift+ArrowRight');
      const orbited = await read();
      expect(orbited.y).toBe(off.y);
      expect(orbited.theta).not.toBe(off.theta);
      expect((await events('ctl', 'camera-change')).some((e) => e.detail.source === 'user-interaction')).toBe(true);
      const touch = () => page.evaluate(() => window.helpers.canvasOf(window.helpers.viewer('ctl')).style.touchAction);
      // model-viewer 4.4's default: every touch is the viewer's.
      expect(await touch()).toBe('none');
      await set('ctl', 'touch-action', 'pan-y');
      expect(await touch()).toBe('pan-y');
    });

    it('auto-rotate turns the model on a turntable at rotation-per-second after auto-rotate-delay; the camera stays; resetTurntableRotation', async () => {
      await addViewer('spin', { builtin: 'character', 'animation-name': 'Idle', 'auto-rotate': '', 'auto-rotate-delay': '100000', 'rotation-per-second': '90deg', loading: 'eager' });
      await whenLoaded('spin');
      await waitForFrames('spin', 10);
      expect(await page.evaluate(() => window.helpers.viewer('spin').getTurntableRotation())).toBe(0);
      const front = await capture('spin');
      // Each animation frame's timestamp, as every callback of the frame (the element's too) gets it.
      await page.evaluate(() => {
        const raf = window.requestAnimationFrame;
        const times: number[] = [];
        Object.assign(window, { frameTimes: times, realRequestAnimationFrame: raf });
        window.requestAnimationFrame = (callback) => raf((t) => {
          if (times[times.length - 1] !== t) times.push(t);
          callback(t);
        });
        window.helpers.viewer('spin').autoRotateDelay = 0;
      });
      await waitForFrames('spin', 2);
      /** The angle after the last frame, and the frame timestamps so far (the element draws in every frame while it turns). */
      const turned = () => page.evaluate(() => ({
        angle: window.helpers.viewer('spin').getTurntableRotation(),
        times: [...(window as unknown as { frameTimes: number[] }).frameTimes],
      }));
      const t0 = await turned();
      await waitForFrames('spin', 10);
      const t1 = await turned();
      await page.evaluate(() => { window.requestAnimationFrame = (window as unknown as { realRequestAnimationFrame: typeof requestAnimationFrame }).realRequestAnimationFrame; });
      // Counted from the frames' own timestamps, not timed: each frame turns the model by
      // rotation-per-second (90° = π/2 rad) times that frame's step (at most 0.25 s).
      let seconds = 0;
      for (let i = t0.times.length; i < t1.times.length; i++) seconds += Math.min(0.25, (t1.times[i] - t1.times[i - 1]) / 1000);
      expect(t1.times.length - t0.times.length).toBeGreaterThanOrEqual(10);
      const wrapped = (a: number) => a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
      expect(Math.abs(wrapped(t1.angle - t0.angle - (Math.PI / 2) * seconds))).toBeLessThan(1e-9);
      expect(Math.abs(t1.angle - t0.angle)).toBeGreaterThan(0);
      expect(await page.evaluate(() => String(window.helpers.viewer('spin').getCameraOrbit()))).toMatch(new RegExp(`^0rad ${(75 * Math.PI) / 180}rad `));
      expect((await events('spin', 'camera-change')).some((e) => e.detail.source === 'automatic')).toBe(true);
      // Off: once the frame already asked for is drawn, no more (counted over page frames, not a sleep).
      await page.evaluate(() => { window.helpers.viewer('spin').autoRotate = false; });
      await page.evaluate(() => window.helpers.nextFrames(2));
      const frozen = await frames('spin');
      await page.evaluate(() => window.helpers.nextFrames(10));
      expect(await frames('spin')).toBe(frozen);
      // Turned a quarter, the character shows its side; reset, its front again. Each capture
      // starts in the same task as the reset, before any animation frame: it draws the new angle.
      const resetAndCapture = async (theta?: number): Promise<Rgba8Image> => decodeBase64Image((await page.evaluate((t) => {
        const el = window.helpers.viewer('spin');
        el.resetTurntableRotation(t ?? undefined);
        return window.helpers.captureBase64(el);
      }, theta ?? null)).base64);
      expect(changedFraction(front, await resetAndCapture(Math.PI / 2))).toBeGreaterThan(0.01);
      expect(changedFraction(front, await resetAndCapture())).toBeLessThan(0.001);
    });

    it('interaction-prompt: shown after the threshold with camera-controls, gone at the first interaction; none never shows', async () => {
      const prompt = (id: string) => page.evaluate((i) => !window.helpers.viewer(i).shadowRoot!.querySelector<HTMLElement>('.interaction-prompt')!.hidden, id);
      await addViewer('prompt', { builtin: 'limb', 'camera-controls': '', 'interaction-prompt-threshold': '200', loading: 'eager' });
      await addViewer('quiet', { builtin: 'limb', 'camera-controls': '', 'interaction-prompt': 'none', 'interaction-prompt-threshold': '0', loading: 'eager' });
      await whenLoaded('prompt');
      await whenLoaded('quiet');
      await expect.poll(() => prompt('prompt')).toBe(true);
      expect(await prompt('quiet')).toBe(false);
      const wiggle = () => page.evaluate(() => getComputedStyle(window.helpers.viewer('prompt').shadowRoot!.querySelector('.hand')!).animationName);
      expect(await wiggle()).toBe('smv-wiggle');
      await page.focus('#prompt');
      await page.keyboard.press('ArrowLeft');
      expect(await prompt('prompt')).toBe(false);
      // Gone for good, until resetInteractionPrompt(); the basic style stands still. The prompt
      // shows only from a timer of the threshold's length: one the page starts now, with the same
      // delay, fires after any the element started before it (HTML's timer order).
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, window.helpers.viewer('prompt').interactionPromptThreshold)));
      expect(await prompt('prompt')).toBe(false);
      await page.evaluate(() => {
        const el = window.helpers.viewer('prompt');
        el.interactionPromptStyle = 'basic';
        el.resetInteractionPrompt();
      });
      await expect.poll(() => prompt('prompt')).toBe(true);
      expect(await wiggle()).toBe('none');
    });

    it('updateFraming() frames the motion the player has now', async () => {
      await addViewer('frame', { builtin: 'character', animation: 'Idle', loading: 'eager', 'interpolation-decay': '0' });
      await whenLoaded('frame');
      const radius = () => page.evaluate(() => window.helpers.viewer('frame').getCameraOrbit().radius);
      const idle = await radius();
      // The page changes the clip under the element (through the player): framing follows only when asked.
      await page.evaluate(() => window.helpers.viewer('frame').player!.setClip(2));
      expect(await radius()).toBe(idle);
      await page.evaluate(() => window.helpers.viewer('frame').updateFraming());
      // Framed again, it frames Wave's motion (the raised arm) exactly as a viewer loaded on Wave does.
      await addViewer('frame-wave', { builtin: 'character', animation: 'Wave', loading: 'eager', 'interpolation-decay': '0' });
      await whenLoaded('frame-wave');
      const wave = await page.evaluate(() => window.helpers.viewer('frame-wave').getCameraOrbit().radius);
      expect(wave).toBeGreaterThan(idle * 1.01);
      expect(await radius()).toBeCloseTo(wave, 6);
    });
  });

  describe('animation', () => {
    it('animation-name and animation-crossfade-duration (ms) are model-viewer’s names for animation and crossfade-duration; availableAnimations, timeScale', async () => {
      await addViewer('anim', { builtin: 'character', 'animation-name': 'Idle', loading: 'eager' });
      await whenLoaded('anim');
      const state = await page.evaluate(() => {
        const el = window.helpers.viewer('anim');
        const out: Record<string, unknown> = { name: el.animationName, clip: el.player!.clip, available: el.availableAnimations, crossfade: el.animationCrossfadeDuration };
        el.timeScale = 2;
        out.speed = el.getAttribute('speed');
        out.timeScale = el.timeScale;
        el.crossfadeTo('Wave');
        out.written = [el.getAttribute('animation-name'), el.getAttribute('animation')];
        return out;
      });
      expect(state).toEqual({ name: 'Idle', clip: 1, available: ['Walk', 'Idle', 'Wave'], crossfade: 300, speed: '2', timeScale: 2, written: ['Wave', null] });
      // Crossfades follow animation-crossfade-duration: 0 cuts, 500 ms blends.
      const fading = await page.evaluate(async () => {
        const el = window.helpers.viewer('anim');
        el.play();
        el.animationCrossfadeDuration = 0;
        el.animationName = 'Walk';
        const cut = el.player!.fading;
        el.animationCrossfadeDuration = 500;
        el.animationName = 'Idle';
        const blended = el.player!.fading;
        el.pause();
        return [cut, blended];
      });
      expect(fading).toEqual([false, true]);
    });

    it('play() and pause() fire play and pause; play({repetitions}) fires loop between passes and finished at the end; pingpong runs back', async () => {
      await addViewer('passes', { builtin: 'character', 'animation-name': 'Wave', loading: 'eager' });
      await whenLoaded('passes');
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('passes');
        el.timeScale = 5;
        const finished = new Promise<void>((resolve) => el.addEventListener('finished', () => resolve(), { once: true }));
        el.play({ repetitions: 2 });
        await finished;
        const paused = el.paused, time = el.currentTime;
        el.play();
        el.pause();
        el.pause();
        return { paused, time, duration: el.duration };
      });
      expect(result.paused).toBe(true);
      expect(result.time).toBe(result.duration);
      const list = (await events('passes')).filter((e) => ['play', 'pause', 'loop', 'finished'].includes(e.type));
      expect(list).toEqual([
        { type: 'play', detail: {} }, { type: 'loop', detail: { count: 1, name: 'Wave' } }, { type: 'finished', detail: {} },
        { type: 'play', detail: {} }, { type: 'pause', detail: {} },
      ]);
      const backwards = await page.evaluate(async () => {
        const el = window.helpers.viewer('passes');
        const looped = new Promise<void>((resolve) => el.addEventListener('loop', () => resolve(), { once: true }));
        el.currentTime = 0;
        el.play({ pingpong: true });
        await looped;
        const a = el.currentTime;
        await window.helpers.nextFrames(3);
        const b = el.currentTime;
        el.pause();
        return [a, b];
      });
      expect(backwards[1]).toBeLessThan(backwards[0]);
    });

    it('autoplay and play() without options repeat for ever as model-viewer 4.4’s do, loop or not; setting then removing loop ends it after the pass', async () => {
      await addViewer('auto-play', { builtin: 'character', 'animation-name': 'Wave', autoplay: '', speed: '8', loading: 'eager' });
      await addViewer('played', { builtin: 'character', 'animation-name': 'Wave', speed: '8', loading: 'eager' });
      await whenLoaded('auto-play');
      await whenLoaded('played');
      await page.evaluate(() => window.helpers.viewer('played').play());
      await expect.poll(async () => (await events('auto-play', 'loop')).length, { timeout: 20_000 }).toBeGreaterThan(1);
      await expect.poll(async () => (await events('played', 'loop')).length, { timeout: 20_000 }).toBeGreaterThan(1);
      expect(await page.evaluate(() => ['auto-play', 'played'].map((id) => window.helpers.viewer(id).paused))).toEqual([false, false]);
      expect(await events('played', 'finished')).toEqual([]);
      const finished = page.evaluate(() => new Promise<void>((resolve) => window.helpers.viewer('auto-play').addEventListener('finished', () => resolve(), { once: true })));
      await page.evaluate(() => { const el = window.helpers.viewer('auto-play'); el.loop = true; el.loop = false; });
      await finished;
      expect(await page.evaluate(() => window.helpers.viewer('auto-play').paused)).toBe(true);
    });

    it('appendAnimation layers a clip over the playing one and detachAnimation takes it off; before a load or for an unknown name it warns and appends nothing', async () => {
      // Called in the task that adds the element, before its model is there: model-viewer 4.4
      // ignores it; ours says so and does not throw.
      const early = await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = 'layers';
        for (const [k, v] of Object.entries({ builtin: 'character', 'animation-name': 'Idle', loading: 'eager', 'camera-orbit': '0deg 90deg auto' })) el.setAttribute(k, v);
        window.helpers.watch(el);
        document.getElementById('stage')!.append(el);
        el.appendAnimation('Wave');
        return el.appendedAnimations;
      });
      expect(early).toEqual([]);
      await expect.poll(() => warnings.some((w) => w.includes('appendAnimation("Wave"): no model is loaded yet; nothing is appended'))).toBe(true);
      await whenLoaded('layers');
      expect(await page.evaluate(() => window.helpers.viewer('layers').appendedAnimations)).toEqual([]);
      await firstFrame('layers');
      const plain = await capture('layers');
      await page.evaluate(() => {
        const el = window.helpers.viewer('layers');
        el.currentTime = 0;
        el.appendAnimation('Wave', { weight: 1, time: 1 });
      });
      expect(await page.evaluate(() => window.helpers.viewer('layers').appendedAnimations)).toEqual(['Wave']);
      const waving = await capture('layers');
      expect(changedFraction(plain, waving)).toBeGreaterThan(0.005);
      // Appending and detaching play the model, as model-viewer 4.4's do: paused at 0 again, it shows the plain pose.
      await page.evaluate(() => {
        const el = window.helpers.viewer('layers');
        el.detachAnimation('Wave', { fade: false });
        el.pause();
        el.currentTime = 0;
      });
      expect(await page.evaluate(() => window.helpers.viewer('layers').appendedAnimations)).toEqual([]);
      expect(changedFraction(plain, await capture('layers'))).toBeLessThan(0.001);
      const unknown = await page.evaluate(async () => {
        const el = window.helpers.viewer('layers');
        let announced = 0;
        el.addEventListener('append-animation', () => announced++);
        el.appendAnimation('Dance');
        await window.helpers.nextFrames(2);
        return { appended: el.appendedAnimations, paused: el.paused, announced };
      });
      // Nothing was appended: the model stays paused and no append-animation says otherwise.
      expect(unknown).toEqual({ appended: [], paused: true, announced: 0 });
      await expect.poll(() => warnings.some((w) => w.includes('appendAnimation("Dance"): builtin:character has no such animation (available: Walk, Idle, Wave); nothing is appended'))).toBe(true);
    });
  });

  describe('model and capture', () => {
    const dims = (id: string) => page.evaluate((i) => {
      const el = window.helpers.viewer(i);
      const d = el.getDimensions(), c = el.getBoundingBoxCenter();
      return { x: d.x, y: d.y, z: d.z, cy: c.y, text: String(d) };
    }, id);

    it('orientation and scale turn and scale the drawn model; getDimensions/getBoundingBoxCenter follow; updateFraming frames it again', async () => {
      await addViewer('model', { builtin: 'character', 'animation-name': 'Idle', 'camera-orbit': '0deg 90deg auto', loading: 'eager', 'interpolation-decay': '0' });
      await whenLoaded('model');
      await firstFrame('model');
      const plain = await dims('model');
      expect(plain.text).toMatch(/^[\d.]+m [\d.]+m [\d.]+m$/);
      expect(plain.y).toBeGreaterThan(plain.x);
      const front = await capture('model');
      await page.evaluate(() => { window.helpers.viewer('model').orientation = '0deg 0deg 90deg'; });
      const turned = await dims('model');
      expect(turned.x).toBeCloseTo(plain.z, 4);
      expect(turned.z).toBeCloseTo(plain.x, 4);
      const side = await capture('model');
      expect(changedFraction(front, side)).toBeGreaterThan(0.01);
      await page.evaluate(() => { const el = window.helpers.viewer('model'); el.orientation = null; el.scale = '2 2 2'; });
      const big = await dims('model');
      expect(big.y).toBeCloseTo(plain.y * 2, 4);
      expect(big.cy).toBeCloseTo(plain.cy * 2, 4);
      // Not re-framed by itself (as model-viewer): the doubled model overflows until updateFraming().
      const radius = () => page.evaluate(() => window.helpers.viewer('model').getCameraOrbit().radius);
      const before = await radius();
      const overflowing = await capture('model');
      expect(foregroundFraction(overflowing)).toBeGreaterThan(foregroundFraction(front) * 1.5);
      await page.evaluate(() => window.helpers.viewer('model').updateFraming());
      expect(await radius()).toBeCloseTo(before * 2, 1);
      await page.evaluate(() => { window.helpers.viewer('model').scale = 'huge'; });
      expect(warnings.some((w) => w.includes('scale="huge"'))).toBe(true);
      expect((await dims('model')).y).toBeCloseTo(plain.y, 4);
    });

    it('toBlob({mimeType, qualityArgument, idealAspect}) and toDataURL() encode the frame; capture() stays', async () => {
      await addViewer('shot', { builtin: 'character', loading: 'eager', background: '#336699' });
      await whenLoaded('shot');
      await firstFrame('shot');
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('shot');
        const size = async (blob: Blob) => { const b = await createImageBitmap(blob); return [b.width, b.height]; };
        const png = await el.toBlob();
        const jpeg = await el.toBlob({ mimeType: 'image/jpeg', qualityArgument: 0.5 });
        const ideal = await el.toBlob({ idealAspect: true });
        const idealAspect = el.getIdealAspect();
        const url = el.toDataURL();
        const jpegUrl = el.toDataURL('image/jpeg', 0.8);
        const fromUrl = await size(await (await fetch(url)).blob());
        return {
          idealAspect,
          png: [png.type, ...(await size(png))], jpeg: [jpeg.type, ...(await size(jpeg))], ideal: await size(ideal),
          canvas: [window.helpers.canvasOf(el).width, window.helpers.canvasOf(el).height], url: url.slice(0, 22), jpegUrl: jpegUrl.slice(0, 23), fromUrl,
          urlBase64: url.slice(url.indexOf(',') + 1),
        };
      });
      expect(result.png).toEqual(['image/png', ...result.canvas]);
      expect(result.jpeg).toEqual(['image/jpeg', ...result.canvas]);
      // The character is taller than wide: its ideal image is narrower than the square canvas, as tall.
      expect(result.ideal[1]).toBe(result.canvas[1]);
      expect(result.ideal[0]).toBeLessThan(result.canvas[0] * 0.8);
      expect(result.ideal[0]).toBe(Math.round(result.canvas[1] * result.idealAspect));
      expect(result.url).toBe('data:image/png;base64,');
      expect(result.jpegUrl).toBe('data:image/jpeg;base64,');
      expect(result.fromUrl).toEqual(result.canvas);
      // toDataURL's frame is the model on its background, as capture() draws it.
      const fromUrl = decodeBase64Image(result.urlBase64);
      const captured = await capture('shot');
      expect([...fromUrl.data.subarray(0, 4)]).toEqual([0x33, 0x66, 0x99, 255]);
      expect(changedFraction(fromUrl, captured, 8)).toBeLessThan(0.01);
      expect(foregroundFraction(fromUrl)).toBeGreaterThan(0.03);
    });
  });
});
