/**
 * Retargeting's bad input, each a RetargetError naming what is wrong or a warning naming the
 * joint: no joint in common, a user map that makes a cycle or names unknown joints, clip
 * channels outside the mapped skeleton, NaN in a reference pose, and bad options. Then the
 * options themselves (mask, translation joints, reference poses, sample rate).
 */
import { describe, expect, it } from 'vitest';
import { mapJoints, RetargetError } from '../../../src/anim/retarget/joint-map.ts';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { findSlot, subtreeMask } from '../../../src/anim/mask.ts';
import { createPose } from '../../../src/anim/pose.ts';
import { Interpolation, TargetPath } from '../../../src/gltf/constants.ts';
import type { Clip, Model } from '../../../src/gltf/model.ts';
import { normalizeJointName, humanoidBonesOf } from '../../../src/anim/retarget/humanoid.ts';
import { baseJoints, buildRig, clipKeys, editGlb, KEY_TIMES, loadRig, relativeError, skinnedAt } from './fixtures.ts';

const joints = baseJoints();
const source = (): Promise<Model> => loadRig(buildRig(joints, { keys: clipKeys(joints) }), 'source');
const target = (): Promise<Model> => loadRig(buildRig(joints), 'target');
const thrown = (f: () => unknown): RetargetError => {
  try { f(); } catch (e) { expect(e).toBeInstanceOf(RetargetError); return e as RetargetError; }
  throw new Error('did not throw');
};

describe('retargeting refuses bad input, naming it', () => {
  it('no joint in common lists some joints of both sides', async () => {
    const src = await source();
    const odd = await loadRig(buildRig(joints.map((j, i) => ({ ...j, name: `gear${i}` }))), 'gears');
    const e = thrown(() => retargetClips(src.animations, src, odd));
    expect(e.message).toMatch(/^no joint in common: target joints \(gear0, gear1, .*, …\) match no source joint \(Hips, Spine, .*\); give a joint map$/);
  });

  it('a user map that makes a cycle (parent and child swapped) names both', async () => {
    const src = await source(), tgt = await target();
    const e = thrown(() => retargetClips(src.animations, src, tgt, { jointMap: { LeftArm: 'LeftForeArm', LeftForeArm: 'LeftArm' } }));
    expect(e.message).toBe('joint map makes a cycle: target "LeftArm" is an ancestor of "LeftForeArm", but their sources "LeftForeArm" and "LeftArm" are the other way round');
    expect(e.joint).toBe('LeftForeArm');
  });

  it('a user map naming a joint either side lacks', async () => {
    const src = await source(), tgt = await target();
    expect(thrown(() => mapJoints({ model: src }, { model: tgt }, { jointMap: { Tail: 'Hips' } })).message).toBe('joint map: the target has no skeleton joint named "Tail"');
    expect(thrown(() => mapJoints({ model: src }, { model: tgt }, { jointMap: { Hips: 'pelvis' } })).message).toBe('joint map: "Hips" maps to "pelvis", which the source does not have');
  });

  it('an automatic match against the hierarchy is dropped with a warning naming it', async () => {
    const src = await source();
    // The target calls its forearm "LeftArm" and its upper arm "LeftForeArm": by name, child → parent.
    const swapped = await loadRig(buildRig(joints.map((j) => ({ ...j, name: j.name === 'LeftArm' ? 'LeftForeArm' : j.name === 'LeftForeArm' ? 'LeftArm' : j.name }))), 'swapped');
    const { mapping, warnings, unmapped } = retargetClips(src.animations, src, swapped);
    expect(unmapped).toEqual(['LeftArm']);
    expect(warnings).toEqual(['target "LeftForeArm" is an ancestor of "LeftArm", but their sources "LeftForeArm" and "LeftArm" are the other way round; "LeftArm" is left unmapped']);
    expect(mapping.pairs.find((p) => p.target === 'LeftHand')?.source).toBe('LeftHand');
  });

  it('channels on nodes outside the mapped skeleton are ignored with a warning naming them', async () => {
    // The source animates a prop ("Sword", no skin joint) and a finger the target lacks.
    const withProp = editGlb(buildRig([...joints, { name: 'LeftHandIndex1', parent: 11, t: [0.05, 0, 0], r: [0, 0, 0, 1] }], { keys: clipKeys(joints) }), (json) => {
      const sword = json.nodes.push({ name: 'Sword', translation: [0, 0, 0] }) - 1;
      json.scenes[0].nodes.push(sword);
      const finger = json.nodes.findIndex((n: { name?: string }) => n.name === 'LeftHandIndex1');
      json.animations[0].channels.push({ sampler: 0, target: { node: sword, path: 'rotation' } }, { sampler: 0, target: { node: finger, path: 'rotation' } });
    });
    const src = await loadRig(withProp, 'prop'), tgt = await target();
    const { warnings, clips } = retargetClips(src.animations, src, tgt);
    expect(warnings).toEqual(['clip "Walk": channels on 2 node(s) outside the mapped skeleton are ignored: Sword, LeftHandIndex1']);
    expect(relativeError(skinnedAt(tgt, clips[0], 0.5), skinnedAt(await source(), (await source()).animations[0], 0.5))).toBeLessThan(1e-6);
  });

  it('a clip of another model (channels on nodes the source does not have) is an error', async () => {
    const src = await source(), tgt = await target();
    const big = await loadRig(buildRig([...joints, ...joints.map((j) => ({ ...j, name: `${j.name}2`, parent: j.parent < 0 ? -1 : j.parent + joints.length }))], { keys: clipKeys(joints) }), 'big');
    const foreign: Clip = { ...big.animations[0], channels: [{ ...big.animations[0].channels[0], node: 40, slot: big.hierarchy.slotOf[40] }] };
    expect(thrown(() => retargetClips([foreign], src, tgt)).message).toMatch(/^clip "Walk" has a channel on nodes\[40\], which is not a node of the source skeleton \(source\)/);
  });

  it('NaN in a supplied reference pose names the joint', async () => {
    const src = await source(), tgt = await target();
    const pose = createPose(tgt);
    pose.rotation[findSlot(tgt, 'LeftForeArm') * 4 + 2] = NaN;
    const e = thrown(() => retargetClips(src.animations, src, tgt, { targetReference: pose }));
    expect(e.message).toBe('target reference pose of "LeftForeArm" is not finite (NaN or infinity in its translation, rotation or scale)');
    expect(e.joint).toBe('LeftForeArm');
    const short = { ...createPose(src), rotation: new Float64Array(4) };
    expect(thrown(() => retargetClips(src.animations, src, tgt, { sourceReference: short })).message).toBe('source reference pose holds 1 joints; the source model has 24 nodes');
  });

  it('a singular inverse bind matrix in a bind reference pose names the joint', async () => {
    const glb = buildRig(joints);
    const tgt = await loadRig(glb, 'target');
    tgt.skins[0].inverseBindMatrices.fill(0, 16 * 2, 16 * 3);
    const src = await source();
    expect(thrown(() => retargetClips(src.animations, src, tgt, { targetReference: 'bind' })).message).toBe('bind reference pose: the inverse bind matrix of "Spine1" is singular');
  });

  it('bad options: mask size and weights, translation joints, sample rates', async () => {
    const src = await source(), tgt = await target();
    const run = (o: Parameters<typeof retargetClips>[3]) => thrown(() => retargetClips(src.animations, src, tgt, o)).message;
    expect(run({ mask: new Float32Array(3) })).toBe(`mask has 3 weights; the target has ${tgt.hierarchy.count} nodes`);
    const mask = new Float32Array(tgt.hierarchy.count).fill(1);
    mask[findSlot(tgt, 'Head')] = 2;
    expect(run({ mask })).toBe('mask weight of "Head" is 2, not in [0, 1]');
    expect(run({ translationJoints: ['Tail'] })).toBe('translationJoints: the target has no skeleton joint named "Tail"');
    expect(run({ sampleRate: -1 })).toBe('sampleRate -1 is not a finite number ≥ 0');
    expect(run({ sampleRate: NaN })).toBe('sampleRate NaN is not a finite number ≥ 0');
    expect(run({ sampleRate: 1e9 })).toMatch(/^clip "Walk": 1000000000 keys per second over 1 s is too much to bake for 22 joints; lower sampleRate$/);
    expect(run({ translationScale: 0 })).toBe('translation scale 0 is not a positive number');
  });
});

describe('retargeting options', () => {
  it('a mask leaves joints out of the clip and blends fractions from the rest pose', async () => {
    const src = await source(), tgt = await target();
    const mask = subtreeMask(tgt.hierarchy, findSlot(tgt, 'Spine'));
    mask[findSlot(tgt, 'Head')] = 0.5;
    const [clip] = retargetClips(src.animations, src, tgt, { mask }).clips;
    const animated = new Set(clip.channels.map((c) => tgt.nodes[c.node].name));
    expect(animated.has('Hips')).toBe(false);
    expect(animated.has('LeftUpLeg')).toBe(false);
    expect(animated.has('LeftHand')).toBe(true);
    const head = clip.channels.find((c) => c.path === TargetPath.ROTATION && tgt.nodes[c.node].name === 'Head')!;
    const full = retargetClips(src.animations, src, tgt).clips[0].channels.find((c) => c.path === TargetPath.ROTATION && tgt.nodes[c.node].name === 'Head')!;
    // Half-way from rest (identity) to the full rotation: half the angle.
    const angle = (v: Float32Array, k: number) => 2 * Math.acos(Math.min(1, Math.abs(v[k * 4 + 3])));
    for (let k = 0; k < KEY_TIMES.length; k++) expect(angle(head.sampler.values, k)).toBeCloseTo(angle(full.sampler.values, k) / 2, 5);
  });

  it('translationJoints moves the named joints instead of the hips', async () => {
    const src = await source(), tgt = await target();
    const [clip] = retargetClips(src.animations, src, tgt, { translationJoints: ['Spine'] }).clips;
    expect(clip.channels.filter((c) => c.path === TargetPath.TRANSLATION).map((c) => tgt.nodes[c.node].name)).toEqual(['Spine']);
  });

  it("'bind' reference equals 'rest' when the file's rest pose is its bind pose; a sample rate adds keys", async () => {
    const src = await source(), tgt = await target();
    const rest = retargetClips(src.animations, src, tgt).clips[0];
    const bind = retargetClips(src.animations, src, tgt, { sourceReference: 'bind', targetReference: 'bind' }).clips[0];
    expect(relativeError(skinnedAt(tgt, bind, 0.3), skinnedAt(tgt, rest, 0.3))).toBeLessThan(1e-6);
    const dense = retargetClips(src.animations, src, tgt, { sampleRate: 40 }).clips[0];
    expect(dense.timelines[0].length).toBe(41);
    expect(relativeError(skinnedAt(tgt, dense, 0.5), skinnedAt(tgt, rest, 0.5))).toBeLessThan(1e-6);
  });
});

describe('source interpolation', () => {
  it('STEP sources stay STEP (exact at any time); CUBICSPLINE sources are sampled at 30 keys/s', async () => {
    const tgt = await target();
    const step = await loadRig(editGlb(buildRig(joints, { keys: clipKeys(joints) }), (json) => {
      for (const s of json.animations[0].samplers) s.interpolation = 'STEP';
    }), 'step');
    const [stepped] = retargetClips(step.animations, step, tgt).clips;
    expect(stepped.channels.every((c) => c.sampler.interpolation === Interpolation.STEP)).toBe(true);
    for (const t of [0.1, 0.3, 0.62, 0.99]) expect(relativeError(skinnedAt(tgt, stepped, t), skinnedAt(step, step.animations[0], t))).toBeLessThan(1e-6);
    // Cubic keys with zero tangents (an ease in and out between keys): LINEAR at 30 keys/s follows them.
    const src = await loadRig(buildRig(joints, { keys: clipKeys(joints), interpolation: 'CUBICSPLINE' }), 'cubic');
    const [smooth] = retargetClips(src.animations, src, tgt).clips;
    expect(smooth.timelines[0].length).toBe(33); // 31 on the 1/30 s grid, plus the keys at 0.25 and 0.75
    const worst = (clip: Clip): number => {
      let out = 0;
      for (let i = 0; i <= 100; i++) out = Math.max(out, relativeError(skinnedAt(tgt, clip, i / 100), skinnedAt(src, src.animations[0], i / 100)));
      return out;
    };
    // Linear keys under a spline of 35° eases: second order in the key step (0.7% of the
    // diagonal at 30 keys/s here, a sixteenth of that at 120).
    const at30 = worst(smooth), at120 = worst(retargetClips(src.animations, src, tgt, { sampleRate: 120 }).clips[0]);
    expect(at30).toBeLessThan(1e-2);
    expect(at120).toBeLessThan(at30 / 8);
  });
});

describe('joint names', () => {
  it('normalises case, separators and known prefixes', () => {
    for (const name of ['mixamorig:LeftArm', 'mixamorig1:LeftArm', 'mixamorigLeftArm', 'Armature|LeftArm', 'DEF-left_arm', 'Left Arm', 'left.arm']) expect(normalizeJointName(name), name).toBe('leftarm');
  });

  it('reads each built-in convention, and picks one per skeleton (Rigify\'s DEF-spine is the hips, Mixamo\'s Spine is not)', () => {
    const check = (names: string[], convention: string, bones: (string | undefined)[]) => expect(humanoidBonesOf(names)).toEqual({ convention, bones });
    check(['mixamorig:Hips', 'mixamorig:Spine', 'mixamorig:LeftArm', 'mixamorig:LeftHandIndex1'], 'mixamo', ['hips', 'spine', 'leftUpperArm', 'leftIndexProximal']);
    check(['pelvis', 'spine_01', 'upperarm_l', 'thigh_r', 'ball_l'], 'unreal', ['hips', 'spine', 'leftUpperArm', 'rightUpperLeg', 'leftToes']);
    check(['DEF-spine', 'DEF-spine.001', 'DEF-upper_arm.L', 'DEF-thigh.R'], 'rigify', ['hips', 'spine', 'leftUpperArm', 'rightUpperLeg']);
    check(['hips', 'spine', 'leftUpperArm', 'rightLowerLeg'], 'vrm', ['hips', 'spine', 'leftUpperArm', 'rightLowerLeg']);
    check(['J_Bip_C_Hips', 'J_Bip_C_Spine', 'J_Bip_L_UpperArm'], 'vroid', ['hips', 'spine', 'leftUpperArm']);
    check(['root.x', 'spine_01.x', 'arm_stretch.l', 'thigh_stretch.r'], 'auto-rig-pro', ['hips', 'spine', 'leftUpperArm', 'rightUpperLeg']);
    check(['Hips', 'Abdomen', 'Torso', 'UpperArm.L', 'LowerLeg.R'], 'quaternius', ['hips', 'spine', 'chest', 'leftUpperArm', 'rightLowerLeg']);
    check(['Bone', 'Bone.001'], '', [undefined, undefined]);
  });

  it('maps any convention onto any other through the humanoid table', async () => {
    const src = await source();
    const unreal: Record<string, string> = {
      Hips: 'pelvis', Spine: 'spine_01', Spine1: 'spine_02', Spine2: 'spine_03', Neck: 'neck_01', Head: 'head',
      LeftShoulder: 'clavicle_l', LeftArm: 'upperarm_l', LeftForeArm: 'lowerarm_l', LeftHand: 'hand_l',
      RightShoulder: 'clavicle_r', RightArm: 'upperarm_r', RightForeArm: 'lowerarm_r', RightHand: 'hand_r',
      LeftUpLeg: 'thigh_l', LeftLeg: 'calf_l', LeftFoot: 'foot_l', LeftToeBase: 'ball_l',
      RightUpLeg: 'thigh_r', RightLeg: 'calf_r', RightFoot: 'foot_r', RightToeBase: 'ball_r',
    };
    const tgt = await loadRig(buildRig(joints.map((j) => ({ ...j, name: unreal[j.name] }))), 'mannequin');
    const { unmapped, mapping, clips } = retargetClips(src.animations, src, tgt);
    expect(unmapped).toEqual([]);
    expect(mapping.pairs.filter((p) => p.by === 'humanoid')).toHaveLength(21); // "head" matches by normalised name
    expect(relativeError(skinnedAt(tgt, clips[0], 0.5), skinnedAt(src, src.animations[0], 0.5))).toBeLessThan(1e-6);
    // The user map wins over the table.
    const user = retargetClips(src.animations, src, tgt, { jointMap: { head: 'Neck' } });
    expect(user.mapping.pairs.find((p) => p.target === 'head')).toEqual({ target: 'head', source: 'Neck', by: 'user' });
  });
});
