/**
 * `animation-src` in real Chromium (WebGPU on SwiftShader): a Fox copy whose joints are renamed
 * and whose file has no clips gets the Fox's clips from `animation-src`, and draws the Walk like
 * the original Fox drawing its own.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { assetPath } from '../support/assets.ts';
import { editGlb } from '../anim/retarget/fixtures.ts';
import { changedFraction, decodeBase64Image, openElementPage } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 45_000;

/** Fox.glb with its b_ joints renamed (namespace, dots, upper case) and no animations. */
function renamedFox(): Uint8Array {
  return editGlb(new Uint8Array(readFileSync(assetPath('Fox'))), (json) => {
    for (const node of json.nodes) if (typeof node.name === 'string' && node.name.startsWith('b_')) node.name = `FoxRig:${node.name.replace(/_/g, '.').toUpperCase()}`;
    delete json.animations;
  });
}

describe.skipIf(!!unavailable)('<skinned-mesh-viewer animation-src>', () => {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    const copy = renamedFox();
    ({ page } = await openElementPage(session));
    await page.route('**/anims/FoxCopy.glb', (route) => route.fulfill({ status: 200, contentType: 'model/gltf-binary', body: Buffer.from(copy) }));
  }, 60_000);

  it("lists the library's clips and draws them as the original draws its own", async () => {
    const result = await page.evaluate(async (t) => {
      const common = { 'camera-orbit': '30deg 75deg 250m', animation: 'Walk', style: 'width:256px;height:256px' };
      const orig = await window.helpers.addViewer('orig', { ...common, src: '/assets/Fox.glb' }, { timeoutMs: t });
      const copy = await window.helpers.addViewer('copy', { ...common, src: '/anims/FoxCopy.glb', 'animation-src': '/assets/Fox.glb' }, { timeoutMs: t });
      const start = await window.helpers.captureBase64(copy);
      for (const el of [orig, copy]) el.currentTime = 0.3;
      await window.helpers.nextFrames(3);
      return {
        animations: copy.animations,
        orig: (await window.helpers.captureBase64(orig)).base64,
        copy: (await window.helpers.captureBase64(copy)).base64,
        start: start.base64,
      };
    }, LOAD_TIMEOUT);
    expect(result.animations).toEqual(['Survey', 'Walk', 'Run']);
    const orig = decodeBase64Image(result.orig), copy = decodeBase64Image(result.copy), start = decodeBase64Image(result.start);
    // The same picture (up to rasterisation of float differences), and not the one at time 0.
    expect(changedFraction(copy, orig, 24)).toBeLessThan(0.002);
    expect(changedFraction(copy, start, 24)).toBeGreaterThan(0.01);
  });
});
