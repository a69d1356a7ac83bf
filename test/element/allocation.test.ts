/**
 * The element's per-frame paths that run in Node allocate nothing: the camera's easing and
 * auto-rotation (camera/framing.ts) and hotspot placement with occlusion (hotspots/placement.ts).
 * Heap counts need a worker of their own (NODE_ISOLATED_TESTS in vite.config.ts), so they share
 * this file rather than isolating framing.test.ts and placement.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { AUTO_ORBIT, ViewerCamera } from '../../src/element/camera/framing.ts';
import { facesEye, jointHotspot, occluded, placeHotspot, projectToPixels } from '../../src/element/hotspots/placement.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { createRayHit, SkinnedRaycaster } from '../../src/skin/raycast.ts';
import { loadCharacter } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';
import { FRAMED_BOUNDS } from './camera/fixtures.ts';
import { orbitCamera } from './hotspots/fixtures.ts';

describe('ViewerCamera frames allocate nothing', () => {
  it('a frame of easing and auto-rotation allocates nothing', async () => {
    const view = new ViewerCamera();
    view.reset(AUTO_ORBIT, FRAMED_BOUNDS, 1);
    view.settings.autoRotate = true;
    view.settings.autoRotateDelay = 0;
    view.settings.decay = 0.1;
    let k = 0;
    const frame = (): void => {
      // A new goal every 30 frames keeps the easing busy.
      if (++k % 30 === 0) view.zoomBy(k % 60 === 0 ? 1.5 : 1 / 1.5);
      view.update(1 / 60);
    };
    const result = await measureAllocation(frame, 3_000, 64 * 1024);
    expect(result.clean.length, JSON.stringify(result.rounds)).toBeGreaterThan(0);
  });
});

describe('hotspot frames allocate nothing', () => {
  it('a frame of placement, projection and occlusion allocates nothing', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0.2);
    const caster = new SkinnedRaycaster(model);
    const hit = createRayHit();
    const c = orbitCamera(0.4, 0.2, 4, [0, 1, 0], 1.5);
    const hand = findSlot(model, 'Hand.L');
    const offset = Float64Array.of(0, 0.05, 0), normal = Float64Array.of(1, 0, 0);
    // A placed hotspot in front of the feet, seen: its ray runs the whole way (between the feet, at 5 cm, the
    // character's shoes and trouser hems hide it since its figure was shaped).
    const ahead = Float64Array.of(0, 0.05, 0.3);
    const world = new Float64Array(3), worldNormal = new Float64Array(3), px = new Float64Array(3);
    const placement = composeTRS([1, 0, 0], [0, 0, 0, 1], [1, 1, 1], new Float64Array(16));
    let visible = 0;
    const frame = (): void => {
      caster.invalidate();
      jointHotspot(instance, hand, offset, placement, world, normal, worldNormal);
      if (projectToPixels(c, world, 800, 600, px) && facesEye(c.eye, world, worldNormal)
        && !occluded(caster, instance, placement, c.eye, world, 0.06, hit)) visible++;
      placeHotspot(placement, ahead, normal, world, worldNormal);
      if (!occluded(caster, instance, placement, c.eye, world, 0, hit)) visible++;
    };
    const { rounds, clean } = await measureAllocation(frame, 300, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(visible).toBeGreaterThan(0);
  });
});
