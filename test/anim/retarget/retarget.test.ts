/**
 * The retargeting contract on rigs built in code (fixtures.ts): identity, joint-axis
 * conventions, proportions, a differing rest pose (A-pose), and Mixamo-prefixed names.
 */
import { describe, expect, it } from 'vitest';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { TargetPath } from '../../../src/gltf/constants.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { axisAngle } from '../fixtures.ts';
import {
  baseJoints, buildRig, clipKeys, jointVertices, KEY_TIMES, loadRig, random, randomRotation, relativeError, restWorlds, skinnedAt, turnFrames, worldAt,
} from './fixtures.ts';

const source = async (): Promise<Model> => loadRig(buildRig(baseJoints(), { keys: clipKeys(baseJoints()) }), 'source');

/** Every key time and the midpoints between them. */
const SAMPLE_TIMES = [...KEY_TIMES, 0.125, 0.375, 0.625, 0.875];

describe('retargetClips: the contract', () => {
  it('identity: a clip onto its own skeleton reproduces it within 1e-6 of the bbox diagonal', async () => {
    const src = await source();
    const { clips, unmapped, translationScale } = retargetClips(src.animations, src, src);
    expect(unmapped).toEqual([]);
    expect(translationScale).toBeCloseTo(1, 12);
    let worst = 0;
    for (const t of SAMPLE_TIMES) worst = Math.max(worst, relativeError(skinnedAt(src, clips[0], t), skinnedAt(src, src.animations[0], t)));
    expect(worst).toBeLessThan(1e-6);
    expect(clips[0].name).toBe('Walk');
    expect(clips[0].duration).toBeCloseTo(1, 6);
  });

  it('axis conventions: every joint frame turned (rest and bind compensate) gives the same skinned vertices within 1e-5', async () => {
    const joints = baseJoints();
    const src = await source();
    const rnd = random(99);
    const turns = joints.map(() => randomRotation(rnd, Math.PI));
    const turned = turnFrames(joints, turns);
    // The same rest mesh: vertices placed by the base skeleton, inverse binds from the turned one.
    const tgt = await loadRig(buildRig(turned, { vertices: jointVertices(joints, restWorlds(joints)) }), 'turned');
    expect(relativeError(skinnedAt(tgt, undefined, 0), skinnedAt(src, undefined, 0))).toBeLessThan(1e-6);
    const { clips, unmapped } = retargetClips(src.animations, src, tgt);
    expect(unmapped).toEqual([]);
    let worst = 0;
    for (const t of SAMPLE_TIMES) worst = Math.max(worst, relativeError(skinnedAt(tgt, clips[0], t), skinnedAt(src, src.animations[0], t)));
    expect(worst).toBeLessThan(1e-5);
  });

  it('proportions: rest translations and mesh scaled by k give k × the source vertices', async () => {
    const k = 1.7;
    const src = await source();
    const scaled = baseJoints().map((j) => ({ ...j, t: j.t.map((v) => v * k) }));
    const vertices = jointVertices(baseJoints(), restWorlds(baseJoints())).map((v) => v * k);
    const tgt = await loadRig(buildRig(scaled, { vertices }), 'tall');
    const { clips, translationScale } = retargetClips(src.animations, src, tgt);
    expect(translationScale).toBeCloseTo(k, 9);
    let worst = 0;
    for (const t of SAMPLE_TIMES) {
      const expected = skinnedAt(src, src.animations[0], t).map((v) => v * k);
      worst = Math.max(worst, relativeError(skinnedAt(tgt, clips[0], t), expected));
    }
    expect(worst).toBeLessThan(1e-5);
  });

  it('rest pose: an A-pose target gets world bone directions within 0.5° of the source at every key', async () => {
    const src = await source();
    const joints = baseJoints().map((j) => {
      if (j.name === 'LeftArm') return { ...j, r: axisAngle([0, 0, 1], -Math.PI / 4) };
      if (j.name === 'RightArm') return { ...j, r: axisAngle([0, 0, 1], Math.PI / 4) };
      return j;
    });
    const tgt = await loadRig(buildRig(joints), 'a-pose');
    const { clips } = retargetClips(src.animations, src, tgt);
    // Without the swing the arms would stay 45° lower: the test can tell.
    const before = boneAngles(src, undefined, tgt, undefined, 0);
    expect(Math.max(...before)).toBeCloseTo(45, 6);
    let worst = 0;
    for (const t of KEY_TIMES) worst = Math.max(worst, ...boneAngles(src, src.animations[0], tgt, clips[0], t));
    expect(worst).toBeLessThan(0.5);
  });

  it('names: a mixamorig:-prefixed source maps onto an unprefixed target with nothing unmapped', async () => {
    const joints = baseJoints();
    const src = await loadRig(buildRig(joints, { keys: clipKeys(joints), prefix: 'mixamorig:' }), 'mixamo');
    const tgt = await loadRig(buildRig(joints), 'plain');
    const { clips, unmapped, mapping } = retargetClips(src.animations, src, tgt);
    expect(unmapped).toEqual([]);
    expect(mapping.pairs).toHaveLength(joints.length);
    expect(mapping.pairs.every((p) => p.by === 'normalized' && p.source === `mixamorig:${p.target}`)).toBe(true);
    expect(relativeError(skinnedAt(tgt, clips[0], 0.5), skinnedAt(src, src.animations[0], 0.5))).toBeLessThan(1e-6);
  });

  it('bakes one timeline of LINEAR keys on the target slots: rotation everywhere, translation on the hips, scale where the source scales', async () => {
    const src = await source();
    const joints = baseJoints();
    const tgt = await loadRig(buildRig(turnFrames(joints, joints.map(() => [0, 0, 0, 1]))), 'copy');
    const [clip] = retargetClips(src.animations, src, tgt).clips;
    expect(clip.timelines).toHaveLength(1);
    expect(Array.from(clip.timelines[0])).toEqual(Array.from(KEY_TIMES));
    const count = (path: TargetPath) => clip.channels.filter((c) => c.path === path).length;
    expect(count(TargetPath.ROTATION)).toBe(joints.length);
    expect(count(TargetPath.TRANSLATION)).toBe(1);
    expect(clip.channels.find((c) => c.path === TargetPath.TRANSLATION)!.node).toBe(tgt.skins[0].joints[0]);
    for (const ch of clip.channels) expect(ch.slot).toBe(tgt.hierarchy.slotOf[ch.node]);
  });
});

/**
 * Angles (degrees) between source and target world bone directions, parent → joint, for every
 * joint of the source's skin that the target has by name (and `keep` accepts).
 */
function boneAngles(
  src: Model, srcClip: Model['animations'][number] | undefined, tgt: Model, tgtClip: Model['animations'][number] | undefined, t: number,
  keep: (name: string) => boolean = () => true,
): number[] {
  const sw = worldAt(src, srcClip, t), tw = worldAt(tgt, tgtClip, t);
  const dir = (m: Model, w: Float64Array, name: string): number[] | undefined => {
    const node = m.nodes.findIndex((n) => n.name === name);
    if (node < 0) return undefined;
    const slot = m.hierarchy.slotOf[node], parent = m.hierarchy.slotOf[m.nodes[node].parent];
    const v = [0, 1, 2].map((c) => w[slot * 16 + 12 + c] - w[parent * 16 + 12 + c]);
    const l = Math.hypot(v[0], v[1], v[2]);
    return v.map((x) => x / l);
  };
  const out: number[] = [];
  for (const node of src.skins[0].joints) {
    const name = src.nodes[node].name!;
    if (src.nodes[src.nodes[node].parent].name === 'Armature' || !keep(name)) continue;
    const a = dir(src, sw, name), b = dir(tgt, tw, name);
    if (!a || !b) continue;
    out.push((Math.acos(Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2])) * 180) / Math.PI);
  }
  return out;
}

describe('resampling: the error between keys', () => {
  it('is zero where the target has the same joints, and second order in the key step where it merges two (pinned for the README)', async () => {
    const joints = baseJoints();
    const src = await source();
    // A target without Spine1: its Spine2 hangs from Spine, so its local rotation is the product
    // of two source locals, and slerping the product between keys is not the product of slerps.
    const gone = joints.findIndex((j) => j.name === 'Spine1');
    const merged = joints.filter((_, i) => i !== gone).map((j) => {
      const fromGone = j.parent === gone;
      const parent = fromGone ? joints[gone].parent : j.parent;
      return { ...j, parent: parent > gone ? parent - 1 : parent, t: fromGone ? j.t.map((v, c) => v + joints[gone].t[c]) : j.t };
    });
    const tgt = await loadRig(buildRig(merged), 'merged');
    const worst = (rate: number): number => {
      const [clip] = retargetClips(src.animations, src, tgt, { sampleRate: rate }).clips;
      let out = 0;
      for (let i = 0; i <= 200; i++) {
        // Bones present in both (Spine → Spine2 is not a bone of the source).
        const angles = boneAngles(src, src.animations[0], tgt, clip, i / 200, (name) => name !== 'Spine2' && name !== 'Spine1');
        out = Math.max(out, ...angles);
      }
      return out;
    };
    const native = worst(0), at30 = worst(30), at60 = worst(60);
    // Keys 0.25 s apart with rotations of up to 35° per key and joint: degrees between keys.
    expect(native).toBeGreaterThan(1);
    expect(at30).toBeLessThan(0.06);
    expect(at60).toBeLessThan(0.015);
    expect(at30 / at60).toBeGreaterThan(3.5);
    // The same skeleton: the target's locals are the source's up to constant rotations, whose
    // slerp is exact, so between keys nothing is lost.
    const [identity] = retargetClips(src.animations, src, src).clips;
    expect(relativeError(skinnedAt(src, identity, 0.37), skinnedAt(src, src.animations[0], 0.37))).toBeLessThan(1e-6);
  });
});
