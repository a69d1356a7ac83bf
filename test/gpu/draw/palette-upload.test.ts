/**
 * Palette upload (src/gpu/draw/palette-upload.ts) against a recording queue: one writeBuffer per
 * frame, from where the palettes are when they sit back to back, else from the staging
 * copy (DqJoint entries for dual-quaternion skinning); it returns the bytes it wrote
 * (RenderStats.bytesUploaded), checked against the write itself. And the feed a pass plans.
 */
import { describe, expect, it } from 'vitest';
import { dqPaletteFromMatrices } from '../../../src/anim/dq-palette.ts';
import type { ModelInstance } from '../../../src/anim/instance.ts';
import type { SkinningMethod } from '../../../src/anim/skinning-method.ts';
import { PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS } from '../../../src/gpu/layouts/bindings.ts';
import type { ModelDraws } from '../../../src/gpu/draw/model-draws.ts';
import { FramePlan, type PaletteFeed } from '../../../src/gpu/draw/frame-plan.ts';
import { paletteFeed, palettesUploadInPlace, uploadPalettes } from '../../../src/gpu/draw/palette-upload.ts';
import type { GpuPaletteSource } from '../../../src/gpu/draw/palette-source.ts';

const JOINTS = 2;
const FLOATS = JOINTS * PALETTE_MATRIX_FLOATS;

/** A joint matrix per entry: a rotation about z by a different angle, with a translation. */
function fillPalettes(out: Float32Array): Float32Array {
  for (let j = 0; j < out.length / 16; j++) {
    const a = 0.3 * (j + 1), o = j * 16;
    out.set([Math.cos(a), Math.sin(a), 0, 0, -Math.sin(a), Math.cos(a), 0, 0, 0, 0, 1, 0, j, 2 * j, 0, 1], o);
  }
  return out;
}

function draws(skinning: SkinningMethod, instances: number, paletteMatrices = JOINTS): ModelDraws {
  return { paletteMatrices, skinning, paletteBuffer: { label: 'palettes' }, paletteStaging: new Float32Array(paletteMatrices * 16 * instances) } as unknown as ModelDraws;
}

function recordingQueue(): { queue: GPUQueue; writes: { buffer: ArrayBufferLike; offset: number; size: number }[] } {
  const writes: { buffer: ArrayBufferLike; offset: number; size: number }[] = [];
  const queue = {
    writeBuffer: (_target: GPUBuffer, _at: number, buffer: ArrayBufferLike, offset: number, size: number) => { writes.push({ buffer, offset, size }); },
  } as unknown as GPUQueue;
  return { queue, writes };
}

const asInstances = (palettes: Float32Array[]) => palettes.map((palette) => ({ palette }) as unknown as ModelInstance);

/** A pass's plan as uploadPalettes reads it: `visible` drawn (after culling) of `instances` (before), fed as `feed`. */
function planOf(visible: ModelInstance[], feed: PaletteFeed, instances: ModelInstance[], skinning: SkinningMethod = 'linear'): FramePlan {
  const plan = new FramePlan();
  plan.setRange(instances, 0, instances.length, instances.length, 0, undefined);
  plan.visible = visible;
  plan.visibleCount = visible.length;
  plan.feed = feed;
  plan.skinning = skinning;
  return plan;
}

describe('palette upload', () => {
  const crowd = fillPalettes(new Float32Array(3 * FLOATS));
  const backToBack = asInstances([0, 1, 2].map((k) => crowd.subarray(k * FLOATS, (k + 1) * FLOATS)));
  const apart = asInstances([0, 1, 2].map(() => fillPalettes(new Float32Array(FLOATS))));

  it('in place only for linear skinning of palettes back to back (a Crowd\'s, or one instance)', () => {
    expect(palettesUploadInPlace(draws('linear', 3), backToBack, 3)).toBe(true);
    expect(palettesUploadInPlace(draws('linear', 3), apart, 1)).toBe(true);
    expect(palettesUploadInPlace(draws('linear', 3), apart, 3)).toBe(false);
    expect(palettesUploadInPlace(draws('dual-quaternion', 3), backToBack, 3)).toBe(false);
    expect(palettesUploadInPlace(draws('linear', 3, 0), backToBack, 3)).toBe(false);
  });

  it('in place: one write of every instance before culling, from the palettes themselves', () => {
    const { queue, writes } = recordingQueue();
    const kept = [backToBack[2], backToBack[0]];
    expect(uploadPalettes(queue, draws('linear', 3), planOf(kept, 'in-place', backToBack))).toBe(3 * JOINTS * PALETTE_MATRIX_BYTES);
    expect(writes).toEqual([{ buffer: crowd.buffer, offset: crowd.byteOffset, size: 3 * JOINTS * PALETTE_MATRIX_BYTES }]);
  });

  it('copied: the instances drawn, in order, through the staging array', () => {
    const { queue, writes } = recordingQueue();
    const d = draws('linear', 3);
    const kept = [apart[2], apart[0]];
    expect(uploadPalettes(queue, d, planOf(kept, 'copied', apart))).toBe(2 * JOINTS * PALETTE_MATRIX_BYTES);
    expect(writes).toEqual([{ buffer: d.paletteStaging.buffer, offset: 0, size: 2 * JOINTS * PALETTE_MATRIX_BYTES }]);
    expect(d.paletteStaging.subarray(0, FLOATS)).toEqual(apart[2].palette);
    expect(d.paletteStaging.subarray(FLOATS, 2 * FLOATS)).toEqual(apart[0].palette);
  });

  it('dual-quaternion: each instance\'s entries converted into its slots, one write', () => {
    const { queue, writes } = recordingQueue();
    const d = draws('dual-quaternion', 3);
    expect(uploadPalettes(queue, d, planOf(backToBack, 'copied', backToBack, 'dual-quaternion'))).toBe(3 * JOINTS * PALETTE_MATRIX_BYTES);
    expect(writes).toEqual([{ buffer: d.paletteStaging.buffer, offset: 0, size: 3 * JOINTS * PALETTE_MATRIX_BYTES }]);
    const expected = new Float32Array(3 * FLOATS);
    for (let k = 0; k < 3; k++) dqPaletteFromMatrices(backToBack[k].palette, JOINTS, expected, 0, k * JOINTS);
    expect(d.paletteStaging).toEqual(expected);
  });

  it('the feed is decided once per pass, from the method, the range and the source', () => {
    const source = { palettes: { label: 'gpu palettes' } } as unknown as GpuPaletteSource;
    const feed = (instances: ModelInstance[], skinning: SkinningMethod, withSource: boolean, total = instances.length) => {
      const plan = new FramePlan();
      plan.setRange(instances, 0, instances.length, total, 0, undefined);
      plan.skinning = skinning;
      plan.source = withSource ? source : undefined;
      return paletteFeed(plan, draws(skinning, total));
    };
    expect(feed(backToBack, 'linear', false)).toBe('in-place');
    expect(feed(apart, 'linear', false)).toBe('copied');
    expect(feed(backToBack, 'dual-quaternion', false)).toBe('copied');
    expect(feed(backToBack, 'center-of-rotation', false)).toBe('copied');
    expect(feed([], 'linear', false)).toBe('copied');
    expect(feed(backToBack, 'linear', true)).toBe('gpu');
    expect(feed(backToBack, 'linear', true, 5)).toBe('gpu-range');
    expect(feed(backToBack, 'dual-quaternion', true)).toBe('gpu-converted');
    expect(feed(backToBack, 'center-of-rotation', true, 5)).toBe('gpu-converted');
  });

  it('nothing for a model without skins', () => {
    const { queue, writes } = recordingQueue();
    expect(uploadPalettes(queue, draws('linear', 1, 0), planOf(backToBack.slice(0, 1), 'copied', backToBack.slice(0, 1)))).toBe(0);
    expect(writes).toEqual([]);
  });
});
