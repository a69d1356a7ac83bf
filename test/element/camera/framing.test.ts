import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { animatedBounds, AUTO_ORBIT, MAX_ZOOM, ViewerCamera } from '../../../src/element/camera/framing.ts';
import { parseCameraOrbit } from '../../../src/element/attributes.ts';
import { FRAMED_BOUNDS } from './fixtures.ts';

describe('animatedBounds', () => {
  it('contains every sampled pose of the clip and leaves the player where it was', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('character'), { name: 'character' }));
    player.setClip(2); // Wave: the arm rises well above the first pose
    player.seek(0.1);
    const first = computeInstanceBounds(player.instance);
    const swept = animatedBounds(player);
    expect(player.time).toBeCloseTo(0.1, 9);
    for (const t of [0, 0.7, 1.3, 2.5]) {
      player.seek(t);
      const b = computeInstanceBounds(player.instance);
      for (let c = 0; c < 3; c++) {
        expect(swept.min[c]).toBeLessThanOrEqual(b.min[c] + 1e-4);
        expect(swept.max[c]).toBeGreaterThanOrEqual(b.max[c] - 1e-4);
      }
    }
    expect(swept.radius).toBeGreaterThan(first.radius);
  });

  it('is the current pose’s bounds when nothing plays (the rest pose)', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('limb'), { name: 'limb' }));
    player.clip = -1;
    player.evaluate();
    const rest = computeInstanceBounds(player.instance);
    expect(animatedBounds(player)).toEqual(rest);
  });
});

describe('ViewerCamera', () => {
  const bounds = FRAMED_BOUNDS;

  it('starts where camera-orbit says: angles, metres, or a share of the framed distance', () => {
    const view = new ViewerCamera();
    view.reset(AUTO_ORBIT, bounds, 1);
    const framed = view.camera.distance;
    expect(view.camera.yaw).toBe(0);
    expect(view.camera.pitch).toBeCloseTo(Math.PI / 2 - (75 * Math.PI) / 180, 12);
    expect([...view.camera.target]).toEqual([0, 1, 0]);
    view.reset(parseCameraOrbit('auto auto 200%')!, bounds, 1);
    expect(view.camera.distance).toBeCloseTo(framed * 2, 9);
    view.reset(parseCameraOrbit('90deg 90deg 5m')!, bounds, 1);
    expect(view.camera.yaw).toBeCloseTo(Math.PI / 2, 12);
    expect(view.camera.pitch).toBeCloseTo(0, 12);
    expect(view.camera.distance).toBe(5);
    // The clip planes follow the distance, around the bounding sphere.
    expect(view.camera.near).toBeCloseTo(5 - 2 * bounds.radius, 9);
    expect(view.camera.far).toBeCloseTo(5 + 4 * bounds.radius, 9);
  });

  it('a canvas narrower than the framed model widens the vertical field of view (model-viewer 4.4\'s adjustedFoV); the distance stays', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('auto 90deg')!, bounds, 1);
    const distance = view.camera.distance;
    // Seen from the front the box is 1 m wide and 2 m tall: framed at 30°, it needs a view about half as wide as tall.
    const ideal = view.idealAspect;
    expect(ideal).toBeGreaterThan(0.4);
    expect(ideal).toBeLessThan(0.8);
    expect(view.camera.fovY).toBeCloseTo(Math.PI / 6, 12);
    view.setAspect(0.1);
    expect(view.camera.distance).toBeCloseTo(distance, 12);
    expect(view.camera.fovY).toBeCloseTo(2 * Math.atan(Math.tan(Math.PI / 12) * (ideal / 0.1)), 12);
    expect(view.maxFieldOfView).toBeCloseTo(view.camera.fovY, 12);
    // Exactly as wide as the model needs: no widening.
    view.setAspect(ideal);
    expect(view.camera.fovY).toBeCloseTo(Math.PI / 6, 12);
  });

  it('zooms within limits and keeps the zoom across a re-frame until the orbit is reset', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('0deg 90deg 2m')!, bounds, 1);
    view.zoomBy(0.5);
    // The goal moved; the camera eases there (interpolation-decay) or jumps.
    expect(view.camera.distance).toBe(2);
    view.jumpToGoal();
    expect(view.camera.distance).toBe(1);
    view.setAspect(1.5);
    expect(view.camera.distance).toBe(1);
    for (let i = 0; i < 100; i++) view.zoomBy(2);
    view.jumpToGoal();
    expect(view.camera.distance).toBe(2 * MAX_ZOOM);
    // The clamped zoom is what remains: one step back zooms in at once.
    view.zoomBy(0.5);
    view.jumpToGoal();
    expect(view.camera.distance).toBe(MAX_ZOOM);
    view.reset(parseCameraOrbit('0deg 90deg 2m')!, bounds, 1);
    expect(view.camera.distance).toBe(2);
  });

  function settle(view: ViewerCamera, dt = 1 / 60, frames = 600): number[] {
    const trace: number[] = [];
    for (let i = 0; i < frames && view.update(dt); i++) trace.push(view.camera.distance);
    return trace;
  }

  it('eases to the goal without overshoot (interpolation-decay), about 80% of the way after one decay', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('0deg 90deg 4m')!, bounds, 1);
    view.update(0);
    view.settings.decay = 0.2;
    view.zoomBy(0.5);
    view.update(0);
    for (let i = 0; i < 12; i++) view.update(1 / 60);
    // 0.2 s later: (1 + 3)·e^−3 ≈ 20% of the 2 m move remains.
    expect(view.camera.distance).toBeCloseTo(2 + 2 * 4 * Math.exp(-3), 6);
    const trace = settle(view);
    for (let i = 1; i < trace.length; i++) expect(trace[i]).toBeLessThanOrEqual(trace[i - 1]);
    expect(view.camera.distance).toBe(2);
    expect(view.update(1 / 60)).toBe(false);
    expect(view.active).toBe(false);
    // A decay of 0 jumps.
    view.settings.decay = 0;
    view.zoomBy(2);
    expect(view.update(1 / 60)).toBe(true);
    expect(view.camera.distance).toBe(4);
  });

  it('clamps the goal to min/max-camera-orbit and the field of view to its limits; reports who moved it', () => {
    const view = new ViewerCamera();
    view.reset(AUTO_ORBIT, bounds, 1);
    const limits = view.settings.limits;
    limits.minTheta = -Math.PI / 4;
    limits.maxTheta = Math.PI / 4;
    limits.minPhi = Math.PI / 3;
    limits.maxPhi = Math.PI / 2;
    limits.minRadius = { value: 3, unit: 'm' };
    limits.maxRadius = { value: 5, unit: 'm' };
    view.applyLimits();
    view.jumpToGoal();
    expect(view.camera.distance).toBeGreaterThanOrEqual(3);
    expect(view.camera.distance).toBeLessThanOrEqual(5);
    view.orbitBy(10, 10);
    expect(view.source).toBe('user-interaction');
    view.zoomBy(100);
    view.jumpToGoal();
    expect(view.camera.yaw).toBeCloseTo(Math.PI / 4, 12);
    expect(Math.PI / 2 - view.camera.pitch).toBeCloseTo(Math.PI / 3, 12);
    expect(view.camera.distance).toBe(5);
    view.orbitBy(-10, -10);
    view.zoomBy(1e-6);
    view.jumpToGoal();
    expect(view.camera.yaw).toBeCloseTo(-Math.PI / 4, 12);
    expect(Math.PI / 2 - view.camera.pitch).toBeCloseTo(Math.PI / 2, 12);
    expect(view.camera.distance).toBe(3);
    view.settings.fieldOfView = Math.PI / 2;
    view.setFieldOfViewGoal('none');
    view.jumpToGoal();
    expect(view.source).toBe('none');
    // model-viewer 4.4's limits: 12°…30°.
    expect(view.camera.fovY).toBeCloseTo((30 * Math.PI) / 180, 12);
    view.settings.fieldOfView = 0.01;
    view.setFieldOfViewGoal('none');
    view.jumpToGoal();
    expect(view.camera.fovY).toBeCloseTo((12 * Math.PI) / 180, 12);
    // A minimum above the maximum wins, as there.
    view.settings.minFieldOfView = (60 * Math.PI) / 180;
    view.setFieldOfViewGoal('none');
    view.jumpToGoal();
    expect(view.camera.fovY).toBeCloseTo((60 * Math.PI) / 180, 12);
  });

  it('camera-target moves the goal target; a pan moves it in the view plane; the default field of view is 30°', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('0deg 90deg 2m')!, bounds, 1);
    expect(view.camera.fovY).toBeCloseTo(Math.PI / 6, 12);
    view.settings.target = { x: 1, y: undefined, z: -2 };
    view.setTargetGoal();
    view.jumpToGoal();
    expect([...view.camera.target]).toEqual([1, 1, -2]);
    // From the front (theta 0, phi 90°): right is +X, up is +Y. Dragging right moves the model right: the target left.
    view.panBy(0.25, 0);
    view.jumpToGoal();
    const height = 2 * 2 * Math.tan(Math.PI / 12);
    expect(view.camera.target[0]).toBeCloseTo(1 - 0.25 * height, 9);
    expect(view.camera.target[1]).toBeCloseTo(1, 9);
    view.panBy(0, 0.5);
    view.jumpToGoal();
    expect(view.camera.target[1]).toBeCloseTo(1 + 0.5 * height, 9);
  });

  it('auto-rotate turns the turntable (not the camera) at rotation-per-second once auto-rotate-delay has passed without interaction', () => {
    const view = new ViewerCamera();
    view.reset(AUTO_ORBIT, bounds, 1);
    view.update(0);
    view.settings.autoRotate = true;
    view.settings.autoRotateDelay = 0.5;
    view.settings.rotationPerSecond = 1;
    for (let i = 0; i < 10; i++) view.update(0.05);
    expect(view.turntable).toBe(0);
    for (let i = 0; i < 10; i++) expect(view.update(0.05)).toBe(true);
    expect(view.turntable).toBeCloseTo(0.5, 9);
    expect(view.camera.yaw).toBe(0);
    expect(view.source).toBe('automatic');
    expect(view.active).toBe(true);
    // An interaction holds it for the delay again.
    view.orbitBy(0, 0);
    view.update(0.05);
    const held = view.turntable;
    view.update(0.05);
    expect(view.turntable).toBe(held);
    // Wrapped to (−π, π]; set directly by resetTurntableRotation.
    view.turntable = 3 * Math.PI / 2;
    expect(view.turntable).toBeCloseTo(-Math.PI / 2, 12);
  });
});
