/**
 * <skinned-mesh-viewer>'s hotspots and `positionAndNormalFromPoint` in real Chromium
 * (WebGPU on SwiftShader), on the built-in character seen from the front:
 * model-viewer's `slot="hotspot-…"` with `data-position` / `data-normal`, `data-visible`
 * toggled when a hotspot faces away or is hidden behind the skinned surface, and our
 * `data-joint` hotspots riding on a joint as the clip plays.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASSETS_DIR } from '../support/assets.ts';
import { editGlb } from '../anim/retarget/fixtures.ts';
import { openElementPage, openTestPage, serveFiles } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
const SIZE = 320;

interface HotspotState { x: number; y: number; visible: boolean; shown: boolean }

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> hotspots and positionAndNormalFromPoint', () => {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    ({ page } = await openElementPage(session));
    await page.evaluate(async ([size, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'h';
      el.style.width = el.style.height = `${size}px`;
      // Front view, level; the clip (Walk) stays paused at its start until a test seeks.
      el.setAttribute('builtin', 'character');
      el.setAttribute('camera-orbit', '0deg 90deg auto');
      // The camera jumps to each orbit the tests set instead of easing there over frames.
      el.setAttribute('interpolation-decay', '0');
      el.innerHTML = `
        <button slot="hotspot-hand" data-joint="Hand.L">hand</button>
        <button slot="hotspot-hand-facing" data-joint="Hand.L" data-normal="0 0 1" data-offset="0 5cm 0">hand+</button>
        <div slot="hotspot-back" data-position="0 1.2m -40cm" data-normal="0m 0m -1m">back</div>
        <div slot="hotspot-inside" data-position="0 120cm -0.4">inside</div>
        <span slot="hotspot-visibility-name" data-position="0 1.2 -0.4" data-visibility-attribute="seen">named</span>
        <p>not a hotspot</p>`;
      window.helpers.watch(el);
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      await window.helpers.drawFrames(el, 1);
    }, [SIZE, LOAD_TIMEOUT] as const);
  }, 90_000);

  /** Each hotspot's centre relative to the viewer, in CSS pixels, and whether it is shown in full. */
  async function hotspots(): Promise<Record<string, HotspotState>> {
    return page.evaluate(() => {
      const el = window.helpers.viewer('h');
      const box = el.getBoundingClientRect();
      const out: Record<string, { x: number; y: number; visible: boolean; shown: boolean }> = {};
      for (const child of Array.from(el.children)) {
        if (!child.slot) continue;
        const r = child.getBoundingClientRect();
        const wrapper = el.shadowRoot!.querySelector<HTMLElement>(`slot[name="${child.slot}"]`)!.closest<HTMLElement>('.hotspot')!;
        out[child.slot] = {
          x: r.left + r.width / 2 - box.left, y: r.top + r.height / 2 - box.top,
          // data-visibility-attribute="seen" toggles data-seen instead (per element, as model-viewer).
          visible: child.hasAttribute(child.getAttribute('data-visibility-attribute') ? 'data-seen' : 'data-visible')
            && !(child.getAttribute('data-visibility-attribute') && child.hasAttribute('data-visible')),
          shown: !wrapper.hidden && !wrapper.classList.contains('hidden'),
        };
      }
      return out;
    });
  }

  /** Sets the camera orbit (or the clip time) and waits for the frame that shows it. */
  async function redraw(change: { orbit?: string; time?: number }): Promise<void> {
    await page.evaluate(async (c) => {
      const el = window.helpers.viewer('h');
      if (c.orbit !== undefined) el.setAttribute('camera-orbit', c.orbit);
      if (c.time !== undefined) el.currentTime = c.time;
      await window.helpers.drawFrames(el, 1);
    }, change);
  }

  it('positionAndNormalFromPoint: the chest under the centre pixel, nothing in a corner, model-viewer\'s Vector3D strings', async () => {
    const result = await page.evaluate((size) => {
      const el = window.helpers.viewer('h');
      const hit = el.positionAndNormalFromPoint(size / 2, size / 2);
      const corner = el.positionAndNormalFromPoint(3, 3);
      return {
        hit: hit && { p: [hit.position.x, hit.position.y, hit.position.z], n: [hit.normal.x, hit.normal.y, hit.normal.z], text: hit.position.toString(), uv: hit.uv },
        corner,
      };
    }, SIZE);
    expect(result.corner).toBeNull();
    expect(result.hit).not.toBeNull();
    const { p, n, text } = result.hit!;
    // The character faces +Z; the framed centre is on its body, in front of its spine.
    expect(p[2]).toBeGreaterThan(0);
    expect(Math.abs(p[0])).toBeLessThan(0.15);
    expect(n[2]).toBeGreaterThan(0.5);
    expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 5);
    expect(text).toMatch(/^-?[\d.e-]+m -?[\d.e-]+m -?[\d.e-]+m$/);
  });

  it('a data-position hotspot at a picked point sits on that pixel; facing away or behind the body it is hidden', async () => {
    // From 30° above: the default normal (0 1 0, as model-viewer's) faces the camera, so only the body hides.
    await redraw({ orbit: '0deg 60deg auto' });
    const picked = await page.evaluate(async (size) => {
      const el = window.helpers.viewer('h');
      const hit = el.positionAndNormalFromPoint(size * 0.5, size * 0.4)!;
      const spot = document.createElement('b');
      spot.slot = 'hotspot-picked';
      spot.textContent = '•';
      spot.dataset.position = hit.position.toString();
      spot.dataset.normal = hit.normal.toString();
      el.append(spot);
      await window.helpers.nextFrames(1);
      await window.helpers.drawFrames(el, 1);
      return true;
    }, SIZE);
    expect(picked).toBe(true);
    let state = await hotspots();
    // Within a pixel (the text's box rounds its centre by half a pixel).
    expect(Math.abs(state['hotspot-picked'].x - SIZE * 0.5)).toBeLessThan(1);
    expect(Math.abs(state['hotspot-picked'].y - SIZE * 0.4)).toBeLessThan(1);
    expect(state['hotspot-picked'].visible).toBe(true);
    // Behind the chest: facing away, or (facing up) hidden by the body.
    expect(state['hotspot-back'].visible).toBe(false);
    expect(state['hotspot-inside'].visible).toBe(false);
    expect(state['hotspot-inside'].shown).toBe(false);
    expect(state['hotspot-visibility-name'].visible).toBe(false);

    await redraw({ orbit: '180deg 60deg auto' });
    state = await hotspots();
    expect(state['hotspot-back'].visible).toBe(true);
    expect(state['hotspot-inside'].visible).toBe(true);
    expect(state['hotspot-visibility-name'].visible).toBe(true);
    expect(state['hotspot-picked'].visible).toBe(false);
    const events = await page.evaluate(() => {
      const list: boolean[] = [];
      const back = window.helpers.viewer('h').querySelector('[slot="hotspot-back"]')!;
      back.addEventListener('hotspot-visibility', (e) => list.push((e as CustomEvent<{ visible: boolean }>).detail.visible));
      return new Promise<boolean[]>((resolve) => {
        const el = window.helpers.viewer('h');
        el.setAttribute('camera-orbit', '0deg 60deg auto');
        void window.helpers.drawFrames(el, 1).then(() => resolve(list));
      });
    });
    expect(events).toEqual([false]);
    await redraw({ orbit: '0deg 90deg auto' });
  });

  it('--min-hotspot-opacity and --max-hotspot-opacity set how hidden and shown hotspots are drawn', async () => {
    // The previous test left the camera in front, level.
    const state = await hotspots();
    expect(state['hotspot-hand'].shown).toBe(true);
    expect(state['hotspot-back'].shown).toBe(false);
    const opacity = async () => page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      // Once the opacity transitions (0.3 s) have ended.
      await window.helpers.transitionsEnded(Array.from(el.shadowRoot!.querySelectorAll('.pivot')));
      const of = (slot: string) => Number(getComputedStyle(el.shadowRoot!.querySelector<HTMLElement>(`slot[name="${slot}"]`)!.closest<HTMLElement>('.pivot')!).opacity);
      return { shown: of('hotspot-hand'), hidden: of('hotspot-back') };
    });
    expect(await opacity()).toEqual({ shown: 1, hidden: 0.25 });
    await page.evaluate(() => {
      const el = window.helpers.viewer('h');
      el.style.setProperty('--min-hotspot-opacity', '0.1');
      el.style.setProperty('--max-hotspot-opacity', '0.8');
    });
    const set = await opacity();
    expect(set.shown).toBeCloseTo(0.8, 5);
    expect(set.hidden).toBeCloseTo(0.1, 5);
    await page.evaluate(() => {
      const el = window.helpers.viewer('h');
      el.style.removeProperty('--min-hotspot-opacity');
      el.style.removeProperty('--max-hotspot-opacity');
    });
  });

  it('data-joint hotspots follow Hand.L as the clip plays, on the surface the ray finds there', async () => {
    const samples: { x: number; y: number; joint: number[]; surface: number[] | null }[] = [];
    for (const time of [0, 0.25, 0.5, 0.75]) {
      await redraw({ time });
      const state = await hotspots();
      const joint = await page.evaluate(() => {
        const el = window.helpers.viewer('h');
        const model = el.model!;
        const slot = model.hierarchy.order.findIndex((node) => model.nodes[node].name === 'Hand.L');
        const m = el.player!.instance.nodeMatrices;
        return [m[slot * 16 + 12], m[slot * 16 + 13], m[slot * 16 + 14]];
      });
      const { x, y } = state['hotspot-hand'];
      const surface = await page.evaluate(([px, py]) => {
        const hit = window.helpers.viewer('h').positionAndNormalFromPoint(px, py);
        return hit && [hit.position.x, hit.position.y, hit.position.z];
      }, [x, y] as const);
      expect(state['hotspot-hand'].visible, `t=${time}`).toBe(true);
      samples.push({ x, y, joint, surface });
    }
    for (const s of samples) {
      // The ray through the hotspot's pixel meets the hand's skin just in front of the joint.
      expect(s.surface).not.toBeNull();
      expect(Math.hypot(s.surface![0] - s.joint[0], s.surface![1] - s.joint[1], s.surface![2] - s.joint[2])).toBeLessThan(0.12);
    }
    // It moved on screen as the hand swung.
    const xs = samples.map((s) => s.x), ys = samples.map((s) => s.y);
    expect(Math.max(...xs) - Math.min(...xs) + Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(3);
    // The offset one sits 5 cm up the hand's frame: a different pixel, and it faces the front camera.
    const state = await hotspots();
    expect(Math.hypot(state['hotspot-hand-facing'].x - state['hotspot-hand'].x, state['hotspot-hand-facing'].y - state['hotspot-hand'].y)).toBeGreaterThan(1);
  });

  it('queryHotspot reports where a hotspot was drawn; updateHotspot moves it without touching its attributes', async () => {
    await redraw({ orbit: '0deg 60deg auto' });
    const before = await hotspots();
    const query = await page.evaluate(() => {
      const el = window.helpers.viewer('h');
      const q = el.queryHotspot('hotspot-picked')!;
      return { canvas: [q.canvasPosition.x, q.canvasPosition.y], facing: q.facingCamera, position: q.position.toString(), unknown: el.queryHotspot('hotspot-nope') };
    });
    expect(query.unknown).toBeNull();
    expect(query.facing).toBe(true);
    expect(Math.abs(query.canvas[0] - before['hotspot-picked'].x)).toBeLessThan(1);
    expect(Math.abs(query.canvas[1] - before['hotspot-picked'].y)).toBeLessThan(1);
    expect(query.position).toMatch(/m$/);
    expect(before['hotspot-back'].visible).toBe(false);
    // Move the back hotspot to where the picked one is: now seen from the front, at that pixel.
    const moved = await page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      const picked = el.querySelector<HTMLElement>('[slot="hotspot-picked"]')!;
      el.updateHotspot({ name: 'hotspot-back', position: picked.dataset.position, normal: picked.dataset.normal });
      await window.helpers.drawFrames(el, 1);
      return el.querySelector('[slot="hotspot-back"]')!.getAttribute('data-position');
    });
    expect(moved).toBe('0 1.2m -40cm');
    const after = await hotspots();
    expect(after['hotspot-back'].visible).toBe(true);
    expect(Math.abs(after['hotspot-back'].x - after['hotspot-picked'].x)).toBeLessThan(1.5);
    expect(Math.abs(after['hotspot-back'].y - after['hotspot-picked'].y)).toBeLessThan(1.5);
  });

  it('surfaceFromPoint gives a data-surface that keeps a hotspot on that point of the skin as the clip plays', async () => {
    await redraw({ orbit: '0deg 90deg auto', time: 0 });
    const hand = (await hotspots())['hotspot-hand'];
    const surface = await page.evaluate(async ([x, y]) => {
      const el = window.helpers.viewer('h');
      const value = el.surfaceFromPoint(x, y);
      const spot = document.createElement('i');
      spot.slot = 'hotspot-skin';
      spot.textContent = '+';
      if (value) spot.dataset.surface = value;
      el.append(spot);
      await window.helpers.drawFrames(el, 1);
      return { value, corner: el.surfaceFromPoint(2, 2) };
    }, [hand.x, hand.y] as const);
    expect(surface.corner).toBeNull();
    expect(surface.value).toMatch(/^0 \d+ \d+ \d+ \d+ \d\.\d{3} \d\.\d{3} \d\.\d{3}$/);
    const start = (await hotspots())['hotspot-skin'];
    expect(Math.abs(start.x - hand.x)).toBeLessThan(1.5);
    expect(Math.abs(start.y - hand.y)).toBeLessThan(1.5);
    for (const time of [0.3, 0.6]) {
      await redraw({ time });
      const now = (await hotspots())['hotspot-skin'];
      // The ray through its new pixel meets the skin where the hotspot says it is.
      const check = await page.evaluate(([x, y]) => {
        const el = window.helpers.viewer('h');
        const q = el.queryHotspot('hotspot-skin')!;
        const hit = el.positionAndNormalFromPoint(x, y);
        return { q: [q.position.x, q.position.y, q.position.z], hit: hit && [hit.position.x, hit.position.y, hit.position.z] };
      }, [now.x, now.y] as const);
      expect(check.hit).not.toBeNull();
      expect(Math.hypot(check.hit![0] - check.q[0], check.hit![1] - check.q[1], check.hit![2] - check.q[2]), `t=${time}`).toBeLessThan(0.01);
      expect(Math.hypot(now.x - start.x, now.y - start.y), `t=${time}`).toBeGreaterThan(2);
    }
    await page.evaluate(() => window.helpers.viewer('h').querySelector('[slot="hotspot-skin"]')!.remove());
  });

  it('editing a hotspot\'s own content does not reconfigure it; editing its data-* attributes does', async () => {
    const events = await page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      const hand = el.querySelector<HTMLElement>('[slot="hotspot-hand"]')!;
      // Settle first: the last test's removal rescanned every hotspot, and the rescan's
      // announcements come with the next drawn frame, late on a busy machine.
      await window.helpers.drawFrames(el, 1);
      const seen: string[] = [];
      const listener = (e: Event) => seen.push(`${(e as CustomEvent<{ visible: boolean }>).detail.visible}`);
      hand.addEventListener('hotspot-visibility', listener);
      hand.textContent = 'left hand';
      await window.helpers.nextFrames(1);
      await window.helpers.drawFrames(el, 1);
      const afterText = seen.length;
      hand.dataset.offset = '0 2cm 0';
      await window.helpers.nextFrames(1);
      await window.helpers.drawFrames(el, 1);
      hand.removeEventListener('hotspot-visibility', listener);
      return { afterText, afterAttribute: seen.length };
    });
    // A rescan starts the hotspot afresh, which announces its visibility again.
    expect(events).toEqual({ afterText: 0, afterAttribute: 1 });
  });

  it('orientation turns hotspots and positionAndNormalFromPoint with the model (both in model coordinates)', async () => {
    // Turned 180° about +Y, the character shows its back to the front camera: the back
    // hotspot (model -Z) faces the camera and the ray under the centre meets the back.
    await page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      el.setAttribute('orientation', '0 0 180deg');
      el.setAttribute('camera-orbit', '0deg 90deg auto');
      el.currentTime = 0;
      await window.helpers.drawFrames(el, 1);
    });
    const turned = await page.evaluate((size) => {
      const hit = window.helpers.viewer('h').positionAndNormalFromPoint(size / 2, size / 2);
      return hit && { z: hit.position.z, nz: hit.normal.z };
    }, SIZE);
    const state = await hotspots();
    await page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      el.removeAttribute('orientation');
      await window.helpers.drawFrames(el, 1);
    });
    const front = await hotspots();
    expect(turned).not.toBeNull();
    expect(turned!.z).toBeLessThan(0);
    expect(turned!.nz).toBeLessThan(-0.5);
    expect(state['hotspot-back'].visible).toBe(true);
    expect(front['hotspot-back'].visible).toBe(false);
    // Mirrored left-right about the centre line when turned.
    expect(Math.abs(state['hotspot-back'].x - SIZE / 2)).toBeLessThan(SIZE * 0.1);
    expect(Math.sign(state['hotspot-hand'].x - SIZE / 2)).toBe(-Math.sign(front['hotspot-hand'].x - SIZE / 2));
  });

  it('removing a hotspot child removes its wrapper; an unknown joint warns and hides it', async () => {
    const result = await page.evaluate(async () => {
      const el = window.helpers.viewer('h');
      const warnings: string[] = [];
      const warn = console.warn;
      console.warn = (...args: unknown[]) => { warnings.push(args.join(' ')); };
      el.querySelector('[slot="hotspot-inside"]')!.remove();
      const bad = document.createElement('i');
      bad.slot = 'hotspot-nojoint';
      bad.dataset.joint = 'Tail';
      el.append(bad);
      await window.helpers.nextFrames(1);
      await window.helpers.drawFrames(el, 1);
      console.warn = warn;
      const wrapper = el.shadowRoot!.querySelector('slot[name="hotspot-nojoint"]')!.closest<HTMLElement>('.hotspot')!;
      return {
        inside: el.shadowRoot!.querySelector('slot[name="hotspot-inside"]') !== null,
        hidden: wrapper.hidden, warned: warnings.some((w) => w.includes('data-joint="Tail"')),
      };
    });
    expect(result).toEqual({ inside: false, hidden: true, warned: true });
  });

  it('data-joint takes a humanoid bone name: a VRM\'s humanoid map whatever its nodes are called, or the rig\'s naming convention', async () => {
    // The VRM sample with every node renamed: only its humanoid map says which node is the head.
    const vrm = editGlb(new Uint8Array(readFileSync(join(ASSETS_DIR, 'vrm', 'VRMC_vrm_expressions_isBinary_Overrides.vrm'))), (json) => {
      json.nodes.forEach((node: { name?: string }, i: number) => { node.name = `n${i}`; });
    });
    await serveFiles(page, 'humanoid', (name) => (name === 'avatar.vrm' ? { body: vrm, type: 'model/gltf-binary' } : undefined));
    const placed = await page.evaluate(async (t) => {
      const positions = async (src: string | null, builtin: string | null, joints: string[]) => {
        const el = document.createElement('skinned-mesh-viewer');
        if (src) el.setAttribute('src', src);
        if (builtin) el.setAttribute('builtin', builtin);
        el.setAttribute('loading', 'eager');
        el.innerHTML = joints.map((j, i) => `<span slot="hotspot-${i}" data-joint="${j}"></span>`).join('');
        document.getElementById('stage')!.append(el);
        await window.helpers.whenLoaded(el, t);
        await window.helpers.nextFrames(3);
        const out = joints.map((_, i) => { const q = el.queryHotspot(`hotspot-${i}`); return q && [q.position.x, q.position.y, q.position.z]; });
        el.remove();
        return out;
      };
      const model = (await fetch('/humanoid/avatar.vrm').then((r) => r.arrayBuffer())).byteLength;
      return {
        model,
        character: await positions(null, 'character', ['leftHand', 'Hand.L', 'head', 'Head']),
        vrm: await positions('/humanoid/avatar.vrm', null, ['head', 'leftHand', 'rightHand']),
      };
    }, LOAD_TIMEOUT);
    expect(placed.model).toBe(vrm.byteLength);
    // The built-in character's joints follow a known convention (Hand.L is leftHand).
    expect(placed.character[0]).toEqual(placed.character[1]);
    expect(placed.character[2]).toEqual(placed.character[3]);
    expect(placed.character[0]).not.toBeNull();
    // The VRM's head is above its hands, which are on either side.
    const [head, left, right] = placed.vrm as number[][];
    expect(head[1]).toBeGreaterThan(Math.max(left[1], right[1]));
    expect(Math.sign(left[0])).not.toBe(Math.sign(right[0]));
  });

  it('without hotspots the ray caster is a chunk fetched after the first frame: a pick at `load` answers null and warns (and fetches it), later picks hit; untouched, the page fetches it when idle', async () => {
    const CODE = 'hotspots/hotspot-code';
    // A page of its own: the ray caster's chunk must not have been imported by the page yet.
    const { page: fresh, warnings } = await openElementPage(session);
    try {
      // What a pick at `load` answered, and whether the chunk had been fetched by then (read in the
      // load event itself: after it, the page's idle prefetch may fetch it at any time).
      const add = (id: string, pickAtLoad: boolean) => fresh.evaluate(async ([id, pick, size, t, code]) => {
        const el = document.createElement('skinned-mesh-viewer');
        el.id = id;
        el.style.width = el.style.height = `${size}px`;
        el.setAttribute('builtin', 'character');
        el.setAttribute('camera-orbit', '0deg 90deg auto');
        let atLoad: unknown = 'not picked';
        let fetchedAtLoad: boolean | undefined;
        el.addEventListener('load', () => {
          fetchedAtLoad = performance.getEntriesByType('resource').some((e) => e.name.includes(code));
          if (pick) atLoad = el.positionAndNormalFromPoint(size / 2, size / 2);
        }, { once: true });
        document.getElementById('stage')!.append(el);
        await window.helpers.whenLoaded(el, t);
        return { atLoad, fetchedAtLoad };
      }, [id, pickAtLoad, SIZE, LOAD_TIMEOUT, CODE] as const);
      const fetched = () => fresh.evaluate((code) => performance.getEntriesByType('resource').some((e) => e.name.includes(code)), CODE);
      // The dev server serves each module on its own: the page's first requests fill the default 250-entry buffer.
      const roomForEntries = () => fresh.evaluate(() => { performance.setResourceTimingBufferSize(100_000); performance.clearResourceTimings(); });
      await roomForEntries();
      // A page without hotspots: nothing fetches the chunk before `load`, and no pick is made.
      expect(await add('quiet', false)).toEqual({ atLoad: 'not picked', fetchedAtLoad: false });
      // After its first frames the page fetches it by itself.
      await fresh.evaluate(async ([code, t]) => {
        const until = performance.now() + t;
        while (!performance.getEntriesByType('resource').some((e) => e.name.includes(code))) {
          if (performance.now() > until) throw new Error(`${code} not fetched after the first frame`);
          await window.helpers.drawFrames(window.helpers.viewer('quiet'), 1);
        }
      }, [CODE, LOAD_TIMEOUT] as const);
      // Once it is here a pick answers at once, with no warning.
      const quietHit = await fresh.evaluate(async (size) => {
        const el = window.helpers.viewer('quiet');
        for (let i = 0; i < 50; i++) {
          const hit = el.positionAndNormalFromPoint(size / 2, size / 2);
          if (hit) return hit.position.z;
          await window.helpers.drawFrames(el, 1);
        }
        return null;
      }, SIZE);
      expect(quietHit).toBeGreaterThan(0);
      expect(warnings.filter((w) => w.includes('ray-casting code is still loading'))).toHaveLength(0);
      // A fresh page, picked at `load` (before its first frame): null and one warning; later picks hit.
      await openTestPage(fresh, session.baseUrl);
      await roomForEntries();
      expect(await fetched()).toBe(false);
      expect(await add('early', true)).toEqual({ atLoad: null, fetchedAtLoad: false });
      expect(warnings.filter((w) => w.includes('ray-casting code is still loading'))).toHaveLength(1);
      const later = await fresh.evaluate(async ([size, t]) => {
        const el = window.helpers.viewer('early');
        const until = performance.now() + t;
        for (;;) {
          const hit = el.positionAndNormalFromPoint(size / 2, size / 2);
          if (hit) return [hit.position.x, hit.position.y, hit.position.z];
          if (performance.now() > until) return null;
          await window.helpers.drawFrames(el, 1);
        }
      }, [SIZE, LOAD_TIMEOUT] as const);
      expect(later).not.toBeNull();
      expect(later![2]).toBeGreaterThan(0);
      expect(warnings.filter((w) => w.includes('ray-casting code is still loading'))).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  }, 120_000);
});
