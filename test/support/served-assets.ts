/**
 * The model files the browser tests' pages fetch under `/assets/…`: the shared assets read in
 * place, plus broken, generated and slow variants, served by the test dev server
 * (`servedAssets`, a Vite plugin that startDevServer in browser.ts adds).
 *
 * Served by the server rather than by a Playwright route: a page with any route has its HTTP
 * cache turned off and every request, the library's ~290 modules included, sent through the
 * test's Node process; without one, a later page of the same browser context revalidates the
 * modules it already has (Vite answers 304) and reuses their compiled code.
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { assetPath } from './assets.ts';
import { COLOUR_VARIANTS, variantFileBytes } from './variant-files.ts';

/** Where the pages find the assets. */
export const ASSETS_PATH = '/assets/';

/** How long `/assets/slow/…` waits before answering. */
export const SLOW_MS = 700;

/** Under ASSETS_PATH: `slow/X` is X, answered SLOW_MS late. */
const SLOW_PREFIX = 'slow/';

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

/** The asset's name in a path the page asked for (`/assets/slow/Fox.glb` → `slow/Fox.glb`), or undefined outside ASSETS_PATH. */
export function assetName(pathname: string): string | undefined {
  return pathname.startsWith(ASSETS_PATH) ? decodeURIComponent(pathname.slice(ASSETS_PATH.length)) : undefined;
}

/**
 * Serves ASSETS_PATH from the test dev server. Every answer says `no-store`, so each fetch
 * of a page reaches the server (tests count them, and a page's later fetch of the same file
 * must not come from the cache an earlier page of the context filled).
 */
export function servedAssets(): Plugin {
  return {
    name: 'test-served-assets',
    configureServer(server) {
      server.middlewares.use(ASSETS_PATH, (request, response) => {
        // connect strips the mount path: request.url is `/NAME?query`.
        let name = decodeURIComponent(new URL(request.url ?? '/', 'http://test').pathname.slice(1));
        const slow = name.startsWith(SLOW_PREFIX);
        if (slow) name = name.slice(SLOW_PREFIX.length);
        const answer = () => {
          // The page aborted the request meanwhile (a newer src won): nothing to answer.
          if (response.destroyed) return;
          const asset = assetBody(name);
          response.setHeader('cache-control', 'no-store');
          if (!asset) {
            response.statusCode = 404;
            response.setHeader('content-type', 'text/plain');
            response.end('not found');
            return;
          }
          response.statusCode = 200;
          response.setHeader('content-type', asset.type);
          response.setHeader('content-length', String(asset.body.byteLength));
          response.end(asset.body);
        };
        if (slow) setTimeout(answer, SLOW_MS);
        else answer();
      });
    },
  };
}
