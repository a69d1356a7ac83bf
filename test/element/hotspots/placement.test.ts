import { describe, expect, it } from 'vitest';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { findSlot } from '../../../src/anim/mask.ts';
import { composeTRS } from '../../../src/math/trs.ts';
import { createRayHit, SkinnedRaycaster } from '../../../src/skin/raycast.ts';
import {
  facesEye, JOINT_OCCLUSION_SLACK, jointHotspot, occluded, parseHotspotVector, pixelRay, placeHotspot, projectToPixels,
} from '../../../src/element/hotspots/placement.ts';
import { loadCharacter } from '../../anim/fixtures.ts';
import { orbitCamera as camera } from './fixtures.ts';


describe('parseHotspotVector (model-viewer data-position syntax)', () => {
  it('reads metres, centimetres, millimetres and bare numbers, signed', () => {
    expect(parseHotspotVector('1m 2cm -3mm')).toEqual([1, 0.02, -0.003]);
    expect(parseHotspotVector('  0.5 -1.25e1   3M ')).toEqual([0.5, -12.5, 3]);
    expect(parseHotspotVector('-.5m +2 0')).toEqual([-0.5, 2, 0]);
  });
  it('refuses anything else', () => {
    for (const bad of ['', '1 2', '1 2 3 4', '1x 2 3', '1deg 2 3', '1% 2 3', 'a b c', '1e999 0 0', null, undefined]) {
      expect(parseHotspotVector(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('projection and pixel rays', () => {
  it('the target projects to the centre; a projected point lies on the ray through its pixel', () => {
    const c = camera(0.7, 0.3, 4, [1, 1.2, -2], 16 / 9);
    const px = new Float64Array(3);
    expect(projectToPixels(c, [1, 1.2, -2], 1280, 720, px)).toBe(true);
    expect(px[0]).toBeCloseTo(640, 3);
    expect(px[1]).toBeCloseTo(360, 3);
    expect(px[2]).toBeCloseTo(4, 5);
    const o = new Float64Array(3), d = new Float64Array(3);
    for (const p of [[1.3, 1.5, -2.2], [0.2, 0.4, -1], [2, 2, -3]]) {
      expect(projectToPixels(c, p, 1280, 720, px)).toBe(true);
      pixelRay(c, px[0], px[1], 1280, 720, o, d);
      expect(Math.hypot(d[0], d[1], d[2])).toBeCloseTo(1, 12);
      // Distance from p to the ray.
      const r = [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
      const along = r[0] * d[0] + r[1] * d[1] + r[2] * d[2];
      expect(Math.hypot(r[0] - along * d[0], r[1] - along * d[1], r[2] - along * d[2])).toBeLessThan(1e-5);
    }
    // Up on screen is up in the world; right is the camera's right.
    expect(projectToPixels(c, [1, 1.7, -2], 1280, 720, px)).toBe(true);
    expect(px[1]).toBeLessThan(360);
  });
  it('a point behind the eye does not project', () => {
    const c = camera(0, 0, 3, [0, 0, 0], 1);
    const px = Float64Array.of(-1, -1, -1);
    expect(projectToPixels(c, [0, 0, 5], 100, 100, px)).toBe(false);
    expect([...px]).toEqual([-1, -1, -1]);
  });
});

describe('joint hotspots', () => {
  it('ride on the joint, offset in its frame, through the placement', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    const hand = findSlot(model, 'Hand.L');
    const m = instance.nodeMatrices;
    const out = new Float64Array(3), normal = new Float64Array(3);
    for (const time of [0, 0.3, 0.6]) {
      updateModelInstance(instance, 0, time);
      jointHotspot(instance, hand, [0, 0, 0], null, out);
      expect([...out]).toEqual([m[hand * 16 + 12], m[hand * 16 + 13], m[hand * 16 + 14]]);
      jointHotspot(instance, hand, [0, 0.1, 0], null, out, [1, 0, 0], normal);
      for (let r = 0; r < 3; r++) {
        expect(out[r]).toBeCloseTo(m[hand * 16 + 4 + r] * 0.1 + m[hand * 16 + 12 + r], 12);
        const nx = m[hand * 16 + r] / Math.hypot(m[hand * 16], m[hand * 16 + 1], m[hand * 16 + 2]);
        expect(normal[r]).toBeCloseTo(nx, 12);
      }
    }
    const placement = composeTRS([2, 0, 1], [0, Math.SQRT1_2, 0, Math.SQRT1_2], [1, 1, 1], new Float64Array(16));
    jointHotspot(instance, hand, [0, 0, 0], null, out);
    const unplaced = [...out];
    jointHotspot(instance, hand, [0, 0, 0], placement, out);
    // A quarter turn about +Y: (x, y, z) → (z, y, −x), then the translation.
    expect(out[0]).toBeCloseTo(unplaced[2] + 2, 12);
    expect(out[1]).toBeCloseTo(unplaced[1], 12);
    expect(out[2]).toBeCloseTo(-unplaced[0] + 1, 12);
    placeHotspot(placement, [1, 0, 0], [0, 0, 2], out, normal);
    expect([...out].map((v) => +v.toFixed(12) + 0)).toEqual([2, 0, 0]);
    expect([...normal].map((v) => +v.toFixed(12) + 0)).toEqual([1, 0, 0]);
  });
});

describe('visibility', () => {
  it('facing: the normal must point toward the eye', () => {
    expect(facesEye([0, 0, 5], [0, 0, 0], [0, 0, 1])).toBe(true);
    expect(facesEye([0, 0, 5], [0, 0, 0], [0, 0, -1])).toBe(false);
    expect(facesEye([0, 5, 0], [0, 0, 0], [0, 1, 0])).toBe(true);
  });

  it('occlusion: the body hides what is behind it, a joint is not hidden by its own limb', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0);
    const caster = new SkinnedRaycaster(model);
    const hit = createRayHit();
    const radius = computeInstanceBounds(instance).radius;
    const slack = JOINT_OCCLUSION_SLACK * radius;
    const m = instance.nodeMatrices;
    const at = (name: string) => { const s = findSlot(model, name) * 16; return [m[s + 12], m[s + 13], m[s + 14]]; };
    const chest = at('Chest');
    const front = [chest[0], chest[1], 4], back = [chest[0], chest[1], -4];
    const behind = [chest[0], chest[1], -0.4];
    // A point behind the chest: hidden from the front, seen from behind.
    expect(occluded(caster, instance, null, front, behind, 0, hit)).toBe(true);
    expect(occluded(caster, instance, null, back, behind, 0, hit)).toBe(false);
    // The left hand's joint (inside the hand) with the joint slack: seen from its own side and
    // from the front, hidden from the far side of the body.
    const hand = at('Hand.L');
    expect(occluded(caster, instance, null, [4, hand[1], hand[2]], hand, slack, hit)).toBe(false);
    expect(occluded(caster, instance, null, [hand[0], hand[1], 4], hand, slack, hit)).toBe(false);
    expect(occluded(caster, instance, null, [-4, hand[1], hand[2]], hand, slack, hit)).toBe(true);
    // Without slack the hand's own skin hides its joint.
    expect(occluded(caster, instance, null, [4, hand[1], hand[2]], hand, 0, hit)).toBe(true);
  });
});
