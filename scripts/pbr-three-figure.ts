/**
 * Renders docs/pbr-vs-three.png, the materials guide's picture of the PBR extensions side by side
 * with three.js r187's WebGPURenderer: the scenes of test/browser/pbr-three.test.ts
 * (test/browser/pbr-three-cases.ts: clearcoat, sheen, transmission, iridescence, one row each),
 * left ours, middle three.js's, right ours with the extension ignored; drawn on the test's page in
 * headless Chromium (WebGPU on SwiftShader) and shown at twice the size.
 *
 *   node --import tsx --import ./scripts/raw-loader.mjs scripts/pbr-three-figure.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRgba, type Rgba8Image } from '../test/browser/element-support.ts';
import { aboveEachOther, besideEachOther, PBR_THREE_CASES, pbrThreeGlb, pbrThreeScene } from '../test/browser/pbr-three-cases.ts';
import { startBrowserSession } from '../test/support/browser.ts';
import { encodePng } from '../test/support/png.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/pbr-vs-three.png');
const BACKGROUND = [40, 40, 46] as const;
const SCALE = 2;

function enlarged(image: Rgba8Image): Rgba8Image {
  const width = image.width * SCALE, height = image.height * SCALE, data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const i = (Math.floor(y / SCALE) * image.width + Math.floor(x / SCALE)) * 4;
    data.set(image.data.subarray(i, i + 4), (y * width + x) * 4);
  }
  return { width, height, data };
}

const session = await startBrowserSession();
try {
  const { page } = await session.newPage();
  await page.goto(`${session.baseUrl}/test/browser/pages/pbr-three.html`);
  await page.waitForFunction(() => typeof window.pbrThree === 'function', undefined, { timeout: 120_000 });
  const rows: Rgba8Image[] = [];
  for (const c of PBR_THREE_CASES) {
    const row: Rgba8Image[] = [];
    for (const [fn, withExtension] of [['pbrOurs', true], ['pbrThree', true], ['pbrOurs', false]] as const) {
      const s = pbrThreeScene(pbrThreeGlb(c, withExtension));
      const result = await page.evaluate(([name, request]) => window[name](request), [fn, s] as const);
      if (result.errors.length > 0 || result.warnings.length > 0) throw new Error(`${c.name} ${fn}: ${[...result.errors, ...result.warnings].join('; ')}`);
      row.push(rawRgba(s.width, s.height, result.rgba));
    }
    rows.push(besideEachOther(row, 4, BACKGROUND));
  }
  const figure = enlarged(aboveEachOther(rows, 4, BACKGROUND));
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, encodePng(figure.width, figure.height, figure.data));
  console.log(`wrote ${OUT} (${figure.width}×${figure.height})`);
} finally {
  await session.close();
}
