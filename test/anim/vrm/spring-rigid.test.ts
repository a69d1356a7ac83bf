/**
 * RigidFrames says which spring joints stand in rigid frames, so SpringBoneJob may skip their
 * normalisations and invert their parents by the transpose. It must say no for every kind of
 * frame that is not (a scale, a rotation that is not unit, a `matrix` node, a joint moved off its
 * rest translation, a joint's rest scale) and for every joint below it, or the job would step
 * with the wrong axis lengths;
 * and the shortcuts must not change the motion: the same fixture stepped with them and without
 * (a root scaled by 1 + 2⁻⁴⁰ turns them off) agrees to rounding.
 */
import { describe, expect, it } from 'vitest';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { SpringBoneJob } from '../../../src/anim/vrm/spring-bones.ts';
import { RigidFrames } from '../../../src/anim/vrm/spring-rigid.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { buildSpringFixture } from '../../support/vrm-fixtures.ts';

async function fixture(headScale?: [number, number, number]): Promise<Model> {
  return loadGltf(buildSpringFixture({ version: 1, ...(headScale ? { headScale } : {}) }));
}

function rigidFrames(model: Model): RigidFrames {
  const h = model.hierarchy;
  return new RigidFrames(h, Int32Array.from(model.vrm!.springBones!.jointNode, (n) => h.slotOf[n]));
}

const slotOf = (model: Model, name: string): number => model.hierarchy.slotOf[model.nodes.findIndex((n) => n.name === name)];

describe('RigidFrames', () => {
  it('holds the joints and every node above them, and only those', async () => {
    const model = await fixture();
    const slots = Array.from(rigidFrames(model).slots);
    for (const name of ['root', 'body', 'head', 'hair0', 'hair3', 'skirt2']) expect(slots).toContain(slotOf(model, name));
    // The chain ends' tail nodes carry nothing the springs turn.
    expect(slots).not.toContain(slotOf(model, 'hair3_end'));
  });

  it('says rigid for a rest pose and a turned one, and not for each way a frame stops being rigid', async () => {
    const model = await fixture();
    const frames = rigidFrames(model);
    const pose = createPose(model);
    const names = Array.from(model.vrm!.springBones!.jointNode, (n) => model.nodes[n].name ?? String(n));
    /** The joints `check` finds rigid, by name. */
    const rigid = (): string[] => { frames.check(pose, false); return names.filter((_, j) => frames.jointRigid[j] === 1); };
    const fresh = () => { setRestPose(model, pose); return pose; };
    // The fixture's skirt2 has a rest scale (1, 1.2, 1): never rigid; the others are at rest.
    const all = ['hair0', 'hair1', 'hair2', 'hair3', 'skirt0', 'skirt1'];
    fresh();
    expect(rigid().sort()).toEqual(all.slice().sort());
    const root = slotOf(model, 'root'), head = slotOf(model, 'head'), hair1 = slotOf(model, 'hair1');
    // A unit rotation made in doubles stays rigid.
    fresh().rotation.set([0, Math.sin(0.3), 0, Math.cos(0.3)], root * 4);
    expect(rigid().sort()).toEqual(all.slice().sort());
    // A scale on the head, even a tiny one: the hair below it is not rigid, the skirt is.
    fresh().scale[head * 3 + 1] = 1 + 2 ** -40;
    expect(rigid()).toEqual(['skirt0', 'skirt1']);
    // A rotation a float32 file never renormalised (off by ~1e-7), at the root: nothing is.
    fresh().rotation.set([0, 0.3826834, 0, 0.9238796], root * 4);
    expect(rigid()).toEqual([]);
    fresh().rotation[head * 4 + 3] = NaN;
    expect(rigid()).toEqual(['skirt0', 'skirt1']);
    // hair1 off its rest translation (its rest frame's origin is no longer the joint): it alone.
    fresh().translation[hair1 * 3] += 0.01;
    expect(rigid()).toEqual(['hair0', 'hair2', 'hair3', 'skirt0', 'skirt1']);
    // hair1 scaled: the joints below it.
    fresh().scale[hair1 * 3 + 2] = 0.5;
    expect(rigid()).toEqual(['hair0', 'hair1', 'skirt0', 'skirt1']);
    // A scale on a node off every path changes nothing.
    fresh().scale[slotOf(model, 'hair3_end') * 3] = 2;
    expect(rigid().sort()).toEqual(all.slice().sort());
  });

  it('says not rigid for a joint with a rest scale or under a `matrix` node', async () => {
    const model = await fixture();
    const h = model.hierarchy, hair0 = slotOf(model, 'hair0');
    const pose = createPose(model);
    setRestPose(model, pose);
    const restScaled = { ...h, restScale: Float64Array.from(h.restScale, (v, i) => (i === hair0 * 3 ? 1.5 : v)) };
    const scaled = new RigidFrames(restScaled, Int32Array.of(hair0));
    scaled.check(pose, false);
    expect(scaled.jointRigid[0]).toBe(0);
    const withMatrix = new RigidFrames({ ...h, useMatrix: Uint8Array.from(h.useMatrix, (v, i) => (i === slotOf(model, 'body') ? 1 : v)) }, Int32Array.of(hair0));
    withMatrix.check(pose, false);
    expect(withMatrix.jointRigid[0]).toBe(0);
    const plain = new RigidFrames(h, Int32Array.of(hair0));
    plain.check(pose, false);
    expect(plain.jointRigid[0]).toBe(1);
  });

  it('the job moves the same with its shortcuts as without them (to rounding)', async () => {
    const model = await fixture();
    const h = model.hierarchy, root = slotOf(model, 'root');
    const run = (rootScale: number): Float64Array[] => {
      const pose = createPose(model), matrices = new Float64Array(h.count * 16);
      const job = new SpringBoneJob(h, model.vrm!.springBones!, pose, matrices);
      const tails: Float64Array[] = [];
      for (let step = 0; step <= 200; step++) {
        setRestPose(model, pose);
        const t = step / 60;
        pose.translation.set([0.3 * Math.sin(2 * t), 0.1 * Math.sin(5 * t), 0.2 * Math.cos(3 * t)], root * 3);
        pose.rotation.set([0, Math.sin(0.3 * Math.sin(1.5 * t)), 0, Math.cos(0.3 * Math.sin(1.5 * t))], root * 4);
        pose.scale.fill(rootScale, root * 3, root * 3 + 3);
        localToModel(h, pose, matrices);
        job.dt = step === 0 ? 0 : 1 / 60;
        job.run();
        tails.push(job.currentTail.slice());
      }
      return tails;
    };
    const rigid = run(1), general = run(1 + 2 ** -40);
    let error = 0, swing = 0;
    rigid.forEach((tails, step) => tails.forEach((v, i) => {
      error = Math.max(error, Math.abs(v - general[step][i]));
      swing = Math.max(swing, Math.abs(v - rigid[0][i]));
    }));
    // 2⁻⁴⁰ of scale is ~1e-12 of the chain: the two agree at that level, the swing is centimetres.
    expect(error).toBeLessThan(1e-10);
    expect(swing).toBeGreaterThan(0.05);
  });
});
