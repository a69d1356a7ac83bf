/**
 * <skinned-mesh-viewer> with VRM avatars in real Chromium (WebGPU on SwiftShader): a VRM 0.x
 * avatar is turned to face the camera by default (its eye whites show; with vrm0-turn="off"
 * the back of its head does), `expressions` lists the avatar's, `setExpression('blink', 1)`
 * closes its eyelids over them, `data-joint="head"` (a humanoid bone name) places a hotspot at
 * the head, and a VRM sample file loads from `src` and draws with its expressions listed.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { decodeBase64Image, foregroundFraction, openTestPage, serveFiles, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
const SIZE = 240;

/** Pixels bright and grey, as the eye whites (0.95 grey) draw; the skin, hair and clothes are coloured. */
function whitePixels(image: Rgba8Image): number {
  const d = image.data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] > 170 && d[i + 1] > 170 && d[i + 2] > 170 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) < 25 && d[i + 3] > 200) n++;
  }
  return n;
}

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> VRM avatars', () => {
  let session: BrowserSession;
  let page: Page;
  const warnings: string[] = [];
  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page } = await session.newPage());
    page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
    await serveFiles(page, 'vrm-files', (name) => {
      if (!/^[\w.]+\.vrm$/.test(name)) return undefined;
      try {
        return { body: new Uint8Array(readFileSync(`../shared/assets/vrm/${name}`)), type: 'model/gltf-binary' };
      } catch {
        return undefined;
      }
    });
    await openTestPage(page, session.baseUrl);
  }, 90_000);
  afterAll(async () => { await session?.close(); });
  afterEach(async () => { await session?.checkWebGpuErrors(); });

  /** The viewer's frame; after `frames` more animation frames (the VRM steps of a paused avatar run in them). */
  async function capture(id: string, frames = 0): Promise<Rgba8Image> {
    const { base64 } = await page.evaluate(async ([i, n]) => {
      const el = window.helpers.viewer(i);
      if (n > 0) await window.helpers.waitForFrames(el, n);
      return window.helpers.captureBase64(el);
    }, [id, frames] as const);
    return decodeBase64Image(base64);
  }

  it('turns a VRM 0.x avatar to face the camera; lists and sets its expressions; rides a hotspot on a humanoid bone', async () => {
    const state = await page.evaluate(async ([size, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'v0';
      el.style.width = el.style.height = `${size}px`;
      el.setAttribute('builtin', 'vrm0-avatar');
      // Close on the face, from the front (+Z), the clip paused at its start.
      el.setAttribute('camera-orbit', '0deg 90deg 0.6m');
      el.setAttribute('camera-target', '0m 1.65m 0m');
      el.setAttribute('interpolation-decay', '0');
      el.innerHTML = '<div slot="hotspot-head" data-joint="head">head</div>';
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      el.pause();
      await window.helpers.waitForFrames(el, 2);
      const box = el.getBoundingClientRect(), h = el.querySelector('[slot="hotspot-head"]')!.getBoundingClientRect();
      return { expressions: el.expressions, hotspotY: (h.top + h.height / 2 - box.top) / box.height, hotspotShown: h.width > 0 };
    }, [SIZE, LOAD_TIMEOUT] as const);
    expect(state.expressions).toContain('happy');
    expect(state.expressions).toContain('blink');
    expect(state.hotspotShown).toBe(true);
    // The head joint sits low in the head: below the eyes, in the lower half of this close view.
    expect(state.hotspotY).toBeGreaterThan(0.4);
    expect(state.hotspotY).toBeLessThan(1);

    const facing = whitePixels(await capture('v0', 2));
    expect(facing).toBeGreaterThan(30);
    await page.evaluate(() => window.helpers.viewer('v0').setExpression('blink', 1));
    const blinking = whitePixels(await capture('v0', 2));
    expect(blinking).toBeLessThan(facing / 4);
    await page.evaluate(() => {
      const el = window.helpers.viewer('v0');
      el.setExpression('blink', null);
      el.setAttribute('vrm0-turn', 'off');
    });
    const away = await capture('v0', 2);
    expect(whitePixels(away)).toBeLessThan(5);
    expect(foregroundFraction(away)).toBeGreaterThan(0.2);
  }, 120_000);

  it('loads a VRM file from src and lists its expressions', async () => {
    const state = await page.evaluate(async ([size, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'file';
      el.style.width = el.style.height = `${size}px`;
      el.setAttribute('src', '/vrm-files/VRMC_vrm_expressions_isBinary_Overrides.vrm');
      el.setAttribute('expression', 'happy:1');
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      return { expressions: el.expressions };
    }, [SIZE, LOAD_TIMEOUT] as const);
    expect(state.expressions).toEqual(['happy', 'blink']);
    expect(foregroundFraction(await capture('file'))).toBeGreaterThan(0.05);
    expect(warnings.filter((w) => /expression|look-at|spring/.test(w))).toEqual([]);
  }, 120_000);
});
