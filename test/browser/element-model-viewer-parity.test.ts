/**
 * Issue 28: what model-viewer 4.4.0's own example pages and tests do that only needs the tag
 * renamed, in real Chromium (WebGPU on SwiftShader). Each test is written from model-viewer's
 * documentation and the names of its tests in `@google/model-viewer/src/test` (quoted in the
 * test names), and reads only what a model-viewer page can see: attributes, properties,
 * methods, events, its own slotted children and the page's own listeners.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { openElementPage } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> as model-viewer 4.4 pages and tests use it', () => {
  const session = useBrowserSession();
  let page: Page;
  let warnings: string[];
  beforeAll(async () => {
    ({ page, warnings } = await openElementPage(session));
  }, 60_000);
  beforeEach(async () => {
    await page.evaluate(() => document.getElementById('stage')!.replaceChildren());
  });

  /** Appends a viewer with `attributes` (and `inner` markup) to #stage, sized by `style`; resolves once it loaded. */
  async function addViewer(id: string, attributes: Record<string, string>, style = '', inner = ''): Promise<void> {
    await page.evaluate(([i, attrs, css, html, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = i;
      if (css) el.style.cssText = css;
      el.innerHTML = html;
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      document.getElementById('stage')!.append(el);
      return window.helpers.whenLoaded(el, t);
    }, [id, { loading: 'eager', ...attributes }, style, inner, LOAD_TIMEOUT] as const);
  }

  describe('slot="progress-bar"', () => {
    it('a page\'s own progress bar is slotted in the element, shown while loading and driven by the page\'s progress listener (model-viewer\'s loading example)', async () => {
      const seen = await page.evaluate(async (t) => {
        const style = document.createElement('style');
        style.textContent = `
          .progress-bar { display: block; position: absolute; left: 25%; top: 45%; width: 50%; height: 10%; background: #ccc; }
          .progress-bar.hide { visibility: hidden; }
          .update-bar { height: 100%; width: 0; background: #333; }`;
        document.head.append(style);
        const el = document.createElement('skinned-mesh-viewer');
        el.setAttribute('src', '/assets/slow/Fox.glb');
        el.setAttribute('loading', 'eager');
        el.innerHTML = '<div class="progress-bar hide" slot="progress-bar"><div class="update-bar"></div></div>';
        const bar = el.querySelector<HTMLElement>('.progress-bar')!;
        const update = el.querySelector<HTMLElement>('.update-bar')!;
        const progress: number[] = [];
        let partway: () => void = () => {};
        const firstPartway = new Promise<void>((resolve) => { partway = resolve; });
        el.addEventListener('progress', (event) => {
          const fraction = (event as CustomEvent<{ totalProgress: number }>).detail.totalProgress;
          progress.push(fraction);
          update.style.width = `${fraction * 100}%`;
          bar.classList.toggle('hide', fraction === 1);
          if (fraction < 1) partway();
        });
        const loaded = window.helpers.whenLoaded(el, t);
        document.getElementById('stage')!.append(el);
        // The asset answers 700 ms later: the page's bar is up meanwhile, from the first progress
        // short of 1 (if loading ends first, the bar reads hidden and the check fails).
        await Promise.race([firstPartway, loaded]);
        const host = el.getBoundingClientRect(), rect = bar.getBoundingClientRect();
        const during = {
          slotted: bar.assignedSlot !== null,
          inside: rect.width > 0 && rect.height > 0 && rect.left >= host.left && rect.right <= host.right && rect.top >= host.top && rect.bottom <= host.bottom,
          shown: getComputedStyle(bar).visibility === 'visible',
        };
        await loaded;
        return { during, last: progress.at(-1), hiddenAfter: bar.classList.contains('hide'), width: update.style.width };
      }, LOAD_TIMEOUT);
      expect(seen).toEqual({ during: { slotted: true, inside: true, shown: true }, last: 1, hiddenAfter: true, width: '100%' });
    });
  });

  describe('pointer events', () => {
    it('a page\'s own mousedown and mouseup listeners on the element fire over an interactive model, pointerdown is not cancelled, and the drag still orbits', async () => {
      await addViewer('press', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0' }, 'width: 300px; height: 200px');
      await page.evaluate(() => {
        const el = window.helpers.viewer('press');
        const log: string[] = [];
        (window as unknown as { pressLog: string[] }).pressLog = log;
        el.addEventListener('mousedown', (e) => log.push(`mousedown shift=${e.shiftKey}`));
        el.addEventListener('mouseup', () => log.push('mouseup'));
        // After the element's own listeners: what a page sees of the pointerdown.
        document.addEventListener('pointerdown', (e) => log.push(`pointerdown cancelled=${e.defaultPrevented}`));
      });
      const theta = () => page.evaluate(() => window.helpers.viewer('press').getCameraOrbit().theta);
      const before = await theta();
      const box = (await page.locator('#press').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
      await page.keyboard.down('Shift');
      await page.mouse.down();
      await page.mouse.up();
      await page.keyboard.up('Shift');
      expect(await page.evaluate(() => (window as unknown as { pressLog: string[] }).pressLog)).toEqual([
        'pointerdown cancelled=false', 'mousedown shift=false', 'mouseup',
        'pointerdown cancelled=false', 'mousedown shift=true', 'mouseup',
      ]);
      await expect.poll(theta).not.toBeCloseTo(before, 3);
    });
  });

  describe('interact()', () => {
    it('"synthetic interaction": a one-finger gesture orbits as a drag would, its camera changes say automatic, interact-stopped follows; a second call warns; setting camera-orbit stops one', async () => {
      await addViewer('gesture', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0', 'camera-orbit': '0deg 90deg 4m' },
        'width: 300px; height: 200px', '<div slot="finger0" style="width: 10px; height: 10px; background: red"></div>');
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('gesture');
        const sources = new Set<string>();
        el.addEventListener('camera-change', (e) => sources.add((e as CustomEvent<{ source: string }>).detail.source));
        const stopped = () => new Promise<string>((resolve) => el.addEventListener('interact-stopped', (e) => resolve((e as CustomEvent<{ source: string }>).detail.source), { once: true }));
        const finger = document.querySelector('[slot="finger0"]')!;
        const theta = el.getCameraOrbit().theta;
        let done = stopped();
        // Left to right across a third of the element, level.
        el.interact(1500, { x: { initialValue: 0.3, keyframes: [{ frames: 1, value: 0.63 }] }, y: { initialValue: 0.5, keyframes: [{ frames: 1, value: 0.5 }] } });
        el.interact(400, { x: { initialValue: 0, keyframes: [] }, y: { initialValue: 0, keyframes: [] } });
        // The finger fades in (an opacity transition): shown within a few frames.
        let fingerShown = false;
        for (let i = 0; i < 20 && !fingerShown; i++) {
          await window.helpers.nextFrames(1);
          fingerShown = finger.checkVisibility({ opacityProperty: true });
        }
        const ended = await done;
        await window.helpers.nextFrames(2);
        const turned = el.getCameraOrbit().theta - theta;
        // A long gesture, stopped by a camera-orbit set meanwhile.
        done = stopped();
        el.interact(60_000, { x: { initialValue: 0.3, keyframes: [{ frames: 1, value: 0.7 }] }, y: { initialValue: 0.5, keyframes: [{ frames: 1, value: 0.5 }] } });
        await window.helpers.nextFrames(2);
        el.cameraOrbit = '30deg 90deg 4m';
        const interrupted = await done;
        return { ended, interrupted, turned, sources: [...sources], fingerShown };
      });
      expect(result.ended).toBe('automatic');
      expect(result.interrupted).toBe('none');
      expect(result.fingerShown).toBe(true);
      // Dragging right turns the model right: the camera's theta goes down, by π per element height (100 px of 200).
      expect(result.turned).toBeCloseTo(-Math.PI * (0.33 * 300) / 200, 1);
      expect(result.sources).toContain('automatic');
      expect(result.sources).not.toContain('user-interaction');
      expect(warnings.some((w) => w.includes('an existing interaction is running'))).toBe(true);
    });
  });

  describe('interact() and the user', () => {
    it('the user\'s own drag during a gesture ends it with interact-stopped {source: "user-interaction"}', async () => {
      await addViewer('taken', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0' }, 'width: 300px; height: 200px');
      await page.evaluate(() => {
        const el = window.helpers.viewer('taken');
        (window as unknown as { stopped: Promise<string> }).stopped = new Promise((resolve) => el.addEventListener('interact-stopped', (e) => resolve((e as CustomEvent<{ source: string }>).detail.source), { once: true }));
        el.interact(60_000, { x: { initialValue: 0.5, keyframes: [{ frames: 1, value: 0.9 }] }, y: { initialValue: 0.5, keyframes: [{ frames: 1, value: 0.5 }] } });
      });
      const box = (await page.locator('#taken').boundingBox())!;
      await page.mouse.move(box.x + 40, box.y + 40);
      await page.mouse.down();
      await page.mouse.move(box.x + 90, box.y + 60, { steps: 3 });
      await page.mouse.up();
      expect(await page.evaluate(() => (window as unknown as { stopped: Promise<string> }).stopped)).toBe('user-interaction');
    });
  });

  describe('pan target', () => {
    it('a page\'s slot="pan-target" element shows at the pivot while a pointer pans, and goes when it lets go', async () => {
      await addViewer('pan', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0' }, 'width: 300px; height: 200px',
        '<div slot="pan-target" style="width: 8px; height: 8px; background: red"></div>');
      const shown = () => page.evaluate(() => window.helpers.viewer('pan').querySelector('[slot="pan-target"]')!.checkVisibility({ opacityProperty: true }));
      expect(await shown()).toBe(false);
      const box = (await page.locator('#pan').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down({ button: 'right' });
      await page.mouse.move(box.x + box.width / 2 + 30, box.y + box.height / 2, { steps: 3 });
      await expect.poll(shown).toBe(true);
      await page.mouse.up({ button: 'right' });
      await expect.poll(shown).toBe(false);
      // An orbit (plain drag) is no pan: it stays off.
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2, { steps: 3 });
      expect(await shown()).toBe(false);
      await page.mouse.up();
    });
  });

  describe('camera values', () => {
    it('"can independently adjust azimuth" and target: a changed field of getCameraOrbit() / getCameraTarget() is in its toString(), which camera-orbit / camera-target take back', async () => {
      await addViewer('round', { builtin: 'character', 'camera-orbit': '0.5rad 1.2rad 4m', 'interpolation-decay': '0' });
      const result = await page.evaluate(() => {
        const el = window.helpers.viewer('round');
        el.jumpCameraToGoal();
        const orbit = el.getCameraOrbit() as { theta: number; phi: number; radius: number; toString(): string };
        const start = { theta: orbit.theta, phi: orbit.phi, radius: orbit.radius };
        orbit.theta += 1;
        orbit.radius -= 1;
        el.cameraOrbit = orbit.toString();
        el.jumpCameraToGoal();
        const moved = el.getCameraOrbit();
        const target = el.getCameraTarget() as { x: number; y: number; z: number; toString(): string };
        target.x += 1;
        target.z += 1;
        const written = target.toString();
        el.cameraTarget = written;
        el.jumpCameraToGoal();
        return { start, moved: { theta: moved.theta, phi: moved.phi, radius: moved.radius }, written, target: el.getCameraTarget().toString() };
      });
      expect(result.start).toEqual({ theta: expect.closeTo(0.5, 12), phi: expect.closeTo(1.2, 12), radius: expect.closeTo(4, 12) });
      expect(result.moved).toEqual({ theta: expect.closeTo(1.5, 12), phi: expect.closeTo(1.2, 12), radius: expect.closeTo(3, 12) });
      expect(result.target).toBe(result.written);
    });

    it('"starts at the initially configured orbit": the orbit\'s fields written back as `${theta}rad ${phi}rad ${radius}m` are camera-orbit exactly', async () => {
      await addViewer('exact', { builtin: 'character', 'camera-orbit': '1rad 1rad 2.5m', 'interpolation-decay': '0' });
      const text = await page.evaluate(() => {
        const el = window.helpers.viewer('exact');
        el.jumpCameraToGoal();
        const o = el.getCameraOrbit();
        return [`${o.theta}rad ${o.phi}rad ${o.radius}m`, String(o)];
      });
      expect(text).toEqual(['1rad 1rad 2.5m', '1rad 1rad 2.5m']);
    });
  });

  describe('field of view', () => {
    it('"defaults FOV correctly", "defaults FOV limits correctly" (12°…30°) and "defaults maxFieldOfView correctly" (180deg gives 30°)', async () => {
      await addViewer('fov', { builtin: 'character', 'camera-orbit': '0deg 90deg 4m' }, 'width: 300px; height: 150px');
      const read = () => page.evaluate(() => {
        const el = window.helpers.viewer('fov');
        el.jumpCameraToGoal();
        return [el.getFieldOfView(), el.getMinimumFieldOfView(), el.getMaximumFieldOfView()];
      });
      expect(await read()).toEqual([expect.closeTo(30, 9), expect.closeTo(12, 9), expect.closeTo(30, 9)]);
      await page.evaluate(() => { window.helpers.viewer('fov').fieldOfView = '180deg'; });
      expect((await read())[0]).toBeCloseTo(30, 9);
      await page.evaluate(() => { window.helpers.viewer('fov').fieldOfView = '1deg'; });
      expect((await read())[0]).toBeCloseTo(12, 9);
    });

    it('"changes FOV basis when aspect ratio changes": taller than the framed model\'s aspect, the vertical field of view (and its maximum) widens', async () => {
      await addViewer('tall', { src: '/assets/Fox.glb', 'camera-orbit': '90deg 90deg auto' }, 'width: 300px; height: 150px');
      const read = () => page.evaluate(() => {
        const el = window.helpers.viewer('tall');
        el.jumpCameraToGoal();
        return { fov: el.getFieldOfView(), max: el.getMaximumFieldOfView(), ideal: el.getIdealAspect() };
      });
      const wide = await read();
      expect(wide.fov).toBeCloseTo(30, 9);
      // The Fox seen from the side is about twice as wide as tall.
      expect(wide.ideal).toBeGreaterThan(1);
      await page.evaluate(() => { window.helpers.viewer('tall').style.cssText = 'width: 100px; height: 300px'; });
      await expect.poll(async () => (await read()).fov, { timeout: 10_000 }).toBeGreaterThan(31);
      const narrow = await read();
      expect(narrow.max).toBeCloseTo(narrow.fov, 9);
      // What 4.4's ModelScene.adjustedFoV gives for the aspect: tan(fov/2) grows by idealAspect / aspect.
      const expected = (2 * Math.atan(Math.tan(Math.PI / 12) * (narrow.ideal / (100 / 300))) * 180) / Math.PI;
      expect(narrow.fov).toBeCloseTo(expected, 1);
    });
  });

  describe('camera methods and properties', () => {
    it('zoom(keyPresses) zooms as the wheel would, only with camera-controls and without disable-zoom; turntableRotation is the turntable\'s angle', async () => {
      await addViewer('zoom', { builtin: 'character', 'camera-controls': '', 'interpolation-decay': '0', 'camera-orbit': '0deg 90deg 4m' });
      const radius = (presses: number) => page.evaluate((n) => {
        const el = window.helpers.viewer('zoom');
        el.zoom(n);
        el.jumpCameraToGoal();
        return el.getCameraOrbit().radius;
      }, presses);
      const inward = await radius(3);
      expect(inward).toBeLessThan(4 * 0.9);
      expect(await radius(-3)).toBeCloseTo(4, 9);
      await page.evaluate(() => { window.helpers.viewer('zoom').disableZoom = true; });
      expect(await radius(3)).toBeCloseTo(4, 9);
      await page.evaluate(() => { const el = window.helpers.viewer('zoom'); el.disableZoom = false; el.cameraControls = false; });
      expect(await radius(3)).toBeCloseTo(4, 9);
      expect(await page.evaluate(() => {
        const el = window.helpers.viewer('zoom');
        el.resetTurntableRotation(1.25);
        return el.turntableRotation;
      })).toBe(1.25);
    });
  });

  describe('staging and prompt, as 4.4 defines them', () => {
    it('rotation-per-second is π/32 rad/s by default, and "-100%" turns the other way at that rate', async () => {
      await addViewer('spin', { builtin: 'character', 'animation-name': 'Idle', 'auto-rotate': '', 'auto-rotate-delay': '0' });
      await expect.poll(() => page.evaluate(() => window.helpers.viewer('spin').modelIsVisible)).toBe(true);
      // Each animation frame's timestamp, as every callback of the frame (the element's too) gets it.
      await page.evaluate(() => {
        const raf = window.requestAnimationFrame;
        const times: number[] = [];
        Object.assign(window, { spinTimes: times });
        window.requestAnimationFrame = (callback) => raf((t) => {
          if (times[times.length - 1] !== t) times.push(t);
          callback(t);
        });
      });
      /**
       * How far the turntable turns over 10 frames, against what `rate` rad/s gives for those frames'
       * own steps (at most 0.25 s each, as the element's): counted, not timed.
       */
      const turnsAt = (rate: number) => page.evaluate(async (r) => {
        const el = window.helpers.viewer('spin');
        const times = (window as unknown as { spinTimes: number[] }).spinTimes;
        await window.helpers.nextFrames(2);
        const a0 = el.turntableRotation, n0 = times.length;
        await window.helpers.nextFrames(10);
        let seconds = 0;
        for (let i = n0; i < times.length; i++) seconds += Math.min(0.25, (times[i] - times[i - 1]) / 1000);
        const turned = el.turntableRotation - a0;
        return { error: turned - r * seconds - 2 * Math.PI * Math.round((turned - r * seconds) / (2 * Math.PI)), turned };
      }, rate);
      const forward = await turnsAt(Math.PI / 32);
      expect(Math.abs(forward.error)).toBeLessThan(1e-9);
      expect(forward.turned).toBeGreaterThan(0);
      await page.evaluate(() => { window.helpers.viewer('spin').rotationPerSecond = '-100%'; });
      const backward = await turnsAt(-Math.PI / 32);
      expect(Math.abs(backward.error)).toBeLessThan(1e-9);
      expect(backward.turned).toBeLessThan(0);
    });

    it('--interaction-prompt-display: none keeps a page\'s own slot="interaction-prompt" element off while the prompt is up', async () => {
      await addViewer('prompt', { builtin: 'limb', 'camera-controls': '', 'interaction-prompt-threshold': '0' }, '',
        '<div slot="interaction-prompt" style="width: 20px; height: 20px; background: red"></div>');
      const shown = () => page.evaluate(() => window.helpers.viewer('prompt').querySelector('[slot="interaction-prompt"]')!.checkVisibility());
      await expect.poll(shown).toBe(true);
      await page.evaluate(() => window.helpers.viewer('prompt').style.setProperty('--interaction-prompt-display', 'none'));
      expect(await shown()).toBe(false);
    });
  });

  describe('limits', () => {
    it('"jumps to maxCameraOrbit / minCameraOrbit / maxFieldOfView / minFieldOfView when outside": within the same task, no easing', async () => {
      await addViewer('jump', { builtin: 'character', 'camera-orbit': '0deg 90deg 2.5m', 'interpolation-decay': '1000' });
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('jump');
        el.jumpCameraToGoal();
        const orbitText = () => { const o = el.getCameraOrbit(); return `${o.theta}rad ${o.phi}rad ${o.radius}m`; };
        const out: Record<string, unknown> = {};
        el.maxCameraOrbit = '-2rad 1rad 2m';
        await Promise.resolve();
        out.max = orbitText();
        el.maxCameraOrbit = null;
        el.minCameraOrbit = '2rad 2rad 3m';
        await Promise.resolve();
        out.min = orbitText();
        el.minFieldOfView = '60deg';
        await Promise.resolve();
        out.minFov = el.getFieldOfView();
        el.minFieldOfView = null;
        el.fieldOfView = '25deg';
        el.jumpCameraToGoal();
        el.maxFieldOfView = '15deg';
        await Promise.resolve();
        out.maxFov = el.getFieldOfView();
        return out;
      });
      expect(result).toEqual({ max: '-2rad 1rad 2m', min: '2rad 2rad 3m', minFov: expect.closeTo(60, 9), maxFov: expect.closeTo(15, 9) });
    });
  });

  describe('appended animations', () => {
    it('"when appendAnimation is invoked": append-animation fires, the model plays, the clip is in appendedAnimations; detachAnimation fires detach-animation', async () => {
      await addViewer('append', { builtin: 'character', 'animation-name': 'Idle' });
      const result = await page.evaluate(async () => {
        const el = window.helpers.viewer('append');
        const fired: string[] = [];
        el.addEventListener('append-animation', () => fired.push('append-animation'));
        el.addEventListener('detach-animation', () => fired.push('detach-animation'));
        const pausedBefore = el.paused;
        const appended = new Promise((resolve) => el.addEventListener('append-animation', resolve, { once: true }));
        el.appendAnimation('Wave', { weight: 1 });
        await appended;
        const after = { paused: el.paused, appended: [...el.appendedAnimations] };
        el.detachAnimation('Wave', { fade: false });
        return { pausedBefore, after, appendedAfterDetach: [...el.appendedAnimations], fired };
      });
      expect(result).toEqual({
        pausedBefore: true, after: { paused: false, appended: ['Wave'] }, appendedAfterDetach: [],
        fired: ['append-animation', 'detach-animation'],
      });
    });
  });

  describe('before-render', () => {
    it('fires once per load, before load and before the model\'s first frame is shown', async () => {
      const result = await page.evaluate(async (t) => {
        const el = document.createElement('skinned-mesh-viewer');
        el.setAttribute('builtin', 'character');
        el.setAttribute('loading', 'eager');
        const order: string[] = [];
        el.addEventListener('before-render', () => order.push(`before-render visible=${el.modelIsVisible} loaded=${el.loaded}`));
        el.addEventListener('load', () => order.push('load'));
        el.addEventListener('model-visibility', (e) => order.push(`model-visibility ${(e as CustomEvent<{ visible: boolean }>).detail.visible}`));
        document.getElementById('stage')!.append(el);
        await window.helpers.whenLoaded(el, t);
        await window.helpers.nextFrames(3);
        el.setAttribute('builtin', 'limb');
        await window.helpers.nextLoad(el, t);
        await window.helpers.nextFrames(3);
        return order;
      }, LOAD_TIMEOUT);
      // A new source takes the old model down while it loads (model-visibility false), then shows the new one.
      expect(result).toEqual([
        'before-render visible=false loaded=true', 'load', 'model-visibility true', 'model-visibility false',
        'before-render visible=false loaded=true', 'load', 'model-visibility true',
      ]);
    });
  });
});
