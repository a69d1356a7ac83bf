import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { computeInstanceBounds } from '../../src/gpu/bounds.ts';
import { animatedBounds, AUTO_ORBIT, MAX_ZOOM, ViewerCamera } from '../../src/element/framing.ts';
import { parseCameraOrbit } from '../../src/element/attributes.ts';

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
  const bounds = {
    min: Float32Array.of(-0.5, 0, -0.25), max: Float32Array.of(0.5, 2, 0.25),
    center: Float32Array.of(0, 1, 0), radius: Math.hypot(1, 2, 0.5) / 2,
  };

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

  it('frames again when the aspect changes: a narrow canvas needs more distance', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('auto 90deg')!, bounds, 0.1);
    const narrow = view.camera.distance;
    view.setAspect(1);
    expect(view.camera.distance).toBeLessThan(narrow);
  });

  it('zooms within limits and keeps the zoom across a re-frame until the orbit is reset', () => {
    const view = new ViewerCamera();
    view.reset(parseCameraOrbit('0deg 90deg 2m')!, bounds, 1);
    view.zoomBy(0.5);
    expect(view.camera.distance).toBe(1);
    view.setAspect(1.5);
    expect(view.camera.distance).toBe(1);
    for (let i = 0; i < 100; i++) view.zoomBy(2);
    expect(view.camera.distance).toBe(2 * MAX_ZOOM);
    view.reset(parseCameraOrbit('0deg 90deg 2m')!, bounds, 1);
    expect(view.camera.distance).toBe(2);
  });
});
