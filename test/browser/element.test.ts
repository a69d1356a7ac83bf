/**
 * <skinned-mesh-viewer> in real Chromium (WebGPU on SwiftShader): three viewers on one
 * page, frame capture against a readback of the canvas, events, the src race, broken
 * sources, removal without leaks, visibility, a browser without WebGPU, device loss,
 * camera controls, attribute reflection and a material with every PBR extension. Models are served by the test dev
 * server (test/support/served-assets.ts) so tests can make them missing, broken or slow.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { everyExtensionQuad } from '../support/pbr-fuzz.ts';
import { writeArtifactPng } from '../support/png.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import {
  changedFraction, decodeBase64Image, type ElementPage, foregroundFraction, maxDifference, openElementPage, rawRgba, serveFiles, type Rgba8Image,
} from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** The built-in character's primitives: a crowd is one instanced draw per primitive. */
const characterPrimitives = (await loadGltf(buildBuiltinGlb('character'), { name: 'character' })).meshes.reduce((n, m) => n + m.primitives.length, 0);

/** First loads compile pipelines on a CPU rasteriser; leave room on a busy machine. */
const LOAD_TIMEOUT = 45_000;

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> in headless Chromium', () => {
  const session = useBrowserSession();

  // Each describe opens a page of its own (a new document, with its own shared GPU device).
  const open = (pageName: string): Promise<ElementPage> => openElementPage(session, pageName);

  /** Adds a viewer with these attributes to the basic page's stage and watches its events. */
  async function addViewer(page: Page, id: string, attributes: Record<string, string>): Promise<void> {
    await page.evaluate(([i, attrs]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = i;
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      window.helpers.watch(el);
      document.getElementById('stage')!.append(el);
    }, [id, attributes] as const);
  }

  async function capture(page: Page, id: string): Promise<Rgba8Image> {
    const { base64 } = await page.evaluate((i) => window.helpers.captureBase64(window.helpers.viewer(i)), id);
    return decodeBase64Image(base64);
  }

  async function whenLoaded(page: Page, id: string): Promise<void> {
    await page.evaluate(([i, t]) => window.helpers.whenLoaded(window.helpers.viewer(i), t), [id, LOAD_TIMEOUT] as const);
  }

  async function waitForFrames(page: Page, id: string, count = 1): Promise<void> {
    await page.evaluate(([i, n]) => window.helpers.waitForFrames(window.helpers.viewer(i), n), [id, count] as const);
  }

  /** For viewers that are not animating: the one frame drawn after loading. */
  async function firstFrame(page: Page, id: string): Promise<void> {
    await page.evaluate((i) => window.helpers.waitForTotalFrames(window.helpers.viewer(i), 1), id);
  }

  async function frames(page: Page, id: string): Promise<number> {
    return page.evaluate((i) => window.instrument.frames(window.helpers.canvasOf(window.helpers.viewer(i))), id);
  }

  describe('three viewers on one page', () => {
    let opened: ElementPage;
    let page: Page;
    const IDS = ['character', 'cesium', 'fox'];
    beforeAll(async () => {
      opened = await open('element-three.html');
      page = opened.page;
      for (const id of IDS) await whenLoaded(page, id);
      for (const id of IDS) await waitForFrames(page, id, 3);
    }, 120_000);
    afterAll(async () => { await page?.close(); });

    it('pixels change over time while the animations play', async () => {
      const before = await Promise.all(IDS.map((id) => capture(page, id)));
      // Counted in frames, not milliseconds: a busy CPU rasteriser draws fewer per second. The wait
      // can land a whole loop later (the built-in Walk is 1 s: 250 ms plus ten 75 ms frames under
      // load), the same pose; so up to three waits of different lengths, and a still viewer fails all three.
      const changed = IDS.map(() => 0);
      for (let attempt = 0; attempt < 3 && changed.some((c) => c <= 0.003); attempt++) {
        await page.evaluate((ms) => window.helpers.sleep(ms), 250 + 130 * attempt);
        for (const id of IDS) await waitForFrames(page, id, 10);
        const after = await Promise.all(IDS.map((id) => capture(page, id)));
        IDS.forEach((_, i) => { changed[i] = Math.max(changed[i], changedFraction(before[i], after[i])); });
      }
      IDS.forEach((id, i) => expect(changed[i], `${id}: pixels changed over 10+ frames`).toBeGreaterThan(0.003));
      expect(await page.evaluate(() => [...document.querySelectorAll('skinned-mesh-viewer')].map((el) => el.paused))).toEqual([false, false, false]);
      // Nothing after this needs the motion: three playing viewers keep Chromium's GPU process
      // busy drawing every frame, so they stop here (a capture of a paused viewer draws its frame).
      await page.evaluate(() => { for (const el of document.querySelectorAll('skinned-mesh-viewer')) el.pause(); });
    });

    it('all draw non-blank frames from one shared GPUDevice; screenshot saved', async () => {
      await page.screenshot({ path: 'test-artifacts/element-three.png' });
      for (const id of IDS) {
        const image = await capture(page, id);
        writeArtifactPng(`element-three-${id}`, image.width, image.height, image.data);
        expect(foregroundFraction(image), `${id}: share of pixels that are not background`).toBeGreaterThan(0.03);
      }
      expect((await page.evaluate(() => window.instrument.live())).devices).toBe(1);
      expect(opened.consoleErrors).toEqual([]);
    });

    it('capture() equals a readback of the frame drawn on the canvas, and what the page shows', async () => {
      // Paused already (by the test above); run alone, it pauses here.
      await page.evaluate(() => window.helpers.viewer('cesium').pause());
      // A paused viewer draws at most the frame already requested, then stops: wait until
      // the frame count holds still, so the capture and the readback see the same frame.
      let count = await frames(page, 'cesium');
      for (;;) {
        await page.evaluate(() => window.helpers.nextFrames(5));
        const now = await frames(page, 'cesium');
        if (now === count) break;
        count = now;
      }
      const grabbed = await page.evaluate(() => window.helpers.grabBase64(window.helpers.viewer('cesium')));
      const frame = rawRgba(grabbed.width, grabbed.height, grabbed.base64);
      const captured = await capture(page, 'cesium');
      expect([captured.width, captured.height]).toEqual([frame.width, frame.height]);
      // The canvas is 124×160 CSS pixels at devicePixelRatio 1, sized by the ResizeObserver.
      expect([frame.width, frame.height]).toEqual([124, 160]);
      expect(maxDifference(captured, frame), 'largest channel difference, capture vs canvas readback').toBe(0);

      // The composited page (opaque background, so no blending) shows the same pixels.
      const box = (await page.locator('#cesium').boundingBox())!;
      const shot = decodeBase64Image((await page.screenshot({ clip: box })).toString('base64'));
      let sum = 0, n = 0;
      const inset = 8; // skip the rounded corners
      for (let y = inset; y < shot.height - inset; y++) {
        for (let x = inset; x < shot.width - inset; x++) {
          const i = (y * shot.width + x) * 4;
          for (let c = 0; c < 3; c++) sum += Math.abs(shot.data[i + c] - captured.data[i + c]);
          n += 3;
        }
      }
      expect(sum / n, 'mean channel difference, screenshot vs capture').toBeLessThan(2);
    });

    it('camera-controls: focusable, arrow keys orbit, +/-, the wheel and a pinch zoom, a drag orbits', async () => {
      const orbit = () => page.evaluate(() => {
        // The camera eases to its goal (interpolation-decay); read where it is going.
        window.helpers.viewer('character').jumpCameraToGoal();
        const o = window.helpers.viewer('character').getCameraOrbit();
        return { theta: o.theta, phi: o.phi, radius: o.radius, text: String(o) };
      });
      expect(await page.getAttribute('#character', 'tabindex')).toBe('0');
      await page.focus('#character');
      const start = await orbit();
      expect(start.text).toMatch(new RegExp(`^0rad ${(75 * Math.PI) / 180}rad [\\d.]+m$`));
      await page.keyboard.press('ArrowLeft');
      const left = await orbit();
      expect(left.theta - start.theta).toBeCloseTo((10 * Math.PI) / 180, 6);
      await page.keyboard.press('+');
      expect((await orbit()).radius).toBeLessThan(left.radius);
      const box = (await page.locator('#character').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const beforeWheel = await orbit();
      await page.mouse.wheel(0, 300);
      await expect.poll(async () => (await orbit()).radius).toBeGreaterThan(beforeWheel.radius);
      const beforeDrag = await orbit();
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 20, { steps: 4 });
      await page.mouse.up();
      const dragged = await orbit();
      expect(dragged.theta).toBeLessThan(beforeDrag.theta);
      expect(dragged.phi).toBeLessThan(beforeDrag.phi);
      // Two touch pointers spreading apart to twice their distance: half the distance.
      const beforePinch = await orbit();
      await page.evaluate(() => {
        const canvas = window.helpers.canvasOf(window.helpers.viewer('character'));
        const r = canvas.getBoundingClientRect();
        const touch = (type: string, pointerId: number, x: number) => canvas.dispatchEvent(new PointerEvent(type, {
          pointerId, pointerType: 'touch', clientX: r.left + x, clientY: r.top + 150, bubbles: true, cancelable: true,
        }));
        touch('pointerdown', 11, 100);
        touch('pointerdown', 12, 140);
        touch('pointermove', 12, 180);
        touch('pointerup', 12, 180);
        touch('pointerup', 11, 100);
      });
      expect((await orbit()).radius / beforePinch.radius).toBeCloseTo(0.5, 6);
      // Without camera-controls keys do nothing, and the tab stop the element added goes.
      await page.evaluate(() => { window.helpers.viewer('character').cameraControls = false; });
      expect(await page.getAttribute('#character', 'tabindex')).toBeNull();
      const off = await orbit();
      await page.focus('#character');
      await page.keyboard.press('ArrowLeft');
      expect((await orbit()).theta).toBe(off.theta);
    });
  });

  describe('on a plain page', () => {
    let opened: ElementPage;
    let page: Page;
    beforeAll(async () => {
      opened = await open('element-basic.html');
      page = opened.page;
    }, 60_000);
    afterAll(async () => { await page?.close(); });
    // Each test starts on an empty stage, so its viewers are on screen (and so draw).
    beforeEach(async () => { await page.evaluate(() => document.getElementById('stage')!.replaceChildren()); });

    // The churn needs a page no earlier test has drawn on (it counts the page's GPU objects, which
    // must all go), so it comes first; the lost device after it, once the churn has left the page
    // with no GPU object and the one shared device; the tests after those draw on the new device.
    // One page for all: a page's start (the library's ~290 modules, its pipelines) costs as much
    // CPU as several of these tests.
    it('removing and re-adding a viewer 100 times leaks no GPU objects, listeners, observers or frames', async () => {
      const empty = await page.evaluate(() => window.instrument.live());
      // Small: the checks count objects, listeners and frames, not pixels.
      await addViewer(page, 'churn', { builtin: 'character', autoplay: '', loop: '', 'camera-controls': '', style: 'width: 64px; height: 64px' });
      await whenLoaded(page, 'churn');
      await waitForFrames(page, 'churn', 2);
      const attached = await page.evaluate(() => window.instrument.live());
      expect(attached.buffers).toBeGreaterThan(0);
      expect(attached.observed).toBe(2);
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('churn');
        const stage = document.getElementById('stage')!;
        const detached: ReturnType<typeof window.instrument.live>[] = [];
        const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
        for (let i = 0; i < 100; i++) {
          el.remove();
          await settle();
          detached.push(window.instrument.live());
          stage.append(el);
          // Every tenth time, let it come all the way back (device, renderer, upload, a
          // frame); otherwise remove it again mid-set-up, the racy case.
          if (i % 10 === 9) await window.helpers.waitForFrames(el, 1);
          else if (i % 3 === 0) await window.helpers.nextFrames(1);
        }
        await window.helpers.waitForFrames(el, 2);
        const reattached = window.instrument.live();
        el.remove();
        await settle();
        // Renderer.destroy runs after any upload still in flight: wait for the GPU objects to go
        // (a leak fails the checks below once this gives up).
        for (let frames = 0; window.instrument.liveLabels().length > 0 && frames < 600; frames++) await window.helpers.nextFrames(1);
        return { detached, reattached, final: window.instrument.live(), leftLabels: window.instrument.liveLabels() };
      });
      // The library's own module, as the page's element runs it: no element still listens for device loss.
      const subscribers = await page.evaluate(() => window.libraryInternals.sharedDeviceListenerCount());
      const gpuFree = { buffers: 0, textures: 0 };
      expect(result.leftLabels).toEqual([]);
      expect(result.final).toEqual({ ...empty, ...gpuFree, observed: 0, pendingAnimationFrames: 0, devices: 1 });
      expect(subscribers).toBe(0);
      // Back in the page it is whole again: the same GPU objects as the first time.
      expect({ buffers: result.reattached.buffers, textures: result.reattached.textures, observed: result.reattached.observed })
        .toEqual({ buffers: attached.buffers, textures: attached.textures, observed: 2 });
      // While detached, nothing page-wide is held, however far set-up had got.
      for (const d of result.detached) {
        expect(d.observed).toBe(0);
        expect(d.pendingAnimationFrames).toBe(0);
        expect(d.pageListeners).toBe(empty.pageListeners);
      }
      expect(opened.consoleErrors).toEqual([]);
    }, 90_000);

    it('recovers from a lost device: the next frame comes from a new shared device', async () => {
      await addViewer(page, 'phoenix', { builtin: 'character', autoplay: '', loop: '' });
      await whenLoaded(page, 'phoenix');
      await waitForFrames(page, 'phoenix', 2);
      await page.evaluate(() => window.instrument.devices[0].destroy());
      await page.waitForFunction(() => window.instrument.live().devices === 2);
      await waitForFrames(page, 'phoenix', 3);
      expect(foregroundFraction(await capture(page, 'phoenix'))).toBeGreaterThan(0.03);
      // The old device's objects were released along with it.
      const live = await page.evaluate(() => window.instrument.live());
      await addViewer(page, 'second', { builtin: 'character' });
      await whenLoaded(page, 'second');
      const after = await page.evaluate(() => window.instrument.live());
      expect(after.devices).toBe(2);
      expect(after.buffers).toBe(live.buffers * 2);
      expect(opened.consoleErrors.filter((e) => !/device (was )?(lost|destroyed)/i.test(e))).toEqual([]);
      // The tests after this one on the page count console errors from here.
      opened.consoleErrors.splice(0);
    }, 60_000);

    it('reflects attributes as properties and back', async () => {
      const result = await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        const out: Record<string, unknown> = {};
        el.src = 'a.glb'; out.srcAttr = el.getAttribute('src');
        el.setAttribute('src', 'b.glb'); out.srcProp = el.src;
        el.src = null; out.srcRemoved = el.hasAttribute('src');
        el.builtin = 'limb'; out.builtin = el.getAttribute('builtin');
        el.animation = 2; out.animation = el.getAttribute('animation');
        el.autoplay = true; out.autoplay = el.hasAttribute('autoplay');
        el.removeAttribute('autoplay'); out.autoplayOff = el.autoplay;
        el.loop = true; out.loop = el.getAttribute('loop');
        el.cameraControls = true; out.cameraControls = el.hasAttribute('camera-controls');
        out.speedDefault = el.speed;
        el.speed = 1.5; out.speedAttr = el.getAttribute('speed');
        el.setAttribute('speed', 'fast'); out.speedBad = el.speed;
        out.crossfadeDefault = el.crossfadeDuration;
        el.setAttribute('crossfade-duration', '250ms'); out.crossfadeMs = el.crossfadeDuration;
        el.crossfadeDuration = 0.5; out.crossfadeAttr = el.getAttribute('crossfade-duration');
        el.cameraOrbit = '45deg 60deg 2m'; out.cameraOrbit = el.getAttribute('camera-orbit');
        out.exposureDefault = el.exposure;
        el.setAttribute('exposure', '2.5'); out.exposure = el.exposure;
        el.background = 'transparent'; out.background = el.getAttribute('background');
        out.skinningDefault = el.skinning;
        el.skinning = 'dual-quaternion'; out.skinning = el.getAttribute('skinning');
        el.debug = 'skeleton weights'; out.debug = el.getAttribute('debug');
        el.alt = 'A robot'; out.alt = el.getAttribute('alt');
        out.paused = el.paused;
        out.loaded = el.loaded;
        out.duration = el.duration;
        out.animations = el.animations;
        out.isElement = el instanceof customElements.get('skinned-mesh-viewer')!;
        return out;
      });
      expect(result).toEqual({
        srcAttr: 'a.glb', srcProp: 'b.glb', srcRemoved: false, builtin: 'limb', animation: '2', autoplay: true,
        autoplayOff: false, loop: '', cameraControls: true, speedDefault: 1, speedAttr: '1.5', speedBad: 1,
        crossfadeDefault: 0.3, crossfadeMs: 0.25, crossfadeAttr: '0.5', cameraOrbit: '45deg 60deg 2m', exposureDefault: 1,
        exposure: 2.5, background: 'transparent', skinningDefault: 'linear', skinning: 'dual-quaternion',
        debug: 'skeleton weights', alt: 'A robot', paused: true, loaded: false, duration: 0, animations: [], isElement: true,
      });
    });

    it('a load not yet of known length shows a still bar, which slides only once a second has passed', async () => {
      const bar = await page.evaluate(async () => {
        const el = document.createElement('skinned-mesh-viewer');
        const progress = el.shadowRoot!.querySelector<HTMLElement>('.progress')!;
        // Read as the bar is first shown (the load starts once the viewer is seen near the viewport), before
        // the response can say its length.
        const seen = new Promise<{ shown: boolean; indeterminate: boolean; animation: string; delay: string }>((done) => {
          new MutationObserver((_, observer) => {
            if (progress.hidden) return;
            observer.disconnect();
            const style = getComputedStyle(progress.querySelector('.bar')!);
            done({ shown: true, indeterminate: progress.classList.contains('indeterminate'), animation: style.animationName, delay: style.animationDelay });
          }).observe(progress, { attributes: true });
        });
        document.getElementById('stage')!.append(el);
        el.setAttribute('src', '/assets/CesiumMan.glb');
        const result = await seen;
        el.remove();
        return result;
      });
      expect(bar).toEqual({ shown: true, indeterminate: true, animation: 'smv-slide', delay: '1s' });
    });

    it('fires progress and load; plays, seeks and ends a clip with animationend', async () => {
      await addViewer(page, 'events', { src: '/assets/CesiumMan.glb' });
      await whenLoaded(page, 'events');
      const state = await page.evaluate(() => {
        const el = window.helpers.viewer('events');
        return { events: window.helpers.events(el), animations: el.animations, duration: el.duration, name: el.model!.name, progress: window.helpers.progressVisible(el) };
      });
      const progress = state.events.filter((e) => e.type === 'progress');
      expect(progress.length).toBeGreaterThan(0);
      // model-viewer's totalProgress: a share of the bytes, then 1 once the model is on the GPU.
      expect(progress.at(-1)!.detail).toEqual({ loaded: 490956, total: 490956, totalProgress: 1, reason: 'model-load' });
      expect(progress.at(-2)!.detail).toEqual({ loaded: 490956, total: 490956, totalProgress: 0.95, reason: 'model-load' });
      const shares = progress.map((e) => e.detail.totalProgress as number);
      for (let i = 1; i < shares.length; i++) expect(shares[i]).toBeGreaterThanOrEqual(shares[i - 1]);
      expect(state.events.filter((e) => e.type === 'load')).toEqual([{ type: 'load', detail: { src: '/assets/CesiumMan.glb', url: '/assets/CesiumMan.glb' } }]);
      expect(state.events.findIndex((e) => e.type === 'load')).toBeGreaterThan(state.events.findIndex((e) => e.type === 'progress'));
      expect(state.name).toBe('CesiumMan.glb');
      expect(state.animations).toHaveLength(1);
      expect(state.duration).toBeGreaterThan(1);
      expect(state.progress).toBe(false);

      // A clip played once at double speed ends and says so.
      await addViewer(page, 'ending', { builtin: 'character', animation: 'Walk', speed: '2' });
      await whenLoaded(page, 'ending');
      const ended = await page.evaluate(async () => {
        const el = window.helpers.viewer('ending');
        const seekTo = 0.25;
        el.currentTime = seekTo;
        const seeked = el.currentTime;
        const end = new Promise<number>((resolve) => el.addEventListener('animationend', () => resolve(el.currentTime), { once: true }));
        el.play({ repetitions: 1 });
        const playing = !el.paused;
        const at = await end;
        return { seeked, playing, at, duration: el.duration, paused: el.paused, names: el.animations, events: window.helpers.events(el).filter((e) => e.type === 'animationend') };
      });
      expect(ended.seeked).toBeCloseTo(0.25, 6);
      expect(ended.playing).toBe(true);
      expect(ended.at).toBe(ended.duration);
      expect(ended.paused).toBe(true);
      expect(ended.names).toEqual(['Walk', 'Idle', 'Wave']);
      expect(ended.events).toEqual([{ type: 'animationend', detail: { index: 0, name: 'Walk' } }]);

      // Changing `animation` while playing crossfades (and the attribute follows crossfadeTo).
      const switched = await page.evaluate(async () => {
        const el = window.helpers.viewer('ending');
        el.loop = true;
        el.play();
        el.animation = 'Idle';
        await window.helpers.nextFrames(2);
        el.crossfadeTo(2, 0.1);
        return { attr: el.getAttribute('animation'), duration: el.duration };
      });
      expect(switched).toEqual({ attr: 'Wave', duration: 2.5 });
      expect(opened.consoleErrors).toEqual([]);
    }, 60_000);

    it('logs a load\'s warnings once per load with their JSON paths and puts them in the load event\'s detail', async () => {
      // The Fox has no NORMAL (a loader warning at meshes[0].primitives); CesiumMan loads clean.
      const before = opened.warnings.length;
      const loads = await page.evaluate(async () => {
        const details: { src: string; warnings: { path: string; message: string }[] }[] = [];
        const el = document.createElement('skinned-mesh-viewer');
        el.addEventListener('load', (e) => {
          const d = (e as CustomEvent).detail;
          details.push({ src: d.src, warnings: d.warnings.map((w: { path: string; message: string }) => ({ path: w.path, message: w.message })) });
        });
        document.getElementById('stage')!.append(el);
        for (const src of ['/assets/Fox.glb', '/assets/CesiumMan.glb', '/assets/Fox.glb']) {
          const loaded = new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
          el.src = src;
          await loaded;
        }
        return details;
      });
      const flatNormals = { path: 'meshes[0].primitives', message: '1 of 1 primitive(s) have no NORMAL; flat normals are derived per face when drawn' };
      expect(loads).toEqual([
        { src: '/assets/Fox.glb', warnings: [flatNormals] },
        { src: '/assets/CesiumMan.glb', warnings: [] },
        { src: '/assets/Fox.glb', warnings: [flatNormals] },
      ]);
      // One console.warn per load that has warnings (twice the Fox, never CesiumMan), naming the path.
      const logged = opened.warnings.slice(before).filter((w) => w.includes('loaded with'));
      expect(logged).toEqual([
        '<skinned-mesh-viewer> Fox.glb loaded with 1 warning:\n  meshes[0].primitives: 1 of 1 primitive(s) have no NORMAL; flat normals are derived per face when drawn',
        '<skinned-mesh-viewer> Fox.glb loaded with 1 warning:\n  meshes[0].primitives: 1 of 1 primitive(s) have no NORMAL; flat normals are derived per face when drawn',
      ]);
    }, 60_000);

    it('draws a material with every PBR extension (the generated quad): no WebGPU error, no extension warning in the load event, not the plain material\'s pixels', async () => {
      const every = everyExtensionQuad();
      const { json, bin } = parseGlb(every);
      // Control: the same file with the material's extensions removed (its textures left unused).
      const plainJson = structuredClone(json) as { materials: { extensions?: unknown }[] };
      delete plainJson.materials[0].extensions;
      const files: Record<string, Uint8Array> = { 'every-extension.glb': every, 'plain.glb': encodeGlb(plainJson, bin) };
      await serveFiles(page, 'generated', (name) => (files[name] ? { body: files[name], type: 'model/gltf-binary' } : undefined));
      const before = opened.warnings.length;
      const draw = (src: string) => page.evaluate(async ([url, t]) => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = url.replace(/\W/g, '-');
        el.style.width = el.style.height = '160px';
        el.setAttribute('camera-orbit', '20deg 75deg auto');
        let warnings: { path: string; message: string }[] = [];
        el.addEventListener('load', (e) => { warnings = (e as CustomEvent).detail.warnings; }, { once: true });
        el.setAttribute('src', url);
        document.getElementById('stage')!.append(el);
        await window.helpers.whenLoaded(el, t);
        // A still model draws one frame; capture() draws another (twice: the first may precede the transmission pass's pipelines).
        await window.helpers.waitForTotalFrames(el, 1);
        await window.helpers.captureBase64(el);
        const { base64 } = await window.helpers.captureBase64(el);
        el.remove();
        return { warnings: warnings.map((w) => `${w.path}: ${w.message}`), base64 };
      }, [src, LOAD_TIMEOUT] as const);
      const extended = await draw('/generated/every-extension.glb');
      expect(extended.warnings.filter((w) => /KHR_materials|extension/i.test(w))).toEqual([]);
      // The console has the load's warnings (none here) and the renderer's: the material samples 25
      // textures, so a device with fewer per stage (SwiftShader's Chromium gives 16) leaves the last
      // extension textures out, each warned by its JSON path (docs/loading.md, "the texture budget").
      const perStage = await page.evaluate(async () => (await navigator.gpu.requestAdapter())!.limits.maxSampledTexturesPerShaderStage);
      const logged = opened.warnings.slice(before).filter((w) => /KHR_materials/.test(w));
      if (perStage >= 25) expect(logged).toEqual([]);
      else {
        expect(logged.length).toBeGreaterThan(0);
        for (const w of logged) expect(w).toMatch(/materials\[0\]\.extensions\.KHR_materials_\w+\.\w+Texture: one pipeline may sample \d+ textures on this device/);
      }
      const plain = await draw('/generated/plain.glb');
      const a = decodeBase64Image(extended.base64), b = decodeBase64Image(plain.base64);
      writeArtifactPng('element-every-extension', a.width, a.height, a.data);
      expect(foregroundFraction(a)).toBeGreaterThan(0.1);
      // The extensions change the look (clearcoat, sheen, transmission, iridescence…): most of the quad differs.
      expect(changedFraction(a, b), 'every-extension vs plain').toBeGreaterThan(0.5 * foregroundFraction(b));
      expect(opened.consoleErrors).toEqual([]);
    }, 60_000);

    it('the last src set wins a race, whichever load finishes first', async () => {
      // Requests that have ended, answered or aborted: the stale load's end is what the check waits for.
      const ended: string[] = [];
      const onEnded = (request: Request) => { ended.push(new URL(request.url()).pathname); };
      page.on('requestfinished', onEnded);
      page.on('requestfailed', onEnded);
      // Slow A, then fast B: A arrives after B and must be ignored.
      await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = 'race1';
        window.helpers.watch(el);
        el.src = '/assets/slow/CesiumMan.glb';
        document.getElementById('stage')!.append(el);
        setTimeout(() => { el.src = '/assets/Fox.glb'; }, 50);
      });
      await whenLoaded(page, 'race1');
      // A's request has ended (aborted, or answered SLOW_MS in) and page frames have run since.
      await expect.poll(() => ended.includes('/assets/slow/CesiumMan.glb'), { interval: 10, timeout: 30_000 }).toBe(true);
      page.off('requestfinished', onEnded);
      page.off('requestfailed', onEnded);
      await page.evaluate(() => window.helpers.nextFrames(2));
      const first = await page.evaluate(() => {
        const el = window.helpers.viewer('race1');
        return { name: el.model?.name, loads: window.helpers.events(el).filter((e) => e.type === 'load') };
      });
      expect(first).toEqual({ name: 'Fox.glb', loads: [{ type: 'load', detail: { src: '/assets/Fox.glb', url: '/assets/Fox.glb' } }] });

      // Fast A, then slow B in the same task: only B loads.
      await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = 'race2';
        window.helpers.watch(el);
        el.src = '/assets/RiggedSimple.glb';
        document.getElementById('stage')!.append(el);
        el.src = '/assets/slow/RiggedFigure.glb';
      });
      await whenLoaded(page, 'race2');
      const second = await page.evaluate(() => {
        const el = window.helpers.viewer('race2');
        return { name: el.model?.name, loads: window.helpers.events(el).filter((e) => e.type === 'load') };
      });
      expect(second).toEqual({ name: 'RiggedFigure.glb', loads: [{ type: 'load', detail: { src: '/assets/slow/RiggedFigure.glb', url: '/assets/slow/RiggedFigure.glb' } }] });
    }, 60_000);

    it('removed while fetching, it drops that load and loads again when re-inserted', async () => {
      await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = 'interrupted';
        window.helpers.watch(el);
        el.src = '/assets/slow/RiggedSimple.glb';
        document.getElementById('stage')!.append(el);
      });
      // Removed once its fetch is under way (the slow asset answers SLOW_MS later), not after a fixed
      // sleep: under load the fetch may not have started 100 ms after insertion.
      await expect.poll(() => opened.requested.filter((r) => r === 'slow/RiggedSimple.glb').length, { interval: 10, timeout: 30_000 }).toBe(1);
      // The dropped fetch has ended (aborted, or answered) before the progress is read: nothing of it can come after.
      const ended: string[] = [];
      const onEnded = (request: Request) => { ended.push(new URL(request.url()).pathname); };
      page.on('requestfinished', onEnded);
      page.on('requestfailed', onEnded);
      type Detached = { interrupted: HTMLElement };
      await page.evaluate(() => {
        const el = window.helpers.viewer('interrupted');
        (window as unknown as Detached).interrupted = el;
        el.remove();
      });
      await expect.poll(() => ended.includes('/assets/slow/RiggedSimple.glb'), { interval: 10, timeout: 30_000 }).toBe(true);
      page.off('requestfinished', onEnded);
      page.off('requestfailed', onEnded);
      const result = await page.evaluate(async () => {
        const el = (window as unknown as Detached).interrupted as ReturnType<typeof window.helpers.viewer>;
        const stage = document.getElementById('stage')!;
        await window.helpers.nextFrames(2);
        const progressWhileDetached = window.helpers.progressVisible(el);
        stage.append(el);
        await window.helpers.whenLoaded(el);
        return { loads: window.helpers.events(el).filter((e) => e.type === 'load').length, progressWhileDetached, name: el.model?.name };
      });
      expect(result).toEqual({ loads: 1, progressWhileDetached: false, name: 'RiggedSimple.glb' });
      expect(opened.requested.filter((r) => r === 'slow/RiggedSimple.glb')).toHaveLength(2);
    });

    it('a bad src fires error and shows the message; the page and the other viewers keep working', async () => {
      await addViewer(page, 'witness', { builtin: 'character', autoplay: '', loop: '' });
      await addViewer(page, 'bad', {});
      const cases: [string, RegExp][] = [
        ['/assets/missing.glb', /HTTP 404/],
        ['/assets/not-gltf.glb', /JSON|glTF/i],
        ['/assets/truncated.glb', /GLB|length|bytes/i],
      ];
      for (const [src, pattern] of cases) {
        const error = await page.evaluate((s) => {
          const el = window.helpers.viewer('bad');
          const failed = window.helpers.whenError(el);
          el.src = s;
          return failed;
        }, src);
        expect(error.detail.kind, src).toBe('load');
        expect(error.detail.src).toBe(src);
        // model-viewer's names for the same.
        expect(error.detail.type).toBe('loadfailure');
        expect(error.detail.sourceError).toBe(error.detail.error);
        expect(String(error.detail.message)).toMatch(pattern);
        // The same words are in the element, visibly, after the file's name.
        const shown = await page.evaluate(() => window.helpers.messageOf(window.helpers.viewer('bad')));
        const file = src.slice(src.lastIndexOf('/') + 1);
        expect(shown).toEqual({ text: `Could not show ${file}\n${error.detail.message}`, visible: true });
        expect(error.message).toBe(shown.text);
      }
      const loadedAfter = await page.evaluate(() => window.helpers.viewer('bad').loaded);
      expect(loadedAfter).toBe(false);

      // The page still works: the witness keeps animating, and the bad viewer recovers.
      await whenLoaded(page, 'witness');
      const before = await frames(page, 'witness');
      await waitForFrames(page, 'witness', 5);
      expect(await frames(page, 'witness')).toBeGreaterThan(before);
      expect(foregroundFraction(await capture(page, 'witness'))).toBeGreaterThan(0.03);
      await page.evaluate(() => { window.helpers.viewer('bad').src = '/assets/RiggedSimple.glb'; });
      await whenLoaded(page, 'bad');
      expect(await page.evaluate(() => window.helpers.messageOf(window.helpers.viewer('bad')).visible)).toBe(false);
      // Only the browser's own network log mentions the 404.
      expect(opened.consoleErrors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    }, 60_000);

    it('loads a .gltf whose buffer is a separate file, relative to the .gltf', async () => {
      await addViewer(page, 'split', { src: '/assets/split/character.gltf' });
      await whenLoaded(page, 'split');
      expect(opened.requested).toContain('split/data/character buffer.bin');
      expect(foregroundFraction(await capture(page, 'split'))).toBeGreaterThan(0.03);
    });

    it('draws only while visible and only while something changes; follows resizes', async () => {
      await addViewer(page, 'lazy', { builtin: 'character' });
      await whenLoaded(page, 'lazy');
      await firstFrame(page, 'lazy');
      // Counted over the page's own animation frames, not a sleep: a busy machine draws fewer per second.
      const pageFrames = (n: number) => page.evaluate((count) => window.helpers.nextFrames(count), n);
      // Paused and unchanged: no frames.
      const idle = await frames(page, 'lazy');
      await pageFrames(10);
      expect(await frames(page, 'lazy')).toBe(idle);
      // One change, one frame: the one it asks for, then none.
      await page.evaluate(() => { window.helpers.viewer('lazy').exposure = 1.5; });
      await page.evaluate((total) => window.helpers.waitForTotalFrames(window.helpers.viewer('lazy'), total), idle + 1);
      await pageFrames(10);
      expect(await frames(page, 'lazy')).toBe(idle + 1);
      // Playing but scrolled out of view: no frames (once the visibility change has arrived, a frame later).
      await page.evaluate(() => {
        const el = window.helpers.viewer('lazy');
        el.style.cssText = 'position: absolute; top: 5000px';
        el.loop = true;
        el.play();
      });
      await pageFrames(3);
      const hidden = await frames(page, 'lazy');
      await pageFrames(10);
      expect(await frames(page, 'lazy')).toBe(hidden);
      // Back in view: the animation loop runs again.
      await page.evaluate(() => { window.helpers.viewer('lazy').style.cssText = ''; });
      await waitForFrames(page, 'lazy', 5);
      // Resized: the canvas follows its device-pixel box and the frame is drawn at that size.
      await page.evaluate(() => {
        const el = window.helpers.viewer('lazy');
        el.pause();
        el.style.cssText = 'width: 120px; height: 90px';
      });
      await page.waitForFunction(() => window.helpers.canvasOf(window.helpers.viewer('lazy')).width === 120);
      const resized = await capture(page, 'lazy');
      expect([resized.width, resized.height]).toEqual([120, 90]);
      expect(foregroundFraction(resized)).toBeGreaterThan(0.03);
    });

    it('at load the canvas already has the element\'s size: the load listener\'s canvas and toBlob(), for each of several viewers added one after another', async () => {
      // The ResizeObserver reports after the next animation frame's callbacks; a load before that
      // (any viewer after a page's first, on the built page) had the canvas's default 300×150.
      const sizes = [];
      for (let i = 0; i < 4; i++) {
        sizes.push(await page.evaluate(async ([id, timeout]) => {
          document.getElementById('stage')!.replaceChildren();
          const el = document.createElement('skinned-mesh-viewer');
          el.id = id;
          el.style.cssText = 'width: 240px; height: 180px';
          el.setAttribute('loading', 'eager');
          el.setAttribute('builtin', 'character');
          let canvas = '', blob: Promise<Blob> | undefined;
          el.addEventListener('load', () => {
            const c = window.helpers.canvasOf(el);
            canvas = `${c.width}×${c.height}`;
            blob = el.toBlob();
          });
          document.getElementById('stage')!.append(el);
          await window.helpers.whenLoaded(el, timeout);
          const image = await createImageBitmap(await blob!);
          const expected = `${Math.round(240 * devicePixelRatio)}×${Math.round(180 * devicePixelRatio)}`;
          return { expected, canvas, blob: `${image.width}×${image.height}` };
        }, [`sized-${i}`, LOAD_TIMEOUT] as const));
      }
      for (const size of sizes) expect({ canvas: size.canvas, blob: size.blob }).toEqual({ canvas: size.expected, blob: size.expected });
    });

    it('instances="N" draws a crowd of N in one draw per primitive; root-motion walks the character through the frame', async () => {
      await addViewer(page, 'crowd', { builtin: 'character', animation: 'Walk', instances: '9' });
      await whenLoaded(page, 'crowd');
      await firstFrame(page, 'crowd');
      const stats = () => page.evaluate(() => {
        const el = window.helpers.viewer('crowd');
        return { instances: el.stats!.instances, drawCalls: el.stats!.drawCalls, joints: el.stats!.joints, property: el.instances };
      });
      // The built-in character: one draw per primitive, 20 joints.
      expect(await stats()).toEqual({ instances: 9, drawCalls: characterPrimitives, joints: 9 * 20, property: 9 });
      const nine = await capture(page, 'crowd');
      writeArtifactPng('element-crowd-9', nine.width, nine.height, nine.data);
      expect(foregroundFraction(nine)).toBeGreaterThan(0.03);
      // The change draws one frame: wait for it (counted from before the change), not for a fixed time.
      await page.evaluate(async () => {
        const el = window.helpers.viewer('crowd');
        const drawn = window.instrument.frames(window.helpers.canvasOf(el));
        el.instances = 1;
        await window.helpers.waitForTotalFrames(el, drawn + 1);
      });
      expect((await stats()).instances).toBe(1);
      const one = await capture(page, 'crowd');
      expect(changedFraction(nine, one)).toBeGreaterThan(0.01);
      // Clamped to 1…100,000 (a CPU-evaluated crowd then draws at most 4096: test/element/stage.test.ts); on a detached element.
      expect(await page.evaluate(() => {
        const el = document.createElement('skinned-mesh-viewer');
        el.setAttribute('instances', '99999');
        const big = el.instances;
        el.setAttribute('instances', '0');
        return [big, el.instances];
      })).toEqual([99999, 1]);
      await page.evaluate(() => { window.helpers.viewer('crowd').instances = 1; });

      // Paused Walk with root motion: the character stands on the circle's edge; playing moves it across the canvas.
      await page.evaluate(async () => {
        const el = window.helpers.viewer('crowd');
        const drawn = window.instrument.frames(window.helpers.canvasOf(el));
        el.rootMotion = true;
        await window.helpers.waitForTotalFrames(el, drawn + 1);
      });
      expect(await page.evaluate(() => window.helpers.viewer('crowd').getAttribute('root-motion'))).toBe('');
      const start = await capture(page, 'crowd');
      await page.evaluate(() => window.helpers.viewer('crowd').play());
      await waitForFrames(page, 'crowd', 20);
      await page.evaluate(() => window.helpers.viewer('crowd').pause());
      await page.evaluate(() => window.helpers.nextFrames(2));
      const walked = await capture(page, 'crowd');
      writeArtifactPng('element-root-motion-start', start.width, start.height, start.data);
      writeArtifactPng('element-root-motion-walked', walked.width, walked.height, walked.data);
      const centroid = (image: typeof start): number[] => {
        let n = 0, sx = 0, sy = 0;
        for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) {
          if (image.data[(y * image.width + x) * 4 + 3] > 8) { n++; sx += x; sy += y; }
        }
        return [sx / n, sy / n];
      };
      const [a, b] = [centroid(start), centroid(walked)];
      // The character's silhouette moved across the canvas (not just its limbs).
      expect(Math.hypot(b[0] - a[0], b[1] - a[1]), `centroid ${a} → ${b}`).toBeGreaterThan(3);
      expect(foregroundFraction(walked)).toBeGreaterThan(0.002);
    });

    it('instances works for any loaded model: a crowd of Foxes, each running from its own phase', async () => {
      await addViewer(page, 'foxes', { src: '/assets/Fox.glb', animation: 'Run', instances: '6', 'root-motion': '' });
      await whenLoaded(page, 'foxes');
      await firstFrame(page, 'foxes');
      const s = await page.evaluate(() => { const st = window.helpers.viewer('foxes').stats!; return [st.instances, st.joints]; });
      expect(s).toEqual([6, 6 * 24]);
      const image = await capture(page, 'foxes');
      writeArtifactPng('element-crowd-fox', image.width, image.height, image.data);
      // Six small foxes on a grid framed whole (a fox is long, so the grid is wide).
      expect(foregroundFraction(image)).toBeGreaterThan(0.005);
    });

    it('does not autoplay when the user prefers reduced motion; play() still works', async () => {
      await page.emulateMedia({ reducedMotion: 'reduce' });
      try {
        await addViewer(page, 'calm', { builtin: 'character', autoplay: '', loop: '' });
        await whenLoaded(page, 'calm');
        expect(await page.evaluate(() => window.helpers.viewer('calm').paused)).toBe(true);
        await page.evaluate(() => window.helpers.viewer('calm').play());
        expect(await page.evaluate(() => window.helpers.viewer('calm').paused)).toBe(false);
      } finally {
        await page.emulateMedia({ reducedMotion: 'no-preference' });
      }
    });

    it('applies camera-orbit, background, exposure, debug views and skinning; warns (only) about an unknown skinning', async () => {
      await addViewer(page, 'look', { builtin: 'character', background: '#ff0000', 'camera-orbit': '1.5rad 1rad 3m' });
      await whenLoaded(page, 'look');
      const orbit = await page.evaluate(() => String(window.helpers.viewer('look').getCameraOrbit()));
      expect(orbit).toBe('1.5rad 1rad 3m');
      const red = await capture(page, 'look');
      expect([...red.data.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
      await page.evaluate(() => { window.helpers.viewer('look').background = 'rebeccapurple'; });
      expect([...(await capture(page, 'look')).data.subarray(0, 4)]).toEqual([102, 51, 153, 255]);
      await page.evaluate(() => { window.helpers.viewer('look').background = 'transparent'; });
      const clear = await capture(page, 'look');
      expect(clear.data[3]).toBe(0);
      const brightness = (image: Rgba8Image) => {
        let sum = 0;
        for (let i = 0; i < image.data.length; i += 4) if (image.data[i + 3] === 255) sum += image.data[i] + image.data[i + 1] + image.data[i + 2];
        return sum;
      };
      await page.evaluate(() => { window.helpers.viewer('look').exposure = 3; });
      expect(brightness(await capture(page, 'look'))).toBeGreaterThan(brightness(clear) * 1.2);

      // Debug views are drawn over the model once built (asynchronously), and go away again.
      await page.evaluate(() => { window.helpers.viewer('look').exposure = 1; });
      const plain = await capture(page, 'look');
      await page.evaluate(() => { window.helpers.viewer('look').debug = 'skeleton wireframe'; });
      await expect.poll(async () => changedFraction(plain, await capture(page, 'look'), 16), { timeout: 15_000 }).toBeGreaterThan(0.005);
      const debugged = await capture(page, 'look');
      writeArtifactPng('element-debug-skeleton-wireframe', debugged.width, debugged.height, debugged.data);
      await page.evaluate(() => { window.helpers.viewer('look').debug = null; });
      expect(maxDifference(plain, await capture(page, 'look'))).toBe(0);

      const errorsBefore = await page.evaluate(() => window.helpers.events(window.helpers.viewer('look')).filter((e) => e.type === 'error').length);
      // Dual quaternions reach the renderer (pipelines are built on first use, then a frame is drawn).
      await page.evaluate(() => { window.helpers.viewer('look').skinning = 'dual-quaternion'; });
      await expect.poll(() => page.evaluate(() => (window.helpers.viewer('look') as unknown as { stats?: unknown }).stats !== undefined)).toBe(true);
      expect(opened.warnings.some((w) => w.includes('skinning='))).toBe(false);
      await page.evaluate(() => { window.helpers.viewer('look').skinning = 'spherical'; });
      expect(opened.warnings.some((w) => w.includes('skinning="spherical"'))).toBe(true);
      expect(await page.evaluate(() => window.helpers.events(window.helpers.viewer('look')).filter((e) => e.type === 'error').length)).toBe(errorsBefore);
      expect(foregroundFraction(await capture(page, 'look'))).toBeGreaterThan(0.03);
    });

    it('skinning="dual-quaternion" and "center-of-rotation" keep the twisted cylinder\'s waist that linear blending collapses', async () => {
      // On the plain page: a page of its own would compile the device's pipelines again. Measures
      // of earlier tests' workers are cleared, so the one below is this cylinder's.
      await page.evaluate(() => performance.clearMeasures('skinned-mesh-webgpu:centers-of-rotation-worker'));
      // Front view, paused at the end of "Twist" (180°).
      await addViewer(page, 'twist', { builtin: 'twist-cylinder', animation: 'Twist', 'camera-orbit': '0deg 90deg auto' });
      await whenLoaded(page, 'twist');
      // (A repeating clip, play()'s default, wraps a seek to its duration back to 0; a clip played once stays at its end.)
      await page.evaluate(() => { const v = window.helpers.viewer('twist'); v.play({ repetitions: 1 }); v.pause(); v.currentTime = v.duration; });
      /** Widest run of model pixels across the middle row of the image. */
      const waist = (image: Rgba8Image): number => {
        const y = Math.floor(image.height / 2), bg = image.data.subarray(0, 4);
        let n = 0;
        for (let x = 0; x < image.width; x++) {
          const i = (y * image.width + x) * 4;
          if (Math.abs(image.data[i] - bg[0]) + Math.abs(image.data[i + 1] - bg[1]) + Math.abs(image.data[i + 2] - bg[2]) + Math.abs(image.data[i + 3] - bg[3]) > 24) n++;
        }
        return n;
      };
      const linear = waist(await capture(page, 'twist'));
      await page.evaluate(() => { window.helpers.viewer('twist').skinning = 'dual-quaternion'; });
      // The DQS pipelines are built on first use; frames keep the old method until then.
      await expect.poll(async () => waist(await capture(page, 'twist')), { timeout: 20_000 }).toBeGreaterThan(linear * 4 + 4);
      await page.evaluate(() => { window.helpers.viewer('twist').skinning = 'linear'; });
      await expect.poll(async () => waist(await capture(page, 'twist')), { timeout: 20_000 }).toBeLessThanOrEqual(linear + 1);
      // Centres of rotation: computed in the page's worker, then drawn; the waist stays as wide as DQS's.
      await page.evaluate(() => { window.helpers.viewer('twist').skinning = 'center-of-rotation'; });
      await expect.poll(async () => waist(await capture(page, 'twist')), { timeout: 30_000 }).toBeGreaterThan(linear * 4 + 4);
      const measures = await page.evaluate(() => performance.getEntriesByName('skinned-mesh-webgpu:centers-of-rotation-worker').map((e) => (e as PerformanceMeasure).detail as string));
      expect(measures).toContain('meshes[0].primitives[0]');
    });
  });

  it('without WebGPU, shows a message instead of a blank box and fires error', async () => {
    const { page } = await open('element-nogpu.html');
    try {
      await page.waitForFunction(() => window.helpers.events(window.helpers.viewer('viewer')).some((e) => e.type === 'error'));
      const state = await page.evaluate(() => {
        const el = window.helpers.viewer('viewer');
        return { events: window.helpers.events(el), message: window.helpers.messageOf(el), upgraded: el.cameraControls && el.hasAttribute('camera-controls') };
      });
      expect(state.events.map((e) => e.type)).toEqual(['error']);
      expect(state.events[0].detail.kind).toBe('webgpu-unsupported');
      expect(state.message.visible).toBe(true);
      expect(state.message.text).toMatch(/WebGPU/);
      expect(state.message.text).toBe(state.events[0].detail.message);
      // A property set before the element was defined went through the setter.
      expect(state.upgraded).toBe(true);
      await page.screenshot({ path: 'test-artifacts/element-no-webgpu.png', clip: { x: 0, y: 0, width: 320, height: 170 } });
    } finally {
      await page.close();
    }
  });
});
