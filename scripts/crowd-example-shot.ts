/**
 * Opens examples/crowd.html at its default 10,000 characters (or `--count N[,M…]`, in turn) in headless Chromium
 * on SwiftShader, as the examples test does at ?count=4, but waits as long as a software
 * rasteriser needs: it prints the page's own report (drawn, culled, time between frames) as it
 * changes and writes the canvas to test-artifacts/examples/crowd-COUNT.png once frames come.
 * Not part of the suite: one frame of 10,000 takes seconds here (docs/examples.md).
 *
 *   node --import tsx --import ./scripts/raw-loader.mjs scripts/crowd-example-shot.ts [--count N[,M…]] [--wait SECONDS]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBrowserSession } from '../test/support/browser.ts';
import { ARTIFACTS_DIR } from '../test/support/png.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '10000' }, wait: { type: 'string', default: '600' }, width: { type: 'string', default: '800' }, height: { type: 'string', default: '500' } } });
const counts = values.count.split(',').map(Number), waitS = Number(values.wait);
const session = await startBrowserSession();
let started = Date.now();
const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
try {
  for (const count of counts) {
    const { page, consoleErrors: logged } = await session.newPage();
    // tsx compiles the session's WebGPU-error recorder with esbuild's __name helper, which the page
    // lacks (as in scripts/vrm-figure.ts): that error is the recorder's, not the page's.
    const errors = () => logged.filter((e) => e !== '__name is not defined');
    await page.setViewportSize({ width: Number(values.width), height: Number(values.height) });
    started = Date.now();
    await page.goto(`${session.baseUrl}/examples/crowd.html?count=${count}`);
    console.log(`${at()} page loaded (?count=${count})`);
    let text = '', frames = 0;
    const deadline = started + waitS * 1000;
    // Until the page has reported a few frames (its report counts the renderer's frames).
    while (Date.now() < deadline && errors().length === 0 && frames < 3) {
      const now = await page.locator('#count').textContent({ timeout: 120_000 }).catch((e: Error) => `(no answer: ${e.message.split('\n')[0]})`);
      if (now !== text) console.log(`${at()} ${now}`);
      text = now ?? '';
      frames = Number(/([\d,]+) frames/.exec(text)?.[1].replaceAll(',', '') ?? 0);
      await page.waitForTimeout(2_000);
    }
    if (errors().length > 0) console.log(`console errors:\n${errors().join('\n')}`);
    // Stop the page's frame loop, so that the picture need not wait for frames that take long
    // here (an element screenshot waits for two alike; the page's own report has the frame time).
    await page.evaluate(() => { window.requestAnimationFrame = () => 0; });
    const box = (await page.locator('canvas').first().boundingBox())!;
    const shot = await page.screenshot({ clip: box, timeout: 600_000 });
    mkdirSync(join(ARTIFACTS_DIR, 'examples'), { recursive: true });
    const out = join(ARTIFACTS_DIR, 'examples', `crowd-${count}.png`);
    writeFileSync(out, shot);
    console.log(`${at()} ${await page.locator('#count').textContent()}\n${at()} wrote ${out}`);
    await session.checkWebGpuErrors();
    await page.close();
  }
} finally {
  await session.close();
}
