import type { Crowd } from '../anim/crowd.ts';
import type { Camera } from '../gpu/frame/camera.ts';
import type { GpuPaletteSource } from '../gpu/draw/culling-pass.ts';
import type { Renderer } from '../gpu/renderer.ts';

/**
 * Draws a crowd (of the renderer's current model, see `renderer.setModel`): its first
 * `count` instances with their placements, each primitive of the model as one instanced
 * draw call, every palette in one storage buffer. With `source` (the crowd's palettes are
 * evaluated on the GPU: GpuPaletteSource) nothing of the palettes is uploaded and the
 * crowd is bounded, culled and drawn indirectly on the GPU (Renderer.renderInstances).
 * Allocates nothing (beyond the renderer's one-time growth to a larger crowd).
 */
export function renderCrowd(renderer: Renderer, target: GPUTexture, camera: Camera, crowd: Crowd, source?: GpuPaletteSource): void {
  renderer.renderInstances(target, camera, crowd.instances, crowd.count, crowd.placementsF32, source);
}
