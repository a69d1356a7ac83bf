/**
 * Renders docs/vrm-side-by-side.png, docs/vrm.md's picture of a VRM avatar: left, the built-in
 * VRM 0.x avatar in <skinned-mesh-viewer> (our renderer, WebGPU); right, the same file in
 * three-vrm 3.5 (three.js WebGL), posed alike (scripts/vrm-figure-page.ts says how). Both are
 * drawn in headless Chromium on SwiftShader and put side by side.
 *
 *   node --import tsx --import ./scripts/raw-loader.mjs scripts/vrm-figure.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { chromium } from 'playwright-core';
import { CHROMIUM, chromiumArgs, startBrowserSession } from '../test/support/browser.ts';
import { decodeBase64Image } from '../test/browser/element-support.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/vrm-side-by-side.png');
const GAP = 8;

const session = await startBrowserSession();
// Two browsers: ours draws with WebGPU in the tests' browser (SwiftShader through Vulkan, where
// Chromium offers no WebGL2); three.js draws with WebGL2, which Chromium gives on SwiftShader
// through ANGLE with the second browser's flags (where it offers no WebGPU adapter).
const args = chromiumArgs().filter((a) => !/^--(use-angle|use-vulkan|enable-features)=/.test(a));
const webgl = await chromium.launch({ executablePath: CHROMIUM, args: [...args, '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
try {
  const { page, consoleErrors } = await session.newPage();
  await page.goto(`${session.baseUrl}/scripts/vrm-figure.html`);
  const ours = await page.evaluate(async () => {
    const el = document.getElementById('ours') as HTMLElement & {
      loaded: boolean; pause(): void; currentTime: number; toDataURL(t?: string): string;
      getCameraOrbit(): { theta: number; phi: number; radius: number }; getCameraTarget(): { x: number; y: number; z: number }; getFieldOfView(): number;
    };
    await new Promise<void>((done) => { if (el.loaded) done(); else el.addEventListener('load', () => done(), { once: true }); });
    el.pause();
    el.currentTime = 0.5;
    // Two seconds of frames: the springs settle, as three-vrm's do.
    await new Promise((r) => setTimeout(r, 2000));
    const o = el.getCameraOrbit(), t = el.getCameraTarget();
    // The camera the element settled on, for three.js to take.
    const camera = { theta: o.theta, phi: o.phi, radius: o.radius, target: [t.x, t.y, t.z], fov: el.getFieldOfView() };
    return { png: el.toDataURL('image/png'), camera };
  });
  const threePage = await webgl.newPage({ viewport: { width: 760, height: 520 } });
  threePage.on('pageerror', (e) => consoleErrors.push(e.message));
  await threePage.goto(`${session.baseUrl}/scripts/vrm-figure.html?three`);
  await threePage.waitForFunction(() => (window as unknown as { drawThreeVrm?: unknown }).drawThreeVrm !== undefined, undefined, { timeout: 60_000 });
  const theirs = await threePage.evaluate((camera) => (window as unknown as { drawThreeVrm: (c: typeof camera) => Promise<string> }).drawThreeVrm(camera), ours.camera);
  // tsx compiles the session's WebGPU-error recorder with esbuild's __name helper, which the page
  // lacks: that recorder does not run here, and its error is not the figure's.
  const errors = consoleErrors.filter((e) => e !== '__name is not defined');
  if (errors.length > 0) console.warn(errors.join('\n'));
  const a = decodeBase64Image(ours.png.split(',')[1]), b = decodeBase64Image(theirs.split(',')[1]);
  const out = new PNG({ width: a.width + GAP + b.width, height: Math.max(a.height, b.height) });
  out.data.fill(255);
  const blit = (img: typeof a, x0: number) => {
    for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) {
      const s = (y * img.width + x) * 4, d = (y * out.width + x0 + x) * 4;
      out.data[d] = img.data[s]; out.data[d + 1] = img.data[s + 1]; out.data[d + 2] = img.data[s + 2]; out.data[d + 3] = 255;
    }
  };
  blit(a, 0);
  blit(b, a.width + GAP);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, PNG.sync.write(out));
  console.log(`wrote ${OUT} (${out.width}×${out.height})`);
} finally {
  await webgl.close();
  await session.close();
}
