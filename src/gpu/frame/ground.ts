/**
 * The ground disc (RenderSettings.ground): a matte horizontal disc under the model, at the
 * lowest point of its rest pose, that receives the key light's shadow (mesh.wgsl vsGround /
 * fsGround, no vertex buffer: six vertices from the vertex index; its centre and radius
 * ride in the frame uniforms). Drawn in the lit pass after the opaque draws, blended (its
 * rim fades out), without writing depth.
 *
 * Placement from the rest pose (load time) and the instances' placements, not from the
 * animated pose: the disc stays still while a character walks in place. A skeleton that
 * moves away from its placement (root motion left in the pose) walks off the disc.
 */
import type { Model } from '../../gltf/model.ts';
import { restPoseBounds } from './bounds.ts';
import type { FrameUniformsData } from '../layouts/frame-uniforms.ts';
import { deviceFrameDraw, type FrameDraw, type FrameDrawKind } from '../pipelines/frame-draw.ts';

/** The disc's radius in rest radii of the model (around the instances' spread). */
const RADIUS_IN_REST_RADII = 3;

/** A model's rest-pose footprint: where its disc goes (load time). */
export interface GroundFootprint {
  /** Lowest y and centre x, z of the rest pose in world units, and the rest bounding radius. */
  readonly minY: number;
  readonly centerX: number;
  readonly centerZ: number;
  readonly radius: number;
}

export function groundFootprint(model: Model): GroundFootprint {
  const b = restPoseBounds(model);
  return { minY: b.min[1], centerX: b.center[0], centerZ: b.center[2], radius: b.radius };
}

/**
 * Fills the frame's ground fields for `count` instances (placements: 16 floats each, or
 * none) seen from `eye`: the disc spans every instance's rest centre, at the lowest rest
 * point. Allocates nothing.
 */
export function placeGround(
  footprint: GroundFootprint, count: number, placements: ArrayLike<number> | undefined, eye: ArrayLike<number>, frame: FrameUniformsData,
): void {
  let minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity, y = Infinity;
  const { centerX: cx, centerZ: cz, minY } = footprint;
  for (let k = 0; k < (placements ? count : 1); k++) {
    let x = cx, z = cz, low = minY;
    if (placements) {
      const p = k * 16;
      x = placements[p] * cx + placements[p + 4] * minY + placements[p + 8] * cz + placements[p + 12];
      low = placements[p + 1] * cx + placements[p + 5] * minY + placements[p + 9] * cz + placements[p + 13];
      z = placements[p + 2] * cx + placements[p + 6] * minY + placements[p + 10] * cz + placements[p + 14];
    }
    minX = Math.min(minX, x); maxX = Math.max(maxX, x);
    minZ = Math.min(minZ, z); maxZ = Math.max(maxZ, z);
    y = Math.min(y, low);
  }
  frame.groundCenter[0] = (minX + maxX) / 2 - eye[0];
  frame.groundCenter[1] = y - eye[1];
  frame.groundCenter[2] = (minZ + maxZ) / 2 - eye[2];
  frame.groundRadius[0] = Math.hypot(maxX - minX, maxZ - minZ) / 2 + footprint.radius * RADIUS_IN_REST_RADII;
}

const GROUND_DISC: FrameDrawKind = {
  name: 'ground disc', vertexEntry: 'vsGround', fragmentEntry: 'fsGround', vertexCount: 6, blend: true, depthCompare: 'less',
};

export type GroundDisc = FrameDraw;

/** The device's ground disc for `format`: one pipeline per device and format, shared by every Renderer. */
export function groundDisc(device: GPUDevice, format: GPUTextureFormat): GroundDisc {
  return deviceFrameDraw(device, GROUND_DISC, format);
}
