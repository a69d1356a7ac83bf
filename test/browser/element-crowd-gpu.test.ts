/**
 * <skinned-mesh-viewer>'s `crowd-evaluator` end to end in real Chromium (WebGPU on
 * SwiftShader, Dawn): with `gpu` the crowd's poses are evaluated by the GPU evaluator
 * (no palette upload: stats.joints 0), bounded, culled and drawn indirectly on the GPU;
 * `stats.bytesUploaded` equals every byte the frame's writeBuffers wrote, 32 per instance
 * plus a fixed amount (Fox: its draw records are written on the GPU from the evaluator's
 * placements; RobotExpressive: its bone-riding meshes and face weights from the evaluator too).
 * `instances` beyond the CPU evaluator's 4096 with the GPU evaluator are checked on
 * the stage in Node (test/crowd/render-gpu-crowd.test.ts): thousands of characters take
 * minutes per frame on SwiftShader.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { openElementPage } from './element-support.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

interface FrameCount {
  written: number;
  bytesUploaded: number;
  joints: number;
  instances: number;
  culled: number;
  frames: number;
}

describe.skipIf(!!unavailable)('<skinned-mesh-viewer> crowd-evaluator', () => {
  const session = useBrowserSession();
  let page: Page;
  beforeAll(async () => {
    ({ page } = await openElementPage(session));
    // Every writeBuffer's bytes, counted on the prototype (the library does not know).
    await page.evaluate(() => {
      const w = window as unknown as { written: number };
      w.written = 0;
      const proto = GPUQueue.prototype as unknown as { writeBuffer: (...a: unknown[]) => unknown };
      const original = proto.writeBuffer;
      proto.writeBuffer = function (this: GPUQueue, ...args: unknown[]) {
        const data = args[2] as ArrayBuffer | ArrayBufferView;
        const element = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
        const total = ArrayBuffer.isView(data) ? data.byteLength / element : data.byteLength;
        const offset = (args[3] as number | undefined) ?? 0;
        w.written += ((args[4] as number | undefined) ?? total - offset) * element;
        return original.apply(this, args);
      };
    });
  }, 60_000);

  /** Pauses the viewer, then draws one frame and returns what it wrote and its stats. */
  async function oneFrame(id: string): Promise<FrameCount> {
    return page.evaluate(async (i) => {
      const el = window.helpers.viewer(i);
      el.pause();
      await window.helpers.nextFrames(3);
      const w = window as unknown as { written: number };
      const canvas = window.helpers.canvasOf(el);
      const frames = window.instrument.frames(canvas);
      w.written = 0;
      el.requestRender();
      await window.helpers.waitForFrames(el, 1, 120_000);
      const s = el.stats!;
      return { written: w.written, bytesUploaded: s.bytesUploaded, joints: s.joints, instances: s.instances, culled: s.culled, frames: window.instrument.frames(canvas) - frames };
    }, id);
  }

  it('crowd-evaluator="gpu" instances="50": drawn from the GPU evaluator; bytesUploaded is the frame\'s exact writeBuffer bytes, 32 per instance plus a fixed amount', async () => {
    await page.evaluate(() => window.helpers.addViewer('gpu50', { src: '/assets/Fox.glb', animation: 'Run', autoplay: '', instances: '50', 'crowd-evaluator': 'gpu' }, { timeoutMs: 60_000 }));
    expect(await page.evaluate(() => window.helpers.viewer('gpu50').crowdEvaluator)).toBe('gpu');
    // The first frames draw unculled with records from the CPU while the culling and record pipelines
    // build (asynchronously, Renderer.renderInstances), and building uploads their static tables once.
    await expect.poll(async () => (await oneFrame('gpu50')).written, { timeout: 60_000 }).toBeLessThan(50 * 32 + 2048);
    const gpu = await oneFrame('gpu50');
    expect(gpu.frames).toBe(1);
    expect(gpu.bytesUploaded).toBe(gpu.written);
    // No palettes went up: the GPU evaluated them.
    expect(gpu.joints).toBe(0);
    expect(gpu.written).toBeGreaterThanOrEqual(50 * 32);
    expect(gpu.written).toBeLessThan(50 * 32 + 2048);
    // The visible count comes back a frame or two late: all 50 are drawn or culled.
    await expect.poll(async () => { const f = await oneFrame('gpu50'); return f.instances + f.culled; }, { timeout: 60_000 }).toBe(50);
    // The same crowd on the CPU evaluator uploads its palettes (24 joints × 64 bytes each) and records.
    await page.evaluate(() => { window.helpers.viewer('gpu50').setAttribute('crowd-evaluator', 'cpu'); });
    const cpu = await oneFrame('gpu50');
    expect(cpu.bytesUploaded).toBe(cpu.written);
    expect(cpu.joints).toBe(50 * 24);
    expect(cpu.written).toBeGreaterThan(50 * 24 * 64);
    await page.evaluate(() => window.helpers.viewer('gpu50').remove());
  }, 180_000);
  it('crowd-evaluator="gpu" on RobotExpressive (meshes on bones, a face\'s morph weights): evaluated and drawn on the GPU at 32 bytes per instance', async () => {
    await page.evaluate(() => window.helpers.addViewer('robots', { src: '/assets/RobotExpressive.glb', animation: 'Walking', autoplay: '', instances: '20', 'crowd-evaluator': 'gpu' }, { timeoutMs: 60_000 }));
    // Not moved to the CPU: its moving meshes and morph weights come from the GPU evaluator.
    expect(await page.evaluate(() => window.helpers.viewer('robots').crowdEvaluator)).toBe('gpu');
    await expect.poll(async () => (await oneFrame('robots')).written, { timeout: 60_000 }).toBeLessThan(20 * 32 + 2048);
    const gpu = await oneFrame('robots');
    expect(gpu.joints).toBe(0);
    expect(gpu.bytesUploaded).toBe(gpu.written);
    expect(gpu.written).toBeGreaterThanOrEqual(20 * 32);
    await expect.poll(async () => { const f = await oneFrame('robots'); return f.instances + f.culled; }, { timeout: 60_000 }).toBe(20);
    await page.evaluate(() => window.helpers.viewer('robots').remove());
  }, 180_000);
});
