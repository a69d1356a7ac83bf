/**
 * <skinned-mesh-viewer>'s `variant-name` and `availableVariants` in real Chromium (WebGPU
 * on SwiftShader), with model-viewer's semantics: the attribute reflects as `variantName`;
 * null draws the file's materials; an unknown name keeps what is shown (with a warning);
 * `variant-applied` fires once a change shows; a variant set before loading is applied
 * before the model is shown. The file (test/support/variant-files.ts) has a red and a green quad; "blue"
 * turns the red one blue, "yellow" turns both yellow.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { decodeBase64Image, openElementPage, type Rgba8Image } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;

type Colour = 'red' | 'green' | 'blue' | 'yellow';

/** Which of the quads' colours cover at least 1% of the opaque pixels. */
function coloursShown(image: Rgba8Image): Colour[] {
  const counts: Record<Colour, number> = { red: 0, green: 0, blue: 0, yellow: 0 };
  let opaque = 0;
  const d = image.data;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 200) continue;
    opaque++;
    const [r, g, b] = [d[i] > 150, d[i + 1] > 150, d[i + 2] > 150];
    const [r0, g0, b0] = [d[i] < 80, d[i + 1] < 80, d[i + 2] < 80];
    if (r && g0 && b0) counts.red++;
    else if (g && r0 && b0) counts.green++;
    else if (b && r0 && g0) counts.blue++;
    else if (r && g && b0) counts.yellow++;
  }
  return (Object.keys(counts) as Colour[]).filter((c) => counts[c] > opaque * 0.01);
}

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> variant-name and availableVariants', () => {
  const session = useBrowserSession();
  let page: Page;
  let warnings: string[];
  beforeAll(async () => {
    ({ page, warnings } = await openElementPage(session));
  }, 60_000);

  async function shown(id: string): Promise<Colour[]> {
    const { base64 } = await page.evaluate((i) => window.helpers.captureBase64(window.helpers.viewer(i)), id);
    return coloursShown(decodeBase64Image(base64));
  }

  /** Sets `variantName` and waits for the `variant-applied` it fires; returns its detail and the attribute. */
  async function select(id: string, name: string | null): Promise<{ detail: unknown; attribute: string | null }> {
    return page.evaluate(([i, n]) => new Promise<{ detail: unknown; attribute: string | null }>((resolve, reject) => {
      const el = window.helpers.viewer(i);
      const timer = setTimeout(() => reject(new Error('no variant-applied')), 20_000);
      el.addEventListener('variant-applied', (e) => {
        clearTimeout(timer);
        resolve({ detail: e.detail, attribute: el.getAttribute('variant-name') });
      }, { once: true });
      el.variantName = n;
    }), [id, name] as const);
  }

  it('lists the variants, switches the drawn materials, and keeps them for an unknown name', async () => {
    const before = await page.evaluate(async (t) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'v';
      const empty = { variants: el.availableVariants, name: el.variantName };
      el.setAttribute('src', '/assets/variants.glb');
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      return { ...empty, loaded: el.availableVariants };
    }, LOAD_TIMEOUT);
    expect(before).toEqual({ variants: [], name: null, loaded: ['blue', 'yellow'] });
    expect(await shown('v')).toEqual(['red', 'green']);

    expect(await select('v', 'blue')).toEqual({ detail: { name: 'blue' }, attribute: 'blue' });
    expect(await shown('v')).toEqual(['green', 'blue']);
    expect(await select('v', 'yellow')).toEqual({ detail: { name: 'yellow' }, attribute: 'yellow' });
    expect(await shown('v')).toEqual(['yellow']);

    // As model-viewer: an unknown name changes nothing, and the event still fires.
    expect(await select('v', 'purple')).toEqual({ detail: { name: 'purple' }, attribute: 'purple' });
    expect(await shown('v')).toEqual(['yellow']);
    expect(warnings.filter((w) => w.includes('variant-name="purple"'))).toHaveLength(1);

    expect(await select('v', null)).toEqual({ detail: { name: null }, attribute: null });
    expect(await shown('v')).toEqual(['red', 'green']);
  });

  it('a variant named before the model loads is drawn once it loads (no variant-applied); a model without variants lists none', async () => {
    const result = await page.evaluate(async (t) => {
      document.getElementById('stage')!.replaceChildren();
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'early';
      el.setAttribute('variant-name', 'yellow');
      el.setAttribute('src', '/assets/variants.glb');
      window.helpers.watch(el);
      document.getElementById('stage')!.append(el);
      await window.helpers.whenLoaded(el, t);
      const plain = await window.helpers.addViewer('plain', { builtin: 'limb' });
      return { name: el.variantName, plainVariants: plain.availableVariants, events: window.helpers.events(el).map((e) => e.type) };
    }, LOAD_TIMEOUT);
    expect(result.name).toBe('yellow');
    expect(result.plainVariants).toEqual([]);
    // The event reports changes of the attribute; a load with it set fires `load` only.
    expect(result.events).toContain('load');
    expect(result.events).not.toContain('variant-applied');
    expect(await shown('early')).toEqual(['yellow']);
  });
});
