import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/anim/crowd.ts';
import { createModelInstance, updateModelInstance } from '../../src/anim/instance.ts';
import { animatedMaterials, MaterialAnimation } from '../../src/anim/material-tracks.ts';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { MaterialAnimOffset as A, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../src/gltf/extensions/khr-animation-pointer.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { buildPointerScene } from '../support/animation-pointer.ts';
import { buildPulse } from './pulse-fixture.ts';

const f = Math.fround;
const BASE_UV = A.UV_TRANSFORM + TextureSlot.BASE_COLOR * UV_TRANSFORM_FLOATS;
const EMISSIVE_UV = A.UV_TRANSFORM + TextureSlot.EMISSIVE * UV_TRANSFORM_FLOATS;


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
});
