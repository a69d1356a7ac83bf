/**
 * KHR_materials_variants drawn on Dawn/SwiftShader: selecting a variant changes the colour
 * each primitive is drawn with (unmapped primitives keep their own material), back again
 * with -1, without uploading anything again; pipelines for shadows are ready before a switch shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DebugView } from '../../src/gpu/debug/views.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { COLOUR_VARIANTS, variantFileBytes } from '../support/variant-files.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, pixel, projectToPixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 64;
const RED = [255, 0, 0, 255], GREEN = [0, 255, 0, 255], BLUE = [0, 0, 255, 255], YELLOW = [255, 255, 0, 255];

describe.skipIf(!device)('KHR_materials_variants (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.renderer.settings.toneMapping = ToneMapping.NONE;
    await scene.setModel(await loadModel(variantFileBytes(COLOUR_VARIANTS), 'variants'));
  });
  afterAll(() => scene?.destroy());

  /** The left and right quads' centre pixels. */
  function quads(frame: Frame): [number[], number[]] {
    const at = (x: number) => {
      const [px, py] = projectToPixel(scene.camera, SIZE, SIZE, [x, 0, 0]);
      return pixel(frame, px, py);
    };
    return [at(-0.5), at(0.5)];
  }

  it('switches the drawn colour of each mapped primitive, and back with -1', async () => {
    await expectNoGpuErrors(gpu, async () => {
      expect(scene.renderer.variant).toBe(-1);
      expect(quads(await scene.render())).toEqual([RED, GREEN]);
      await scene.renderer.setVariant(0);
      expect(scene.renderer.variant).toBe(0);
      // "blue" maps only the left quad: the right one keeps its own material.
      expect(quads(await scene.render())).toEqual([BLUE, GREEN]);
      await scene.renderer.setVariant(1);
      expect(quads(await scene.render())).toEqual([YELLOW, YELLOW]);
      await scene.renderer.setVariant(-1);
      expect(quads(await scene.render())).toEqual([RED, GREEN]);
    });
  });

  it('shares the upload: a switch creates no buffer of vertices or texture and writes none', async () => {
    const counts: Record<string, number> = {};
    const spied = ['createTexture', 'writeTexture', 'writeBuffer'] as const;
    const originals = spied.map((name) => {
      const target = (name === 'createTexture' ? gpu : gpu.queue) as unknown as Record<string, (...a: unknown[]) => unknown>;
      const original = target[name];
      target[name] = (...args: unknown[]) => {
        counts[name] = (counts[name] ?? 0) + 1;
        return original.apply(target, args);
      };
      return () => { target[name] = original; };
    });
    try {
      await scene.renderer.setVariant(1);
    } finally {
      originals.forEach((undo) => undo());
    }
    expect(counts).toEqual({});
    expect(quads(await scene.render())).toEqual([YELLOW, YELLOW]);
    await scene.renderer.setVariant(-1);
  });

  it('builds the shadow pipelines the current draws have before the switch shows', async () => {
    const r = scene.renderer;
    r.settings.shadows = true;
    try {
      await r.prepareShadows();
      expect(r.shadowsReady).toBe(true);
      await r.setVariant(0);
      expect(r.shadowsReady).toBe(true);
      await expectNoGpuErrors(gpu, async () => expect(quads(await scene.render())[0]).toEqual(BLUE));
    } finally {
      r.settings.shadows = false;
      await r.setVariant(-1);
    }
  });

  it('builds the debug views the current draws have before the switch shows', async () => {
    const r = scene.renderer;
    r.settings.debug = DebugView.WIREFRAME;
    try {
      await r.prepareDebugViews();
      expect(r.debugViewsReady & DebugView.WIREFRAME).toBe(DebugView.WIREFRAME);
      await r.setVariant(1);
      expect(r.debugViewsReady & DebugView.WIREFRAME).toBe(DebugView.WIREFRAME);
      await expectNoGpuErrors(gpu, () => scene.render());
    } finally {
      r.settings.debug = 0;
      await r.setVariant(-1);
    }
  });

  it('a model set while a switch is built drops the switch (the new model shows its own materials)', async () => {
    const r = scene.renderer;
    const other = await loadModel(variantFileBytes(COLOUR_VARIANTS), 'variants again');
    const pending = r.setVariant(1);
    await scene.setModel(other, false);
    await pending;
    expect(r.model).toBe(other);
    expect(r.variant).toBe(-1);
    expect(quads(await scene.render())).toEqual([RED, GREEN]);
  });

  it('the last of overlapping calls wins, and a bad index is refused', async () => {
    const r = scene.renderer;
    await Promise.all([r.setVariant(0), r.setVariant(1)]);
    expect(r.variant).toBe(1);
    await Promise.all([r.setVariant(1 - 1), r.setVariant(-1)]);
    expect(r.variant).toBe(-1);
    expect(quads(await scene.render())).toEqual([RED, GREEN]);
    await expect(r.setVariant(2)).rejects.toThrow(RangeError);
    await expect(r.setVariant(0.5)).rejects.toThrow(RangeError);
    expect(r.variant).toBe(-1);
  });
});
