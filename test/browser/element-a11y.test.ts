/**
 * model-viewer 4.4's accessibility on <skinned-mesh-viewer>, read back through Chromium's own
 * accessibility tree (the CDP Accessibility domain), as a screen reader would get it: the
 * model's image is named by `alt` (plus the interaction prompt with camera controls), and a
 * polite status says which side the focused viewer shows — model-viewer's words, or the
 * page's from the `a11y` attribute or property. Test names follow model-viewer's
 * `src/test/features/controls-spec.ts` and `model-viewer-base-spec.ts`.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { openElementPage, readAccessibility as readTree } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;
const PROMPT = 'Use mouse, touch or arrow keys to move.';

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> accessibility (model-viewer 4.4\'s alt, a11y and status)', () => {
  const session = useBrowserSession();
  let page: Page;
  let cdp: CDPSession;
  let warnings: string[];
  beforeAll(async () => {
    ({ page, warnings } = await openElementPage(session));
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Accessibility.enable');
  }, 60_000);
  beforeEach(async () => {
    await page.evaluate(() => document.getElementById('stage')!.replaceChildren());
  });

  async function addViewer(attributes: Record<string, string>): Promise<void> {
    await page.evaluate(([attrs, t]) => {
      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'viewer';
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      document.getElementById('stage')!.append(el);
      return window.helpers.whenLoaded(el, t);
    }, [{ builtin: 'limb', loading: 'eager', ...attributes }, LOAD_TIMEOUT] as const);
  }

  /** Sets camera-orbit, jumps there and waits for the frame that moves the camera (what a drag or a key does). */
  const orbitTo = (orbit: string) => page.evaluate(async (o) => {
    const el = window.helpers.viewer('viewer');
    el.cameraOrbit = o;
    el.jumpCameraToGoal();
    await window.helpers.nextFrames(2);
  }, orbit);

  const status = async () => (await readTree(cdp)).status;

  it('"gives the input a related aria-label": the image is named by alt; "reverts input to default aria-label" when alt goes', async () => {
    await addViewer({ alt: 'A bending limb' });
    expect((await readTree(cdp)).images).toEqual(['A bending limb']);
    await page.evaluate(() => { window.helpers.viewer('viewer').alt = null; });
    expect((await readTree(cdp)).images).toEqual(['3D model']);
  });

  it('"has initial aria-label set to alt before interaction": with camera-controls the prompt follows alt (its final period once), or a11y\'s interaction-prompt', async () => {
    await addViewer({ alt: 'A bending limb.', 'camera-controls': '' });
    expect((await readTree(cdp)).images).toEqual([`A bending limb. ${PROMPT}`]);
    await page.evaluate(() => { window.helpers.viewer('viewer').a11y = { 'interaction-prompt': 'Drag to turn it' }; });
    expect((await readTree(cdp)).images).toEqual(['A bending limb. Drag to turn it']);
    await page.evaluate(() => { window.helpers.viewer('viewer').cameraControls = false; });
    expect((await readTree(cdp)).images).toEqual(['A bending limb.']);
  });

  it('"announces camera orientation when orbiting horizontally" and "vertically" in a polite status, only while focused', async () => {
    await addViewer({ 'camera-controls': '', 'camera-orbit': '0deg 90deg auto', 'interpolation-decay': '0' });
    const tree = await readTree(cdp);
    expect(tree.status).toEqual(['']);
    expect(tree.live).toEqual(['polite']);
    // Not focused: nothing is said.
    await orbitTo('-90deg 90deg auto');
    expect(await status()).toEqual(['']);
    await page.focus('#viewer');
    expect(await status()).toEqual(['View from stage left']);
    await orbitTo('90deg 90deg auto');
    expect(await status()).toEqual(['View from stage right']);
    await orbitTo('180deg 90deg auto');
    expect(await status()).toEqual(['View from stage back']);
    await orbitTo('0deg 90deg auto');
    expect(await status()).toEqual(['View from stage front']);
    await orbitTo('0deg 30deg auto');
    expect(await status()).toEqual(['View from stage upper-front']);
    await orbitTo('0deg 150deg auto');
    expect(await status()).toEqual(['View from stage lower-front']);
    // Arrow keys orbit (camera controls): the status follows the user's moves too.
    await orbitTo('40deg 90deg auto');
    await page.keyboard.press('ArrowLeft');
    await page.evaluate(() => window.helpers.nextFrames(3));
    expect(await status()).toEqual(['View from stage right']);
    await page.evaluate(() => (document.activeElement as HTMLElement).blur());
    expect(await status()).toEqual(['']);
  });

  it('"announces camera orientation when orbiting horizontally with a11y": the page\'s words (property object, attribute JSON); null and \'\' go back to model-viewer\'s', async () => {
    await addViewer({ 'camera-controls': '', 'camera-orbit': '0deg 90deg auto', 'interpolation-decay': '0' });
    await page.focus('#viewer');
    await page.evaluate(() => {
      window.helpers.viewer('viewer').a11y = { left: 'The hinge is on your left', 'upper-back': 'From above, behind it', front: 'Its face' };
    });
    await orbitTo('-90deg 90deg auto');
    expect(await status()).toEqual(['The hinge is on your left']);
    await orbitTo('180deg 30deg auto');
    expect(await status()).toEqual(['From above, behind it']);
    // A side the page did not describe keeps model-viewer's words.
    await orbitTo('90deg 90deg auto');
    expect(await status()).toEqual(['View from stage right']);
    await page.evaluate(() => { window.helpers.viewer('viewer').a11y = null; });
    await orbitTo('-90deg 90deg auto');
    expect(await status()).toEqual(['View from stage left']);
    await page.evaluate(() => window.helpers.viewer('viewer').setAttribute('a11y', '{"front": "Face to face"}'));
    expect(await page.evaluate(() => window.helpers.viewer('viewer').a11y)).toBe('{"front": "Face to face"}');
    await orbitTo('0deg 90deg auto');
    expect(await status()).toEqual(['Face to face']);
    await page.evaluate(() => { window.helpers.viewer('viewer').a11y = ''; });
    await orbitTo('-90deg 90deg auto');
    await orbitTo('0deg 90deg auto');
    expect(await status()).toEqual(['View from stage front']);
    // Not JSON: a warning, and the words stay as they were.
    await page.evaluate(() => { window.helpers.viewer('viewer').a11y = '{front: nope'; });
    expect(warnings.some((w) => w.includes('a11y is not valid JSON'))).toBe(true);
  });
});
