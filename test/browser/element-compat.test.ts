/**
 * Compatibility: a page of <model-viewer> markup (element-model-viewer-markup.html: typical
 * snippets of modelviewer.dev's examples, with only the tag name changed) works with
 * <skinned-mesh-viewer> in headless Chromium (WebGPU on SwiftShader): every model loads and
 * draws, and the attributes, methods and events those snippets and their scripts use do
 * what model-viewer's documentation says.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { browserUnavailable, startBrowserSession, type BrowserSession } from '../support/browser.ts';
import { writeArtifactPng } from '../support/png.ts';
import { assetPath } from '../support/assets.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { decodeBase64Image, foregroundFraction, openElementPage, readAccessibility, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
const SHOWN = ['basic', 'animated', 'camera', 'turntable', 'staged', 'progress', 'skybox', 'fov', 'layers', 'described'];
const DEG = Math.PI / 180;

describe.skipIf(!!unavailable)('model-viewer markup with only the tag name changed', () => {
  let session: BrowserSession;
  let page: Page;
  let consoleErrors: string[];
  let requested: string[];
  let cdp: CDPSession;
  beforeAll(async () => {
    session = await startBrowserSession();
    ({ page, consoleErrors, requested } = await openElementPage(session, 'element-model-viewer-markup.html'));
    for (const id of SHOWN) await page.evaluate(([i, t]) => window.helpers.whenLoaded(window.helpers.viewer(i), t), [id, LOAD_TIMEOUT] as const);
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Accessibility.enable');
  }, 120_000);
  afterAll(async () => {
    await session?.checkWebGpuErrors();
    await session?.close();
  });

  async function capture(id: string): Promise<Rgba8Image> {
    const { base64 } = await page.evaluate((i) => window.helpers.captureBase64(window.helpers.viewer(i)), id);
    return decodeBase64Image(base64);
  }

  // The page's three endless animations (the turntable, the autoplaying fox of the layers
  // snippet and the animation snippet's walking fox) draw in every frame while they run: their
  // tests come first and stop them, so the captures of every model after them draw still
  // viewers. The turntable's first: its wheel would scroll the page once the layers test's status text has
  // made it taller, and the drag test after it aims at #basic's box at the top of the page.
  it('auto-rotate turns the turntable (camera-change "automatic"); disable-zoom leaves the wheel to the page', async () => {
    const theta = () => page.evaluate(() => window.helpers.viewer('turntable').getTurntableRotation());
    const start = await theta();
    await page.evaluate(() => window.helpers.waitForFrames(window.helpers.viewer('turntable'), 3));
    // The angle wraps at ±π: its change, wrapped, is a small positive turn.
    const turned = (((await theta()) - start + 3 * Math.PI) % (2 * Math.PI)) - Math.PI;
    expect(turned).toBeGreaterThan(0);
    expect(turned).toBeLessThan(Math.PI / 2);
    expect(await page.evaluate(() => window.helpers.events(window.helpers.viewer('turntable')).some((e) => e.type === 'camera-change' && e.detail.source === 'automatic'))).toBe(true);
    const radius = await page.evaluate(() => window.helpers.viewer('turntable').getCameraOrbit().radius);
    const box = (await page.locator('#turntable').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 400);
    await page.evaluate(() => window.helpers.nextFrames(3));
    expect(await page.evaluate(() => window.helpers.viewer('turntable').getCameraOrbit().radius)).toBeCloseTo(radius, 9);
    // Its checks done, the turntable stops: it would draw in every frame of the tests after this one.
    await page.evaluate(() => { window.helpers.viewer('turntable').autoRotate = false; });
  });

  it('buttons append and detach a clip; the page\'s append-animation and detach-animation listeners report both', async () => {
    await page.click('#append-run');
    await expect.poll(() => page.locator('#layer-status').textContent()).toBe('appended: Run');
    await page.click('#detach-run');
    await expect.poll(() => page.locator('#layer-status').textContent()).toBe('appended: Run | detached');
    // Faded out over 0.2 s, then gone.
    await expect.poll(() => page.evaluate(() => window.helpers.viewer('layers').appendedAnimations), { timeout: 10_000 }).toEqual([]);
    // Its checks done, the autoplaying fox stops: it would draw in every frame of the tests after this one.
    await page.evaluate(() => window.helpers.viewer('layers').pause());
  });

  it('autoplay with animation-name plays that clip; play({repetitions: 1}) plays it once and fires finished; play() repeats for ever', async () => {
    // What a model-viewer page can see: the Fox's three clips differ in length, so `duration`
    // names the clip that plays, and each pass's `loop` event names it too.
    const walk = (await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))))).animations.find((clip) => clip.name === 'Walk')!;
    const loopNames = () => page.evaluate(() => window.helpers.events(window.helpers.viewer('animated')).filter((e) => e.type === 'loop').map((e) => e.detail.name));
    await expect.poll(async () => (await loopNames()).length, { timeout: 20_000 }).toBeGreaterThan(0);
    const state = await page.evaluate(() => {
      const el = window.helpers.viewer('animated');
      return { paused: el.paused, name: el.animationName, duration: el.duration };
    });
    expect(state).toEqual({ paused: false, name: 'Walk', duration: walk.duration });
    expect(new Set(await loopNames())).toEqual(new Set(['Walk']));
    await page.evaluate(() => { const el = window.helpers.viewer('animated'); el.pause(); el.timeScale = 4; el.play({ repetitions: 1 }); });
    await page.waitForFunction(() => (window as unknown as { finishedOnce: number }).finishedOnce === 1, undefined, { timeout: 20_000 });
    expect(await page.evaluate(() => window.helpers.viewer('animated').paused)).toBe(true);
    // model-viewer 4.4's play() without options: repetitions Infinity.
    const passes = (await loopNames()).length;
    await page.evaluate(() => window.helpers.viewer('animated').play());
    await expect.poll(async () => (await loopNames()).length, { timeout: 20_000 }).toBeGreaterThan(passes + 1);
    expect(await page.evaluate(() => [window.helpers.viewer('animated').paused, (window as unknown as { finishedOnce: number }).finishedOnce])).toEqual([false, 1]);
    await page.evaluate(() => window.helpers.viewer('animated').pause());
  });

  it('every model loads and draws, its poster comes down, and alt labels it; nothing is logged as an error', async () => {
    await page.screenshot({ path: 'test-artifacts/element-model-viewer-markup.png' });
    for (const id of SHOWN) {
      const image = await capture(id);
      writeArtifactPng(`element-model-viewer-markup-${id}`, image.width, image.height, image.data);
      expect(foregroundFraction(image), id).toBeGreaterThan(0.01);
    }
    await expect.poll(() => page.evaluate(() => window.helpers.events(window.helpers.viewer('basic')).some((e) => e.type === 'poster-dismissed'))).toBe(true);
    // With camera-controls model-viewer appends its interaction prompt to alt; without, alt alone.
    const images = (await readAccessibility(cdp)).images;
    expect(images).toContain('A 3D model of a fox. Use mouse, touch or arrow keys to move.');
    expect(images).toContain('A man, turned and halved');
    expect(consoleErrors).toEqual([]);
  });

  it('camera-orbit inside min/max-camera-orbit, camera-target and field-of-view are what the getters report', async () => {
    const camera = await page.evaluate(() => {
      const el = window.helpers.viewer('camera');
      el.jumpCameraToGoal();
      return { orbit: String(el.getCameraOrbit()), target: String(el.getCameraTarget()), fov: el.getFieldOfView() };
    });
    // 4m is past max-camera-orbit's 3m; phi "auto" is model-viewer's 75°; 40deg is past 4.4's auto max-field-of-view, 30deg.
    expect(camera).toEqual({ orbit: `${-30 * DEG}rad ${75 * DEG}rad 3m`, target: '0m 0.8m 0m', fov: expect.closeTo(30, 9) });
  });

  it('reveal="manual": nothing is fetched until the slotted poster button calls dismissPoster(); then it loads and shows', async () => {
    expect(requested).not.toContain('RiggedSimple.glb');
    const button = page.locator('#load-button');
    expect(await button.isVisible()).toBe(true);
    await button.click();
    await page.evaluate(([i, t]) => window.helpers.whenLoaded(window.helpers.viewer(i), t), ['manual', LOAD_TIMEOUT] as const);
    await expect.poll(() => button.isVisible()).toBe(false);
    expect(requested).toContain('RiggedSimple.glb');
    expect(await page.evaluate(() => window.helpers.events(window.helpers.viewer('manual')).filter((e) => e.type === 'poster-dismissed').length)).toBe(1);
    expect(foregroundFraction(await capture('manual'))).toBeGreaterThan(0.01);
  });

  it('a user drag is a camera-change with source "user-interaction"; orientation and scale apply', async () => {
    const box = (await page.locator('#basic').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => page.evaluate(() => (window as unknown as { userCameraChanges: number }).userCameraChanges)).toBeGreaterThan(0);
    // CesiumMan halved: its box is half the size the same file shows unscaled in #camera.
    const [staged, plain] = await page.evaluate(() => ['staged', 'camera'].map((i) => {
      const d = window.helpers.viewer(i).getDimensions();
      return [d.x, d.y, d.z];
    }));
    expect(staged[1]).toBeCloseTo(plain[1] / 2, 4);
    // Turned 90° about +Y: width and depth swap.
    expect(staged[0]).toBeCloseTo(plain[2] / 2, 4);
  });

  it('the page\'s own progress bar (slot="progress-bar") shows while loading, filled by its progress listener, and is hidden at 1', async () => {
    const seen = await page.evaluate(() => {
      const el = window.helpers.viewer('progress');
      const bar = el.querySelector<HTMLElement>('.progress-bar')!;
      return { slotted: bar.assignedSlot !== null, hidden: bar.classList.contains('hide'), width: el.querySelector<HTMLElement>('.update-bar')!.style.width };
    });
    expect(seen).toEqual({ slotted: true, hidden: true, width: '100%' });
    const shares = (await page.evaluate(() => window.helpers.events(window.helpers.viewer('progress'))))
      .filter((e) => e.type === 'progress').map((e) => e.detail.totalProgress);
    // model-viewer's first progress event of a load is 0 (the page shows its bar at once); the last is 1.
    expect(shares[0]).toBe(0);
    expect(shares.at(-1)).toBe(1);
  });

  it('shift-drag turns the scene through the page\'s mousedown handler; the orbit it changed goes back through toString() exactly', async () => {
    await page.locator('#skybox').scrollIntoViewIfNeeded();
    const box = (await page.locator('#skybox').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down('Shift');
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 50, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const result = await page.evaluate(() => ({
      turns: (window as unknown as { sceneTurns: number[] }).sceneTurns,
      orientation: window.helpers.viewer('skybox').orientation,
    }));
    expect(result.turns.length).toBeGreaterThan(0);
    for (const difference of result.turns) expect(Math.abs(difference)).toBeLessThan(1e-12);
    // Dragged right by 50 px on a 190 px element: the scene turned by −50/190 rad.
    const angle = Number(/^0 0 (\S+)rad$/.exec(result.orientation ?? '')?.[1]);
    expect(angle).toBeCloseTo(-50 / box.height, 6);
  });

  it('field-of-view below model-viewer\'s default minimum is 12°; the limits are 12° and 30°', async () => {
    const fov = await page.evaluate(() => {
      const el = window.helpers.viewer('fov');
      return [el.getFieldOfView(), el.getMinimumFieldOfView(), el.getMaximumFieldOfView()];
    });
    expect(fov).toEqual([expect.closeTo(12, 9), expect.closeTo(12, 9), expect.closeTo(30, 9)]);
  });

  it('a11y: the focused viewer tells a screen reader which side it shows, in the page\'s words; its image carries the page\'s prompt', async () => {
    await page.locator('#described').scrollIntoViewIfNeeded();
    await page.focus('#described');
    const tree = await readAccessibility(cdp);
    expect(tree.images).toContain('A walking man. Drag to walk around him');
    expect(tree.status).toContain('The man faces you');
    await page.evaluate(async () => {
      const el = window.helpers.viewer('described');
      el.cameraOrbit = '180deg 75deg auto';
      el.jumpCameraToGoal();
      await window.helpers.nextFrames(2);
    });
    expect((await readAccessibility(cdp)).status).toContain('You see his back');
  });
});
