/**
 * model-viewer 4.4's `<extra-model>` children on <skinned-mesh-viewer>, in real Chromium
 * (WebGPU on SwiftShader). Test names follow model-viewer's
 * `src/test/features/extra-model-spec.ts` and `loading-spec.ts`; what is checked is what a
 * page sees — `load` events, `availableAnimations`, `duration`, `getDimensions()`,
 * `getBoundingBoxCenter()`, hotspots, and the pixels of `toBlob()`.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { writeArtifactPng } from '../support/png.ts';
import { changedFraction, decodeBase64Image, foregroundFraction, openElementPage, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;

describe.skipIf(!!unavailable)('<extra-model> children (model-viewer 4.4)', () => {
  const session = useBrowserSession();
  let page: Page;
  let warnings: string[];
  beforeAll(async () => {
    ({ page, warnings } = await openElementPage(session));
  }, 60_000);
  beforeEach(async () => {
    await page.evaluate(() => document.getElementById('stage')!.replaceChildren());
  });

  /** Adds a viewer with `attributes` and `<extra-model>` children (their attributes), counting its load events; resolves at its first load. */
  async function addViewer(attributes: Record<string, string>, extras: Record<string, string>[], style = 'width: 240px; height: 240px'): Promise<void> {
    await page.evaluate(([attrs, children, css, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'viewer';
      el.style.cssText = css;
      for (const [k, v] of Object.entries({ loading: 'eager', 'interpolation-decay': '0', ...attrs })) el.setAttribute(k, v);
      for (const extra of children) {
        const child = document.createElement('extra-model');
        for (const [k, v] of Object.entries(extra)) child.setAttribute(k, v);
        el.append(child);
      }
      const loads: string[] = [];
      (window as unknown as { loads: string[] }).loads = loads;
      el.addEventListener('load', (e) => loads.push((e as CustomEvent<{ url: string }>).detail.url));
      document.getElementById('stage')!.append(el);
      return window.helpers.whenLoaded(el, t);
    }, [attributes, extras, style, LOAD_TIMEOUT] as const);
  }
  const loads = () => page.evaluate(() => (window as unknown as { loads: string[] }).loads);
  const nextLoad = () => page.evaluate((t) => window.helpers.nextLoad(window.helpers.viewer('viewer'), t), LOAD_TIMEOUT);
  const box = () => page.evaluate(() => {
    const el = window.helpers.viewer('viewer');
    const d = el.getDimensions(), c = el.getBoundingBoxCenter();
    return { size: [d.x, d.y, d.z], center: [c.x, c.y, c.z] };
  });
  /** The frame as model-viewer's toBlob() gives it, from a fixed camera. */
  async function image(): Promise<Rgba8Image> {
    const base64 = await page.evaluate(async () => {
      const el = window.helpers.viewer('viewer');
      el.jumpCameraToGoal();
      const bytes = new Uint8Array(await (await el.toBlob()).arrayBuffer());
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(s);
    });
    return decodeBase64Image(base64);
  }

  it('"appends extra-model and loads multiple mesh components": one load for both, both drawn, their clips listed; "removes extra-model and updates the scene" with a new load', async () => {
    await addViewer({ builtin: 'limb', 'camera-orbit': '0deg 90deg 12m' }, []);
    const alone = await image();
    const single = await box();
    const changed = nextLoad();
    await page.evaluate(() => {
      const extra = document.createElement('extra-model');
      extra.setAttribute('src', 'builtin:character');
      extra.setAttribute('offset', '4m 0 0');
      window.helpers.viewer('viewer').append(extra);
    });
    await changed;
    const both = await image();
    writeArtifactPng('element-extra-model-both', both.width, both.height, both.data);
    // The character is drawn beside the limb (the view widens for the wider whole, so compare, not count).
    expect(changedFraction(alone, both)).toBeGreaterThan(0.005);
    expect(foregroundFraction(both)).toBeGreaterThan(0.003);
    expect(await page.evaluate(() => window.helpers.viewer('viewer').availableAnimations)).toEqual(['Bend', 'Swing', 'Walk', 'Idle', 'Wave']);
    const combined = await box();
    expect(combined.size[0]).toBeGreaterThan(single.size[0] + 0.5);
    const removed = nextLoad();
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.remove());
    await removed;
    expect(changedFraction(alone, await image())).toBeLessThan(0.001);
    expect(await page.evaluate(() => window.helpers.viewer('viewer').availableAnimations)).toEqual(['Bend', 'Swing']);
    expect(await loads()).toEqual(['builtin:limb', 'builtin:limb', 'builtin:limb']);
  });

  it('"loads models when only extra-model is provided" (load\'s url is the first one\'s); "removes all extra-models when src is null"', async () => {
    await addViewer({}, [{ src: '/assets/CesiumMan.glb' }, { src: '/assets/RiggedSimple.glb', offset: '1m 0 0' }]);
    expect(await loads()).toEqual(['/assets/CesiumMan.glb']);
    expect(foregroundFraction(await image())).toBeGreaterThan(0.02);
    await page.evaluate(() => window.helpers.viewer('viewer').replaceChildren());
    await expect.poll(() => page.evaluate(() => window.helpers.viewer('viewer').loaded)).toBe(false);
    expect(await page.evaluate(() => window.helpers.viewer('viewer').availableAnimations)).toEqual([]);
  });

  it('"updates position dynamically when offset changes" without loading again; "normalizes offset lengths with units to meters"; bad values warn', async () => {
    await addViewer({}, [{ src: 'builtin:limb' }]);
    const start = await box();
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.setAttribute('offset', '200cm 1000mm -1.5m'));
    const moved = await box();
    expect(moved.center[0] - start.center[0]).toBeCloseTo(2, 4);
    expect(moved.center[1] - start.center[1]).toBeCloseTo(1, 4);
    expect(moved.center[2] - start.center[2]).toBeCloseTo(-1.5, 4);
    expect(moved.size).toEqual(start.size.map((v) => expect.closeTo(v, 4)));
    // The property reflects the attribute; bare numbers are metres.
    await page.evaluate(() => { (window.helpers.viewer('viewer').querySelector('extra-model') as HTMLElementTagNameMap['extra-model']).offset = '3 0 0'; });
    expect((await box()).center[0] - start.center[0]).toBeCloseTo(3, 4);
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.setAttribute('offset', 'far away'));
    expect(warnings.some((w) => w.includes('<extra-model offset="far away">'))).toBe(true);
    expect((await box()).center[0]).toBeCloseTo(start.center[0], 4);
    expect(await loads()).toEqual(['builtin:limb']);
  });

  it('"applies orientation as rotation on the model quaternion" (yaw 90°: width and depth swap) and scale; a paused model shows its new place in the next frame', async () => {
    await addViewer({ 'camera-orbit': '0deg 90deg 8m' }, [{ src: 'builtin:character' }]);
    const start = await box();
    const front = await image();
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.setAttribute('orientation', '0deg 0deg 90deg'));
    const turned = await box();
    expect(turned.size[0]).toBeCloseTo(start.size[2], 4);
    expect(turned.size[2]).toBeCloseTo(start.size[0], 4);
    expect(changedFraction(front, await image())).toBeGreaterThan(0.005);
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.setAttribute('scale', '0.5'));
    expect((await box()).size[1]).toBeCloseTo(start.size[1] / 2, 4);
  });

  it('"duration reflects the longest animation across all models"; a clip name plays in every model that has it, each other model\'s first clip', async () => {
    await addViewer({ builtin: 'limb', 'animation-name': 'Wave' }, [{ src: 'builtin:character', offset: '1m 0 0' }]);
    const durations = await page.evaluate(async () => {
      const el = window.helpers.viewer('viewer');
      const wave = el.duration;
      el.animationName = 'Bend';
      return { wave, bend: el.duration };
    });
    // Wave is the character's (the limb plays its first clip, Bend, beside it); Bend is the limb's (the character plays Walk).
    /** The duration of each clip of a built-in model shown alone. */
    const alone = (builtin: string, names: string[]) => page.evaluate(async ([b, clips, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.setAttribute('builtin', b);
      el.setAttribute('loading', 'eager');
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      const out: Record<string, number> = {};
      for (const name of clips) { el.animationName = name; out[name] = el.duration; }
      el.remove();
      return out;
    }, [builtin, names, LOAD_TIMEOUT] as const);
    const limb = (await alone('limb', ['Bend'])).Bend;
    const character = await alone('character', ['Walk', 'Wave']);
    expect(durations.wave).toBeCloseTo(Math.max(character.Wave, limb), 9);
    expect(durations.bend).toBeCloseTo(Math.max(character.Walk, limb), 9);
  });

  it('a hotspot on a node of an extra model rides with it (data-joint), offset included', async () => {
    await addViewer({ builtin: 'limb', 'camera-orbit': '0deg 90deg 8m' }, [{ src: 'builtin:character', offset: '1.5m 0 0' }]);
    const place = () => page.evaluate(async () => {
      const el = window.helpers.viewer('viewer');
      if (!el.querySelector('[slot="hotspot-hand"]')) {
        const spot = document.createElement('div');
        spot.slot = 'hotspot-hand';
        spot.dataset.joint = 'Hand.L';
        el.append(spot);
      }
      await window.helpers.nextFrames(3);
      return el.queryHotspot('hotspot-hand')!.position.x;
    });
    const x = await place();
    expect(x).toBeGreaterThan(1);
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.setAttribute('offset', '2.5m 0 0'));
    expect(await place()).toBeCloseTo(x + 1, 4);
  });

  it('"data-model-index forces hotspot attachment to extra model": its data-position is in that model\'s frame; index 0 is the element\'s own src', async () => {
    await addViewer({ builtin: 'limb', 'camera-orbit': '0deg 90deg 8m' }, [{ src: 'builtin:character', offset: '1.5m 0 0', orientation: '0 0 90deg' }]);
    const spots = await page.evaluate(async () => {
      const el = window.helpers.viewer('viewer');
      for (const [name, index] of [['hotspot-extra', '1'], ['hotspot-own', '0']]) {
        const spot = document.createElement('div');
        spot.slot = name;
        spot.dataset.modelIndex = index;
        spot.dataset.position = '0.5m 1m 0';
        el.append(spot);
      }
      await window.helpers.nextFrames(3);
      const p = (name: string) => { const q = el.queryHotspot(name)!.position; return [q.x, q.y, q.z]; };
      return { extra: p('hotspot-extra'), own: p('hotspot-own') };
    });
    // Turned 90° about +Y: the extra model's +x is the scene's −z.
    expect(spots.extra).toEqual([expect.closeTo(1.5, 4), expect.closeTo(1, 4), expect.closeTo(-0.5, 4)]);
    expect(spots.own).toEqual([expect.closeTo(0.5, 4), expect.closeTo(1, 4), expect.closeTo(0, 4)]);
  });

  it('a crowd (instances) of the composition draws every part for each member', async () => {
    await addViewer({ builtin: 'limb', instances: '4', 'crowd-evaluator': 'cpu', 'camera-orbit': 'auto auto 300%' }, [{ src: 'builtin:character', offset: '1m 0 0' }]);
    const triangles = (instances: number) => page.evaluate(async (n) => {
      const el = window.helpers.viewer('viewer');
      el.instances = n;
      await window.helpers.nextFrames(3);
      return { drawn: el.stats!.instances, triangles: el.stats!.triangles };
    }, instances);
    const crowd = await triangles(4);
    const single = await triangles(1);
    // Without the extra model: the limb alone.
    const removed = nextLoad();
    await page.evaluate(() => window.helpers.viewer('viewer').querySelector('extra-model')!.remove());
    await removed;
    const limb = await triangles(1);
    expect(crowd.drawn).toBe(4);
    expect(crowd.triangles).toBe(4 * single.triangles);
    expect(single.triangles).toBeGreaterThan(limb.triangles);
  });
});
