/**
 * A frame's joint palettes into the palette storage buffer, with one writeBuffer: where
 * they are when the instances' matrices already sit back to back (one instance, or a
 * Crowd's), else copied into the model's staging array, and for a method that reads DqJoint
 * entries (usesDqPalette) converted there (same slots, same bytes).
 */
import { dqPaletteFromMatrices } from '../../anim/dq-palette.ts';
import type { ModelInstance } from '../../anim/instance.ts';
import { usesDqPalette } from '../../anim/skinning-method.ts';
import { PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS } from '../layouts/bindings.ts';
import type { FramePlan, PaletteFeed } from './frame-plan.ts';
import type { ModelDraws } from './model-draws.ts';

/** Whether the instances' palettes follow each other in one ArrayBuffer (as a Crowd lays them out). */
function palettesContiguous(instances: readonly ModelInstance[], count: number, paletteBytes: number): boolean {
  if (count === 1) return true;
  const first = instances[0].palette;
  for (let k = 1; k < count; k++) {
    const p = instances[k].palette;
    if (p.buffer !== first.buffer || p.byteOffset !== first.byteOffset + k * paletteBytes) return false;
  }
  return true;
}

/**
 * Whether the palettes of these `count` instances (the pass's list before culling) go up
 * where they are: a method that reads matrices, matrices back to back. Their draw records
 * then point at each kept instance's slot in that list.
 */
export function palettesUploadInPlace(modelDraws: ModelDraws, instances: readonly ModelInstance[], count: number): boolean {
  const paletteBytes = modelDraws.paletteMatrices * PALETTE_MATRIX_BYTES;
  return paletteBytes > 0 && !usesDqPalette(modelDraws.skinning) && palettesContiguous(instances, count, paletteBytes);
}

/**
 * Where a pass's palettes come from (PaletteFeed), for its method, range and source: a GPU
 * source is bound as it is, copied by range (a chunk) or converted (a method that reads
 * DqJoint entries); the instances' palettes go up in place when they can, else copied.
 */
export function paletteFeed(plan: FramePlan, modelDraws: ModelDraws | undefined): PaletteFeed {
  if (plan.source) return usesDqPalette(plan.skinning) ? 'gpu-converted' : plan.chunked ? 'gpu-range' : 'gpu';
  return modelDraws !== undefined && plan.count > 0 && palettesUploadInPlace(modelDraws, plan.instances, plan.count) ? 'in-place' : 'copied';
}

/**
 * Uploads the palettes of a pass whose feed is the instances: those drawn, after culling, in
 * order (converted to DqJoint entries for a method that reads them: same slots, same bytes),
 * or `in-place` those of all the pass's instances before culling, culled ones too: one write,
 * no copy. Returns the bytes written. Allocates nothing.
 */
export function uploadPalettes(queue: GPUQueue, modelDraws: ModelDraws, plan: FramePlan): number {
  const { paletteMatrices, paletteBuffer, paletteStaging: staging } = modelDraws;
  const paletteBytes = paletteMatrices * PALETTE_MATRIX_BYTES;
  if (paletteBytes === 0) return 0;
  const visible = plan.visible, count = plan.visibleCount;
  if (plan.feed === 'in-place') {
    const palette = plan.instances[0].palette;
    queue.writeBuffer(paletteBuffer, 0, palette.buffer, palette.byteOffset, paletteBytes * plan.count);
    return paletteBytes * plan.count;
  }
  if (usesDqPalette(plan.skinning)) {
    for (let k = 0; k < count; k++) dqPaletteFromMatrices(visible[k].palette, paletteMatrices, staging, 0, k * paletteMatrices);
  } else {
    const floats = paletteMatrices * PALETTE_MATRIX_FLOATS;
    for (let k = 0; k < count; k++) staging.set(visible[k].palette, k * floats);
  }
  queue.writeBuffer(paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
  return paletteBytes * count;
}
