/**
 * Clip libraries: animation-only files, VRM humanoid maps, and real assets — the Fox's clips on
 * a Fox copy with renamed joints, CesiumMan's walk on RiggedFigure through a user map.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { loadAnimationLibrary } from '../../../src/anim/retarget/animation-library.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Clip, Model } from '../../../src/gltf/model.ts';
import { assetPath } from '../../support/assets.ts';
import { baseJoints, buildRig, CESIUM_TO_FIGURE, clipKeys, editGlb, KEY_TIMES, relativeError, skinnedAt, worldAt } from './fixtures.ts';

const asset = (name: string): Uint8Array => new Uint8Array(readFileSync(assetPath(name)));


describe('loadAnimationLibrary', () => {
  it('loads an animation-only file (nodes and clips, no mesh or skin) whose clips retarget onto a skinned character', async () => {
    const joints = baseJoints();
    const lib = await loadAnimationLibrary(buildRig(joints, { keys: clipKeys(joints), animationOnly: true, prefix: 'mixamorig:' }), { name: 'walk.glb' });
    expect(lib.model.meshes).toHaveLength(0);
    expect(lib.model.skins).toHaveLength(0);
    expect(lib.clips.map((c) => c.name)).toEqual(['Walk']);
    expect(lib.humanoid).toBeUndefined();
    const full = await loadGltf(buildRig(joints, { keys: clipKeys(joints) }), { name: 'full' });
    const tgt = await loadGltf(buildRig(joints), { name: 'character' });
    const { clips, unmapped, warnings } = retargetClips(lib.clips, lib, tgt);
    expect(unmapped).toEqual([]);
    expect(warnings).toEqual([]);
    for (const t of [...KEY_TIMES, 0.4]) expect(relativeError(skinnedAt(tgt, clips[0], t), skinnedAt(full, full.animations[0], t))).toBeLessThan(1e-6);
  });

  it('fetches a URL and its external buffer relative to it', async () => {
    const joints = baseJoints();
    const glb = buildRig(joints, { keys: clipKeys(joints), animationOnly: true });
    const served = new Map<string, Uint8Array>([['https://example.test/clips/walk.glb', glb]]);
    const fetchFn = (async (u: URL | string) => {
      const body = served.get(String(u));
      return body ? new Response(body.slice().buffer) : new Response('missing', { status: 404, statusText: 'Not Found' });
    }) as typeof fetch;
    const lib = await loadAnimationLibrary('clips/walk.glb', { baseUrl: 'https://example.test/', fetch: fetchFn });
    expect(lib.model.name).toBe('walk.glb');
    expect(lib.clips).toHaveLength(1);
    await expect(loadAnimationLibrary('clips/run.glb', { baseUrl: 'https://example.test/', fetch: fetchFn })).rejects.toThrow(/run\.glb: HTTP 404/);
  });

  it('refuses a file without animations, naming it', async () => {
    await expect(loadAnimationLibrary(buildRig(baseJoints()), { name: 'statue.glb' })).rejects.toThrow(GltfError);
    await expect(loadAnimationLibrary(buildRig(baseJoints()), { name: 'statue.glb' })).rejects.toThrow(/statue\.glb has no animations/);
  });

  for (const version of [0, 1] as const) {
    it(`reads the VRM ${version === 0 ? '0.x' : '1.0'} humanoid map, which maps joints no name or table would`, async () => {
      const joints = baseJoints();
      const BONES: Record<string, string> = {
        Hips: 'hips', Spine: 'spine', Spine1: 'chest', Spine2: 'upperChest', Neck: 'neck', Head: 'head',
        LeftShoulder: 'leftShoulder', LeftArm: 'leftUpperArm', LeftForeArm: 'leftLowerArm', LeftHand: 'leftHand',
        RightShoulder: 'rightShoulder', RightArm: 'rightUpperArm', RightForeArm: 'rightLowerArm', RightHand: 'rightHand',
        LeftUpLeg: 'leftUpperLeg', LeftLeg: 'leftLowerLeg', LeftFoot: 'leftFoot', LeftToeBase: 'leftToes',
        RightUpLeg: 'rightUpperLeg', RightLeg: 'rightLowerLeg', RightFoot: 'rightFoot', RightToeBase: 'rightToes',
      };
      // Node i + 1 is joint i (node 0 is the Armature); names that match nothing.
      const entries = joints.map((j, i) => [BONES[j.name], i + 1] as const);
      const extensions = version === 1
        ? { VRMC_vrm: { specVersion: '1.0', humanoid: { humanBones: Object.fromEntries(entries.map(([bone, node]) => [bone, { node }])) } } }
        : { VRM: { humanoid: { humanBones: entries.map(([bone, node]) => ({ bone, node })) } } };
      const odd = joints.map((j, i) => ({ ...j, name: `bone${String(i).padStart(3, '0')}` }));
      const avatar = await loadAnimationLibrary(buildRig(odd, { keys: clipKeys(joints), extensions }), { name: 'avatar.vrm' });
      expect(avatar.humanoid?.hips).toBe(1);
      expect(avatar.humanoid?.leftUpperArm).toBe(joints.findIndex((j) => j.name === 'LeftArm') + 1);
      // As a source (Mixamo-named target) and as a target (Mixamo-named source).
      const mixamo = await loadGltf(buildRig(joints, { keys: clipKeys(joints) }), { name: 'mixamo' });
      const asSource = retargetClips(avatar.clips, avatar, mixamo);
      expect(asSource.unmapped).toEqual([]);
      expect(asSource.mapping.pairs.every((p) => p.by === 'humanoid')).toBe(true);
      expect(relativeError(skinnedAt(mixamo, asSource.clips[0], 0.5), skinnedAt(avatar.model, avatar.clips[0], 0.5))).toBeLessThan(1e-6);
      const asTarget = retargetClips(mixamo.animations, mixamo, avatar);
      expect(asTarget.unmapped).toEqual([]);
    });
  }

  it('skips a VRM humanoid bone that names a node the file does not have, with a warning naming it', async () => {
    const extensions = { VRMC_vrm: { humanoid: { humanBones: { hips: { node: 99 }, spine: { node: 2 } } } } };
    const joints = baseJoints();
    const library = await loadAnimationLibrary(buildRig(joints, { keys: clipKeys(joints), extensions }));
    expect(library.model.humanoid).toEqual({ spine: 2 });
    expect(library.model.warnings.map((w) => w.path)).toContain('extensions.VRMC_vrm.humanoid.humanBones.hips.node');
  });
});

describe('real assets', () => {
  it("plays the Fox's clips on a Fox copy with renamed joints, vertex for vertex", async () => {
    const fox = await loadAnimationLibrary(asset('Fox'), { name: 'Fox.glb' });
    // Renamed as another tool would write them: a namespace, dots for underscores, upper case.
    const renamedGlb = editGlb(asset('Fox'), (json) => {
      for (const node of json.nodes) if (typeof node.name === 'string' && node.name.startsWith('b_')) node.name = `FoxRig:${node.name.replace(/_/g, '.').toUpperCase()}`;
      delete json.animations;
    });
    const copy = await loadGltf(renamedGlb, { name: 'FoxCopy.glb' });
    expect(copy.animations).toHaveLength(0);
    const { clips, unmapped, mapping } = retargetClips(fox.clips, fox, copy);
    expect(clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);
    // _rootJoint keeps its name; every b_ joint matches by its normalised name.
    expect(unmapped).toEqual([]);
    expect(mapping.pairs.filter((p) => p.by === 'normalized')).toHaveLength(23);
    let worst = 0;
    clips.forEach((clip, i) => {
      const native = fox.clips[i];
      for (let t = 0; t <= native.duration; t += native.duration / 16) worst = Math.max(worst, relativeError(skinnedAt(copy, clip, t), skinnedAt(fox.model, native, t)));
    });
    expect(worst).toBeLessThan(1e-5);
  });

  it("puts CesiumMan's walk on RiggedFigure through a user map: bone directions follow the walker's", async () => {
    const cesium = await loadAnimationLibrary(asset('CesiumMan'), { name: 'CesiumMan.glb' });
    const figure = await loadGltf(asset('RiggedFigure'), { name: 'RiggedFigure.glb' });
    const { clips, unmapped, mapping, translationScale } = retargetClips(cesium.clips, cesium, figure, { jointMap: CESIUM_TO_FIGURE });
    expect(unmapped).toEqual([]);
    expect(mapping.pairs.filter((p) => p.by === 'user')).toHaveLength(10);
    expect(translationScale).toBeGreaterThan(0.5);
    expect(translationScale).toBeLessThan(2);
    // A bone with one mapped child follows the walker's exactly; where several part (the hips: spine
    // and legs) the best common rotation leaves each its rest-pose mismatch, constant over the clip.
    const bones = boneAngles(cesium.model, cesium.clips[0], figure, clips[0], mapping.pairs);
    expect(bones.size).toBe(18);
    for (const [bone, { siblings, angles }] of bones) {
      if (siblings === 1) expect(Math.max(...angles), bone).toBeLessThan(1);
      else expect(Math.max(...angles) - Math.min(...angles), bone).toBeLessThan(0.5);
    }
  });
});

/**
 * Per mapped bone (target joint → its mapped child), the angles in degrees between the source's
 * and the target's world bone directions at 21 times of the clip.
 */
function boneAngles(src: Model, srcClip: Clip, tgt: Model, tgtClip: Clip, pairs: readonly { target: string; source: string }[]): Map<string, { siblings: number; angles: number[] }> {
  const slotOf = (m: Model, name: string) => m.hierarchy.slotOf[m.nodes.findIndex((n) => n.name === name)];
  const out = new Map<string, { siblings: number; angles: number[] }>();
  for (let i = 0; i <= 20; i++) {
    const t = (srcClip.duration * i) / 20;
    const sw = worldAt(src, srcClip, t), tw = worldAt(tgt, tgtClip, t);
    for (const child of pairs) {
      const tc = slotOf(tgt, child.target);
      const parent = pairs.find((p) => slotOf(tgt, p.target) === tgt.hierarchy.parentSlot[tc]);
      if (!parent) continue;
      const dir = (w: Float64Array, a: number, b: number) => {
        const v = [0, 1, 2].map((c) => w[b * 16 + 12 + c] - w[a * 16 + 12 + c]);
        const l = Math.hypot(...v);
        return v.map((x) => x / l);
      };
      const a = dir(sw, slotOf(src, parent.source), slotOf(src, child.source));
      const b = dir(tw, slotOf(tgt, parent.target), tc);
      const key = `${parent.target} → ${child.target}`;
      const siblings = pairs.filter((p) => tgt.hierarchy.parentSlot[slotOf(tgt, p.target)] === slotOf(tgt, parent.target)).length;
      const entry = out.get(key) ?? { siblings, angles: [] };
      entry.angles.push((Math.acos(Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2])) * 180) / Math.PI);
      out.set(key, entry);
    }
  }
  return out;
}
