import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { animatedMaterials, MaterialAnimation } from '../../src/anim/material-tracks.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { MaterialAnimOffset as A, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../src/gltf/extensions/khr-animation-pointer.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { measureAllocation } from '../support/allocation.ts';
import { addPointerAnimation, asPointerTrack, buildPointerScene, SceneNode } from '../support/animation-pointer.ts';

const f = Math.fround;
const BASE_UV = A.UV_TRANSFORM + TextureSlot.BASE_COLOR * UV_TRANSFORM_FLOATS;
const EMISSIVE_UV = A.UV_TRANSFORM + TextureSlot.EMISSIVE * UV_TRANSFORM_FLOATS;

/**
 * Clip 0 "pulse": material 0's base colour LINEAR red → blue, emissive STEP, alpha cutoff
 * CUBICSPLINE, base colour UV offset LINEAR, emissive UV rotation LINEAR; and node rotation.
 * Clip 1 "blue": material 0's base colour held blue. Material 1 is never animated.
 */
function buildPulse(): Promise<Model> {
  return loadGltf(buildPointerScene((b) => {
    addPointerAnimation(b, 'pulse', [
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: Float32Array.of(0, 1), output: Float32Array.of(1, 0, 0, 1, 0, 0, 1, 0.5), type: 'VEC4' },
      { pointer: '/materials/0/emissiveFactor', input: Float32Array.of(0, 0.5), output: Float32Array.of(1, 1, 1, 0, 0.5, 0), type: 'VEC3', interpolation: 'STEP' },
      // in-tangent, value, out-tangent per key: 0.2 → 0.8 with zero tangents (smoothstep).
      { pointer: '/materials/0/alphaCutoff', input: Float32Array.of(0, 2), output: Float32Array.of(0, 0.2, 0, 0, 0.8, 0), type: 'SCALAR', interpolation: 'CUBICSPLINE' },
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 1, -2), type: 'VEC2' },
      { pointer: '/materials/0/emissiveTexture/extensions/KHR_texture_transform/rotation', input: Float32Array.of(1, 2), output: Float32Array.of(0, Math.PI), type: 'SCALAR' },
      asPointerTrack({ node: SceneNode.ARM, path: 'rotation', input: Float32Array.of(0, 2), output: Float32Array.of(0, 0, 0, 1, 0, 1, 0, 0) }),
    ]);
    addPointerAnimation(b, 'blue', [
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: Float32Array.of(0), output: Float32Array.of(0, 0, 1, 1), type: 'VEC4' },
    ]);
  }));
}

const block = (m: MaterialAnimation) => Array.from(m.block(0)!);
const expectClose = (actual: ArrayLike<number>, expected: readonly number[], what: string) =>
  expected.forEach((e, i) => expect(actual[i], `${what}[${i}]: ${Array.from(actual)}`).toBeCloseTo(e, 6));

describe('MaterialAnimation: KHR_animation_pointer material tracks sampled on the CPU', () => {
  it('samples factors and texture transforms at times; what no track writes keeps the material\'s own value', async () => {
    const model = await buildPulse();
    expect(animatedMaterials(model)).toEqual([0]);
    const m = new MaterialAnimation(model);
    expect(m.block(1)).toBeUndefined();
    const at = (time: number): number[] => {
      m.clip = 0;
      m.time = time;
      m.evaluate();
      return block(m);
    };
    let v = at(0.25);
    expectClose(v.slice(A.BASE_COLOR_FACTOR, 4), [0.75, 0, 0.25, 0.875], 'base colour');
    expectClose(v.slice(A.EMISSIVE_FACTOR, 7), [1, 1, 1], 'emissive (STEP)');
    expect(v[A.ALPHA_CUTOFF]).toBeCloseTo(0.2 + 0.6 * (3 * 0.125 ** 2 - 2 * 0.125 ** 3), 6);
    expectClose(v.slice(BASE_UV, BASE_UV + 5), [0.25, -0.5, 0, 2, 2], 'base colour UV offset; rotation 0, the file\'s scale 2');
    expect(v[EMISSIVE_UV + UvTransformOffset.ROTATION]).toBe(0); // before its first key: the first value
    v = at(1.5);
    expectClose(v.slice(0, 4), [0, 0, 1, 0.5], 'base colour clamped after the last key');
    expectClose(v.slice(A.EMISSIVE_FACTOR, 7), [0, 0.5, 0], 'emissive second key');
    expect(v[A.ALPHA_CUTOFF]).toBeCloseTo(0.2 + 0.6 * (3 * 0.75 ** 2 - 2 * 0.75 ** 3), 6);
    expect(v[EMISSIVE_UV + UvTransformOffset.ROTATION]).toBeCloseTo(f(Math.PI) / 2, 6);
    // The rest: -1 gives the material's own values.
    m.clip = -1;
    m.evaluate();
    expectClose(block(m), [0.2, 0.4, 0.6, 1, 0.1, 0.2, 0.3, 0.25, 0, 0, 0, 2, 2], 'material 0 as loaded');
  });

  it('counts changes: evaluating the same values again leaves `version` alone', async () => {
    const m = new MaterialAnimation(await buildPulse());
    m.clip = 0;
    m.time = 0.5;
    m.evaluate();
    const v = m.version;
    m.evaluate();
    expect(m.version).toBe(v);
    m.time = 0.6;
    m.evaluate();
    expect(m.version).toBe(v + 1);
  });

  it('AnimationPlayer plays material tracks with its clip and crossfades them as it blends poses', async () => {
    const model = await buildPulse();
    const p = new AnimationPlayer(model);
    const m = p.instance.materialAnimation!;
    expectClose(block(m), [1, 0, 0, 1], 'clip 0 at 0');
    p.play();
    p.update(0.5);
    expectClose(block(m), [0.5, 0, 0.5, 0.75], 'clip 0 at 0.5');
    p.crossfadeTo(1, 1);
    p.update(0.25);
    // Outgoing clip 0 at 0.75 ([0.25, 0, 0.75, 0.625]) weighs 0.75; clip 1 (blue) 0.25.
    expectClose(block(m), [0.1875, 0, 0.8125, 0.71875], 'crossfade');
    p.update(1);
    expectClose(block(m), [0, 0, 1, 1], 'clip 1 after the fade');
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0.25);
    expectClose(block(instance.materialAnimation!), [0.75, 0, 0.25, 0.875], 'updateModelInstance');
    expect(createModelInstance(await loadGltf(buildPointerScene(() => {}))).materialAnimation).toBeUndefined();
  });

  it('a crowd evaluates its first instance\'s material values', async () => {
    const crowd = new Crowd(await buildPulse(), 3);
    crowd.clip.fill(0);
    crowd.update(0.25);
    expectClose(block(crowd.instances[0].materialAnimation!), [0.75, 0, 0.25, 0.875], 'crowd instance 0');
    expect(crowd.instances[1].materialAnimation).toBeUndefined();
  });

  it('a playing frame with material tracks allocates nothing', async () => {
    const p = new AnimationPlayer(await buildPulse());
    p.play();
    const { rounds, clean } = await measureAllocation(() => p.update(1 / 60), 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(p.instance.materialAnimation!.version).toBeGreaterThan(1000);
  });

  it('evaluating a material crossfade allocates nothing', async () => {
    // The material side of a crossfade, driven through the fields the player sets (the
    // player's crossfade frames are measured in player.test.ts). Times live in a typed array:
    // a double in the closure would be boxed.
    const m = new AnimationPlayer(await buildPulse()).instance.materialAnimation!;
    const time = new Float64Array(1);
    let frames = 0;
    const frame = (): void => {
      time[0] = time[0] >= 2 ? 0 : time[0] + 1 / 60;
      m.clip = 0;
      m.time = time[0];
      if (++frames === 90) {
        frames = 0;
        m.fromClip = m.fromClip < 0 ? 1 : -1;
        m.fromTime = time[0];
      }
      m.weight = m.fromClip >= 0 ? 0.5 : 1;
      m.evaluate();
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    expect(m.version).toBeGreaterThan(1000);
  });
});
