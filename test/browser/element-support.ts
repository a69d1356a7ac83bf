/**
 * Node-side support for the <skinned-mesh-viewer> browser tests: the model files the
 * pages fetch (shared assets read in place, plus broken and slow variants) served through
 * Playwright routes, and decoding of what the page sends back.
 */
import { readFileSync } from 'node:fs';
import type { CDPSession, Page, Route } from 'playwright-core';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { assetPath } from '../support/assets.ts';
import { decodeImageBytes } from '../support/png.ts';
import { COLOUR_VARIANTS, variantFileBytes } from '../support/variant-files.ts';

/**
 * Opens test/browser/pages/NAME on the test server and waits for the element and the page's
 * helpers (`timeout`: longer for the first page of a run, which waits for Vite to transform the library).
 */
export async function openTestPage(page: Page, baseUrl: string, name = 'element-basic.html', timeout?: number): Promise<void> {
  await page.goto(`${baseUrl}/test/browser/pages/${name}`);
  await page.waitForFunction(() => window.helpers !== undefined && customElements.get('skinned-mesh-viewer') !== undefined, undefined, timeout === undefined ? {} : { timeout });
}

/** How long `/assets/slow/…` waits before answering. */
export const SLOW_MS = 700;

/** A .gltf whose buffer is a separate file in a subfolder with a space in its name. */
function splitCharacter(): { gltf: Uint8Array; bin: Uint8Array } {
  const { json, bin } = parseGlb(buildBuiltinGlb('character'));
  const root = json as { buffers: { byteLength: number; uri?: string }[] };
  root.buffers[0].uri = 'data/character%20buffer.bin';
  return { gltf: new TextEncoder().encode(JSON.stringify(root)), bin: bin! };
}

let cachedSplit: ReturnType<typeof splitCharacter> | undefined;

/** The body for `/assets/NAME`, or undefined for a 404. */
export function assetBody(name: string): { body: Uint8Array; type: string } | undefined {
  const glb = 'model/gltf-binary';
  switch (name) {
    case 'not-gltf.glb':
      return { body: new TextEncoder().encode('<!doctype html><title>Oops</title><p>This is a web page, not a model.'), type: 'text/html' };
    case 'truncated.glb': {
      const whole = readFileSync(assetPath('CesiumMan'));
      return { body: new Uint8Array(whole.subarray(0, Math.floor(whole.length * 0.6))), type: glb };
    }
    case 'split/character.gltf':
      cachedSplit ??= splitCharacter();
      return { body: cachedSplit.gltf, type: 'model/gltf+json' };
    case 'variants.glb':
      return { body: variantFileBytes(COLOUR_VARIANTS), type: glb };
    case 'split/data/character buffer.bin':
      cachedSplit ??= splitCharacter();
      return { body: cachedSplit.bin, type: 'application/octet-stream' };
  }
  const m = /^([A-Za-z]+)\.glb$/.exec(name);
  if (!m) return undefined;
  try {
    return { body: new Uint8Array(readFileSync(assetPath(m[1]))), type: glb };
  } catch {
    return undefined;
  }
}

/** Serves `/assets/…` to the page; `/assets/slow/X` is X after SLOW_MS. Returns the paths requested. */
export async function serveAssets(page: Page): Promise<string[]> {
  const requested: string[] = [];
  await page.route('**/assets/**', async (route: Route) => {
    const url = new URL(route.request().url());
    let name = decodeURIComponent(url.pathname.replace(/^\/assets\//, ''));
    requested.push(name);
    if (name.startsWith('slow/')) {
      name = name.slice('slow/'.length);
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    }
    const asset = assetBody(name);
    try {
      if (!asset) {
        await route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
      } else {
        await route.fulfill({
          status: 200,
          headers: { 'content-type': asset.type, 'content-length': String(asset.body.byteLength) },
          body: Buffer.from(asset.body),
        });
      }
    } catch {
      // The page aborted the request (a newer src won): nothing to answer.
    }
  });
  return requested;
}

/**
 * Serves bytes the test made to the page under `/PREFIX/NAME`: `file(NAME)` gives the body
 * and content type, or undefined for a 404.
 */
export async function serveFiles(page: Page, prefix: string, file: (name: string) => { body: Uint8Array; type: string } | undefined): Promise<void> {
  await page.route(`**/${prefix}/**`, async (route: Route) => {
    const name = decodeURIComponent(new URL(route.request().url()).pathname.replace(new RegExp(`^/${prefix}/`), ''));
    const found = file(name);
    if (!found) await route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
    else await route.fulfill({ status: 200, headers: { 'content-type': found.type }, body: Buffer.from(found.body) });
  });
}

/**
 * How often to retry an `expect.poll` whose every try is a capture(): capture() draws the frame
 * again and reads it back, so at vitest's default (a try every 50 ms) the tries would draw more
 * than the page does, on the CPU rasteriser that the change being waited for also needs.
 */
export const CAPTURE_POLL_MS = 500;

export interface Rgba8Image {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export function decodeBase64Image(base64: string): Rgba8Image {
  const decoded = decodeImageBytes(new Uint8Array(Buffer.from(base64, 'base64')));
  return { width: decoded.width, height: decoded.height, data: new Uint8Array(decoded.data) };
}

export function rawRgba(width: number, height: number, base64: string): Rgba8Image {
  return { width, height, data: new Uint8Array(Buffer.from(base64, 'base64')) };
}

/** Fraction of pixels that differ from the top-left pixel (the background) by more than `tolerance` in any channel. */
export function foregroundFraction(image: Rgba8Image, tolerance = 8): number {
  const d = image.data;
  let count = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - d[0]) > tolerance || Math.abs(d[i + 1] - d[1]) > tolerance
      || Math.abs(d[i + 2] - d[2]) > tolerance || Math.abs(d[i + 3] - d[3]) > tolerance) count++;
  }
  return count / (d.length / 4);
}

/** Fraction of pixels whose largest channel difference exceeds `tolerance`. */
export function changedFraction(a: Rgba8Image, b: Rgba8Image, tolerance = 8): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`size ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let count = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    for (let c = 0; c < 4; c++) {
      if (Math.abs(a.data[i + c] - b.data[i + c]) > tolerance) {
        count++;
        break;
      }
    }
  }
  return count / (a.data.length / 4);
}

/** Largest per-channel difference. */
export function maxDifference(a: Rgba8Image, b: Rgba8Image): number {
  let max = 0;
  for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i] - b.data[i]));
  return max;
}

interface AxNode {
  nodeId: string;
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  properties?: { name: string; value: { value: unknown } }[];
  childIds?: string[];
}

/**
 * What Chromium's accessibility tree (CDP Accessibility domain, enabled on `cdp`) holds for
 * the page, as a screen reader gets it: the names of its images, and the text and `live`
 * setting of its role="status" regions, in document order.
 */
export async function readAccessibility(cdp: CDPSession): Promise<{ images: string[]; status: string[]; live: unknown[] }> {
  const { nodes } = await cdp.send('Accessibility.getFullAXTree') as unknown as { nodes: AxNode[] };
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const text = (node: AxNode): string => (node.role?.value === 'StaticText' ? node.name?.value ?? '' : (node.childIds ?? []).map((id) => text(byId.get(id)!)).join(''));
  const shown = nodes.filter((n) => !n.ignored);
  const statuses = shown.filter((n) => n.role?.value === 'status');
  return {
    images: shown.filter((n) => n.role?.value === 'image').map((n) => n.name?.value ?? ''),
    status: statuses.map(text),
    live: statuses.map((n) => n.properties?.find((p) => p.name === 'live')?.value.value),
  };
}
