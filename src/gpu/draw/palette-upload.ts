/**
 * A frame's joint palettes into the palette storage buffer, with one writeBuffer: where
 * they are when the instances' matrices already sit back to back (one instance, or a
 * Crowd's), else copied into the model's staging array, and for dual-quaternion and
 * centre-of-rotation skinning converted there into DqJoint entries (same slots, same bytes).
 */
import { dqPaletteFromMatrices } from '../../anim/dq-palette.ts';
import type { ModelInstance } from '../../anim/instance.ts';
import { usesDqPalette } from '../../anim/skinning-method.ts';
import { PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS } from '../layouts/bindings.ts';
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
 * Whether the palettes of these `count` instances (the frame's list before culling) go up
 * where they are: linear skinning, matrices back to back. Their draw records then point at
 * each kept instance's slot in that list.
 */
export function palettesUploadInPlace(modelDraws: ModelDraws, instances: readonly ModelInstance[], count: number): boolean {
  const paletteBytes = modelDraws.paletteMatrices * PALETTE_MATRIX_BYTES;
  return paletteBytes > 0 && !usesDqPalette(modelDraws.skinning) && palettesContiguous(instances, count, paletteBytes);
}

/**
 * Uploads the palettes of the `count` instances drawn (after culling), or with `inPlace`
 * (palettesUploadInPlace) those of all `sourceCount` instances before culling, culled ones
 * too: one write, no copy. Returns the joint entries of the instances drawn
 * (RenderStats.joints). Allocates nothing.
 */
export function uploadPalettes(
  queue: GPUQueue, modelDraws: ModelDraws, instances: readonly ModelInstance[], count: number,
  inPlace: boolean, sourceInstances: readonly ModelInstance[], sourceCount: number,
): number {
  const { paletteMatrices, paletteBuffer, paletteStaging: staging } = modelDraws;
  const paletteBytes = paletteMatrices * PALETTE_MATRIX_BYTES;
  if (paletteBytes === 0) return 0;
  if (usesDqPalette(modelDraws.skinning)) {
    for (let k = 0; k < count; k++) dqPaletteFromMatrices(instances[k].palette, paletteMatrices, staging, 0, k * paletteMatrices);
    queue.writeBuffer(paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
  } else if (inPlace) {
    const palette = sourceInstances[0].palette;
    queue.writeBuffer(paletteBuffer, 0, palette.buffer, palette.byteOffset, paletteBytes * sourceCount);
  } else {
    const floats = paletteMatrices * PALETTE_MATRIX_FLOATS;
    for (let k = 0; k < count; k++) staging.set(instances[k].palette, k * floats);
    queue.writeBuffer(paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
  }
  return paletteMatrices * count;
}

/** The bytes `uploadPalettes` writes for the same arguments (RenderStats.bytesUploaded). */
export function paletteUploadBytes(modelDraws: ModelDraws, count: number, inPlace: boolean, sourceCount: number): number {
  // DqJoint entries take the matrices' slots: the same bytes.
  return modelDraws.paletteMatrices * PALETTE_MATRIX_BYTES * (inPlace && !usesDqPalette(modelDraws.skinning) ? sourceCount : count);
}
