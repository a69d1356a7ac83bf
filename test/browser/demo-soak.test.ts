/**
 * The demo page animating for ten minutes of simulated time (issue #7): a virtual clock
 * makes every real frame one simulated second, the demo's own clip menu crossfades to the
 * next clip every simulated second, and the heap after GC, the live GPU objects and the
 * error events stay flat. The test-page instrumentation (live buffer/texture counts) is
 * put in front of the demo's script, so the demo runs as shipped.
 */
import { describe, expect, it } from 'vitest';
import { browserUnavailable, heapAfterGc } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { testPageUrl } from '../support/built-pages.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 60_000;
/** Heap after GC may end at most this much above the baseline. */
const HEAP_TOLERANCE = 0.1;
/**
 * The element never advances more than this per frame; 64 such steps make a real frame sixteen
 * simulated seconds (sixteen crossfades), so the ten minutes take 38 drawn frames after the
 * warm-up's 8. What a frame draws is the same whatever the steps; a leak per crossfade or per clip
 * change shows as before, a GPU object leaked per frame too (the live counts must match exactly).
 * On SwiftShader the drawn frames are the run's cost (~0.16 s of CPU each at 820×480).
 */
const STEP = 0.25, SUBSTEPS = 64;
const SIMULATED_SECONDS = 600, SAMPLE_EVERY = 100, WARM_UP_SECONDS = 128;

interface SoakState { seconds: number; crossfades: number; errors: string[] }

describe.skipIf(!!unavailable)('the demo page, soaked', () => {
  const session = useBrowserSession(90_000);

  it('10 minutes of simulated playback with a crossfade every simulated second: flat heap, GPU objects and no errors', async () => {
    const { page, consoleErrors } = await session.newPage();
    try {
      // The main viewer in view (viewers out of view do not draw: the run stays short), in a
      // small window: nothing here reads pixels, and on SwiftShader a frame costs about its pixels.
      // Wider than 800 px: the demo's two columns, with the whole stage in view.
      await page.setViewportSize({ width: 820, height: 480 });
      // The instrumentation module first, then the demo page as served.
      await page.route(testPageUrl(session.baseUrl, 'index.html'), async (route) => {
        const response = await route.fetch();
        const html = (await response.text()).replace('<head>', '<head><script type="module" src="/test/browser/pages/element-instrument.ts"></script>');
        await route.fulfill({ response, body: html });
      });
      // The virtual clock: each real animation frame moves simulated time on by one step.
      await page.addInitScript((stepMs: number) => {
        const raf = window.requestAnimationFrame.bind(window);
        let real = -1, virtual = 0;
        window.requestAnimationFrame = (callback) => raf((t) => {
          if (t !== real) { real = t; virtual += stepMs; }
          callback(virtual);
        });
      }, STEP * 1000);
      await page.goto(testPageUrl(session.baseUrl, 'index.html'));
      await page.waitForFunction(() => (document.getElementById('viewer') as HTMLElement & { loaded: boolean }).loaded, undefined, { timeout: LOAD_TIMEOUT });
      // Without ?src the demo opens on the built-in character (demo.test.ts's page opens with ?src).
      expect(await page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { model: { name: string } | null }).model?.name)).toBe('builtin:character');
      const clipCount = await page.evaluate(([step, substeps]) => {
        type Player = { update(dt: number): void };
        const viewer = document.getElementById('viewer') as HTMLElement & {
          animations: string[];
          beforeRender: ((player: Player, dt: number) => void) | null;
        };
        const clip = document.getElementById('clip') as HTMLSelectElement;
        const soak: SoakState = { seconds: 0, crossfades: 0, errors: [] };
        (window as unknown as { soak: SoakState }).soak = soak;
        viewer.addEventListener('error', (e) => soak.errors.push(String((e as ErrorEvent).message ?? e.type)));
        // Quarter seconds as integers: no drift from adding 0.25 thousands of times.
        let quarters = 0;
        const advance = (dt: number) => {
          quarters += Math.round(dt / step);
          if (dt > 0 && quarters % Math.round(1 / step) === 0) {
            // A new simulated second: the demo's clip menu, as a user would change it (a crossfade while playing).
            clip.value = String((Number(clip.value) + 1) % clip.options.length);
            clip.dispatchEvent(new Event('change'));
            soak.crossfades++;
          }
          soak.seconds = quarters * step;
        };
        viewer.beforeRender = (player, dt) => {
          advance(dt);
          for (let s = 1; s < substeps; s++) {
            player.update(step);
            advance(step);
          }
        };
        return viewer.animations.length;
      }, [STEP, SUBSTEPS] as const);
      expect(clipCount).toBeGreaterThan(1);

      const cdp = await page.context().newCDPSession(page);
      const state = () => page.evaluate(() => structuredClone((window as unknown as { soak: SoakState }).soak));
      const playUntil = (seconds: number) => page.evaluate(async (until) => {
        const soak = (window as unknown as { soak: SoakState }).soak;
        while (soak.seconds < until) await new Promise(requestAnimationFrame);
      }, seconds);
      const live = () => page.evaluate(() => {
        const l = window.instrument.live();
        return { buffers: l.buffers, textures: l.textures };
      });

      // Warm-up before the baseline: the first frames compile and optimise the per-frame code.
      await playUntil(WARM_UP_SECONDS);
      // Pipelines the first frames asked for are built in the background (their WGSL imported
      // lazily) and create their buffers when they arrive: the baseline waits until every one
      // has arrived and a frame has drawn with them.
      await page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { buildsSettled(): Promise<void> }).buildsSettled());
      const start = await state();
      const startLive = await live();
      const heap = [await heapAfterGc(cdp)];
      const started = Date.now();
      for (let t = SAMPLE_EVERY; t <= SIMULATED_SECONDS; t += SAMPLE_EVERY) {
        await playUntil(start.seconds + t);
        heap.push(await heapAfterGc(cdp));
      }
      const end = await state();
      const simulated = end.seconds - start.seconds;
      process.stderr.write(`demo soak: ${simulated} simulated s in ${((Date.now() - started) / 1000).toFixed(1)} s wall; heap after GC (kB): ${heap.map((h) => Math.round(h / 1024)).join(' ')}\n`);
      expect(simulated).toBeGreaterThanOrEqual(SIMULATED_SECONDS);
      expect(end.crossfades - start.crossfades).toBe(Math.floor(end.seconds) - Math.floor(start.seconds));
      expect(await page.evaluate(() => (document.getElementById('viewer') as HTMLElement & { paused: boolean }).paused)).toBe(false);
      expect(end.errors).toEqual([]);
      expect(await live()).toEqual(startLive);
      for (const h of heap) expect(h, `heap samples ${heap.join(', ')}`).toBeLessThanOrEqual(heap[0] * (1 + HEAP_TOLERANCE));
      // The dev server's HMR client (not part of the demo; HMR is off in tests) may log that it
      // cannot reach its websocket during a run this long.
      expect(consoleErrors.filter((e) => !/\[vite\]|WebSocket connection to 'ws:/.test(e))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 300_000);
});
