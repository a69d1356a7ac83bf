import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';

/** An orbit camera set up and updated for `aspect` (test/element/hotspots/placement.test.ts, test/element/allocation.test.ts). */
export function orbitCamera(yaw: number, pitch: number, distance: number, target: number[], aspect: number): OrbitCamera {
  const c = new OrbitCamera();
  c.yaw = yaw; c.pitch = pitch; c.distance = distance;
  c.target.set(target);
  c.near = 0.05; c.far = 50;
  c.update(aspect);
  return c;
}

