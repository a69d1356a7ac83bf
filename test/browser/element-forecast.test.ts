/**
 * <skinned-mesh-viewer> asks for its model's pipelines from the file's JSON (the forecast:
 * gltf/model-shape.ts, element/loading/early-shape.ts, Renderer.forecast), in real Chromium:
 * the page hands the element the Fox's GLB header and JSON chunk, and holds the BIN chunk back
 * until the element asks for a mesh pipeline or its environment shows, whichever comes first.
 * Without the forecast the mesh pipeline is asked for only once the buffers are read, so the
 * environment releases the BIN first and the test fails. The Fox's texture needs no mipmap pipeline
 * (its levels are made on the CPU). The device is handed over only after
 * the JSON arrived. The page's `neutral` lighting asks for no pipeline at all (prefiltered on the
 * CPU), so only the mesh pipeline compiles before the first frame's. The adapter is asked for
 * as the element connects, before the model's fetch (which waits for the near-viewport observer's
 * first report), so that the GPU process starts while the page lays out and fetches
 * (element/shared-device.ts); and `neutral`'s CPU prefilter runs before the device is there
 * (element/lighting.ts prefilterAhead), not after it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { openElementPage } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

const LOAD_TIMEOUT = 60_000;
/**
 * Slices of CPU work the page must have yielded before the device is handed over: `neutral`'s
 * prefilter yields ~20 times (BRDF table, cube faces, specular levels); without it nothing yields then.
 */
const AHEAD_YIELDS = 5;
/** How long the device is held back at most waiting for them (only a failing run waits this long). */
const AHEAD_FALLBACK_MS = 15_000;

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> forecasts its pipelines from the JSON', () => {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    // A page of its own: the device (shared by a page's viewers) is first asked for by this test.
    ({ page } = await openElementPage(session));
  }, 60_000);

  it('asks for an adapter as it connects, before the model\'s fetch; asks for the mesh pipeline while the BIN chunk is held back; and its texture\'s mipmap pipeline; the neutral lighting asks for none and is prefiltered before the device arrives', async () => {
    const result = await page.evaluate(async ([timeout, AHEAD_YIELDS, AHEAD_FALLBACK_MS]) => {
      const log: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((done) => { release = done; });
      let jsonDelivered!: () => void;
      const jsonArrived = new Promise<void>((done) => { jsonDelivered = done; });

      const create = GPUDevice.prototype.createRenderPipeline;
      GPUDevice.prototype.createRenderPipeline = function (descriptor) {
        log.push(`pipeline ${descriptor.label}`);
        return create.call(this, descriptor);
      };
      const createAsync = GPUDevice.prototype.createRenderPipelineAsync;
      GPUDevice.prototype.createRenderPipelineAsync = function (descriptor) {
        log.push(`pipeline ${descriptor.label}`);
        if (descriptor.label?.startsWith('mesh ')) release();
        return createAsync.call(this, descriptor);
      };
      // The tasks the library's CPU work yields to (gpu/device/next-task.ts posts a message per slice):
      // `neutral`'s prefilter needs no device, so its slices run while the device is held back below.
      let yields = 0;
      let yielded!: () => void;
      const prefilterYielded = new Promise<void>((done) => { yielded = done; });
      const postMessage = MessagePort.prototype.postMessage;
      MessagePort.prototype.postMessage = function (this: MessagePort, ...args: Parameters<MessagePort['postMessage']>) {
        if (++yields === AHEAD_YIELDS) yielded();
        return postMessage.apply(this, args);
      } as MessagePort['postMessage'];
      // The device only once the JSON was read and the prefilter has yielded a few times (or, when
      // nothing runs ahead of the device, after a while), a task later: its shape is known by then.
      const requestDevice = GPUAdapter.prototype.requestDevice;
      let yieldsBeforeDevice = 0;
      GPUAdapter.prototype.requestDevice = async function (descriptor) {
        await jsonArrived;
        await Promise.race([prefilterYielded, new Promise((done) => setTimeout(done, AHEAD_FALLBACK_MS))]);
        await new Promise((done) => setTimeout(done, 0));
        yieldsBeforeDevice = yields;
        log.push('device');
        return requestDevice.call(this, descriptor);
      };
      // The adapter is asked for during the element's connection (append below), the fetch only later.
      const requestAdapter = GPU.prototype.requestAdapter;
      GPU.prototype.requestAdapter = function (options) {
        log.push('adapter');
        return requestAdapter.call(this, options);
      };
      const pageFetch = window.fetch;
      window.fetch = async (input, init) => {
        if (String(input).endsWith('/assets/Fox.glb')) log.push('fetch');
        const response = await pageFetch(input, init);
        if (!String(input).endsWith('/assets/Fox.glb')) return response;
        const bytes = new Uint8Array(await response.arrayBuffer());
        // GLB header (12 bytes), JSON chunk header (8), the JSON: then the BIN chunk.
        const jsonEnd = 20 + new DataView(bytes.buffer).getUint32(12, true);
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (log.includes('json')) {
              await released;
              log.push('bin');
              controller.enqueue(bytes.slice(jsonEnd));
              controller.close();
              return;
            }
            log.push('json');
            controller.enqueue(bytes.slice(0, jsonEnd));
            jsonDelivered();
          },
        });
        return new Response(body, { headers: { 'content-length': String(bytes.byteLength), 'content-type': 'model/gltf-binary' } });
      };

      const el = document.createElement('skinned-mesh-viewer');
      el.id = 'f';
      el.setAttribute('src', '/assets/Fox.glb');
      // Without a forecast nothing asks for a mesh pipeline before the BIN: the environment showing releases it.
      el.addEventListener('environment-change', () => release(), { once: true });
      document.getElementById('stage')!.append(el);
      log.push('connected');
      try {
        await window.helpers.whenLoaded(el, timeout);
        await window.helpers.drawFrames(el, 1);
      } finally {
        GPUDevice.prototype.createRenderPipelineAsync = createAsync;
        GPUDevice.prototype.createRenderPipeline = create;
        GPUAdapter.prototype.requestDevice = requestDevice;
        GPU.prototype.requestAdapter = requestAdapter;
        window.fetch = pageFetch;
        MessagePort.prototype.postMessage = postMessage;
      }
      return { log, yieldsBeforeDevice, frames: window.instrument.frames(window.helpers.canvasOf(el)) };
    }, [LOAD_TIMEOUT, AHEAD_YIELDS, AHEAD_FALLBACK_MS] as const);

    const { log } = result;
    const firstMesh = log.findIndex((entry) => entry.startsWith('pipeline mesh '));
    const firstEnvironment = log.findIndex((entry) => entry.startsWith('pipeline environment prefilter'));
    expect(log.indexOf('adapter'), log.join('\n')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('adapter'), log.join('\n')).toBeLessThan(log.indexOf('connected'));
    expect(log.indexOf('connected'), log.join('\n')).toBeLessThan(log.indexOf('fetch'));
    expect(log.indexOf('json')).toBeLessThan(log.indexOf('device'));
    expect(firstMesh, log.join('\n')).toBeGreaterThan(log.indexOf('device'));
    // Asked for from the JSON alone, while the buffers were still on their way.
    expect(firstMesh, log.join('\n')).toBeLessThan(log.indexOf('bin'));
    // The Fox's texture (an opaque 1024² PNG, read back as pixels) gets its levels on the CPU
    // (textures.ts CPU_MIPMAP_MAX_TEXELS), so no mipmap pipeline is forecast or made (pipeline-forecast.ts
    // mipmappedFormats): the mesh pipeline is the one compile before the first frame.
    expect(log.filter((entry) => entry.startsWith('pipeline ') && !entry.startsWith('pipeline mesh ')), log.join('\n')).toEqual([]);
    // The lighting asks for none: `neutral` is prefiltered on the CPU (src/gpu/environment/cpu-prefilter.ts),
    // so nothing of its competes with the mesh pipeline's compile in the GPU process.
    expect(firstEnvironment, log.join('\n')).toBe(-1);
    // And starts before the device is there (element/lighting.ts prefilterAhead): it is not left for after it.
    expect(result.yieldsBeforeDevice, log.join('\n')).toBeGreaterThanOrEqual(AHEAD_YIELDS);
    expect(result.frames).toBeGreaterThan(0);
  }, 90_000);
});
