import type { Crowd } from '../anim/crowd.ts';
import type { Camera } from './camera.ts';
import type { Renderer } from './renderer.ts';

/**
 * Draws a crowd (of the renderer's current model, see `renderer.setModel`): its first
 * `count` instances with their placements, each primitive of the model as one instanced
 * draw call, every palette in one storage buffer. Allocates nothing (beyond the
 * renderer's one-time growth to a larger crowd).
 */
export function renderCrowd(renderer: Renderer, target: GPUTexture, camera: Camera, crowd: Crowd): void {
  renderer.renderInstances(target, camera, crowd.instances, crowd.count, crowd.placementsF32);
}
