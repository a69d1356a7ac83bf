/** The demo: opening a clip file (animations, no mesh) with a character shown adds its clips, retargeted; anything else replaces the character. */
import { describe, expect, it } from 'vitest';
import { modelFromFiles, withOpenedModel, type DroppedFile } from '../../src/demo/files.ts';
import { baseJoints, buildRig, clipKeys, relativeError, skinnedAt } from '../anim/retarget/fixtures.ts';

const file = (path: string, bytes: Uint8Array): DroppedFile => ({ path, bytes: async () => bytes });
const joints = baseJoints();

describe('withOpenedModel', () => {
  it('adds the clips of a clip file to the shown character, retargeted, and says so', async () => {
    const shown = await modelFromFiles([file('hero.glb', buildRig(joints, { keys: clipKeys(joints, 1) }))]);
    const clips = await modelFromFiles([file('dance.glb', buildRig(joints, { keys: clipKeys(joints, 2), animationOnly: true, prefix: 'mixamorig:' }))]);
    const { model, note } = withOpenedModel(shown, clips);
    expect(model.animations.map((c) => c.name)).toEqual(['Walk', 'dance.glb/Walk']);
    expect(model.meshes).toBe(shown.meshes);
    expect(note).toBe('Added 1 clip(s) from dance.glb to hero.glb.');
    const native = await modelFromFiles([file('native.glb', buildRig(joints, { keys: clipKeys(joints, 2) }))]);
    expect(relativeError(skinnedAt(model, model.animations[1], 0.6), skinnedAt(native, native.animations[0], 0.6))).toBeLessThan(1e-6);
  });

  it('replaces the character with a file that has meshes, or when nothing is shown', async () => {
    const shown = await modelFromFiles([file('hero.glb', buildRig(joints))]);
    const other = await modelFromFiles([file('other.glb', buildRig(joints, { keys: clipKeys(joints) }))]);
    expect(withOpenedModel(shown, other)).toEqual({ model: other });
    const clips = await modelFromFiles([file('dance.glb', buildRig(joints, { keys: clipKeys(joints), animationOnly: true }))]);
    expect(withOpenedModel(undefined, clips)).toEqual({ model: clips });
  });

  it('a clip file that shares no joint with the character is an error naming both sides', async () => {
    const shown = await modelFromFiles([file('hero.glb', buildRig(joints))]);
    const clips = await modelFromFiles([file('gears.glb', buildRig(joints.map((j, i) => ({ ...j, name: `gear${i}` })), { keys: clipKeys(joints), animationOnly: true }))]);
    expect(() => withOpenedModel(shown, clips)).toThrow(/no joint in common: target joints \(Hips, Spine, .*\) match no source joint \(Armature, gear0, /);
  });
});
