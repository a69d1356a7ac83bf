/**
 * Retargeted clips are ordinary clips of the target: the player, override layers and the batch
 * kernel play them like native ones, and addClips names clashes (that sampling them allocates nothing is in
 * test/anim/allocation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { addClips } from '../../../src/anim/retarget/add-clips.ts';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { createInstanceBatch, updateInstanceBatch } from '../../../src/anim/batch.ts';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { subtreeMask, findSlot } from '../../../src/anim/mask.ts';
import { baseJoints, buildRig, clipKeys, editGlb, loadRig, relativeError, retargetedWalk, skinnedAt } from './fixtures.ts';
import { composeTRS } from '../../../src/math/trs.ts';


describe('retargeted clips are ordinary clips', () => {
  it('addClips appends them, prefixing a clashing name with the file name', async () => {
    const { tgt } = await retargetedWalk();
    expect(tgt.animations.map((c) => c.name)).toEqual(['Walk', 'walk.glb/Walk']);
    const again = addClips(tgt, [{ ...tgt.animations[1], name: 'Walk' }, { ...tgt.animations[1], name: undefined }], 'walk.glb');
    expect(again.animations.map((c) => c.name)).toEqual(['Walk', 'walk.glb/Walk', 'walk.glb/Walk (2)', undefined]);
    expect(Object.isFrozen(tgt)).toBe(true);
  });

  it('the player, an override layer and the batch kernel give the same palettes as a plain instance', async () => {
    const { tgt } = await retargetedWalk();
    const reference = createModelInstance(tgt);
    updateModelInstance(reference, 1, 0.4);
    const player = new AnimationPlayer(tgt);
    player.setClip(1);
    player.seek(0.4);
    expect(Array.from(player.instance.palette)).toEqual(Array.from(reference.palette));
    // As a full-weight override layer over the native clip, masked to everything: the same pose.
    const layered = new AnimationPlayer(tgt);
    layered.setClip(0);
    const layer = layered.layers.addOverride(1, 1, subtreeMask(tgt.hierarchy, findSlot(tgt, 'Hips')));
    layer.time = 0.4;
    layered.seek(0.4);
    const hips = findSlot(tgt, 'Hips');
    for (let c = 0; c < 4; c++) expect(layered.instance.pose.rotation[hips * 4 + c]).toBeCloseTo(reference.pose.rotation[hips * 4 + c], 6);
    const batch = createInstanceBatch(tgt, 3);
    batch.clips.fill(1);
    batch.times.fill(0.4);
    updateInstanceBatch(batch);
    const p = reference.palette;
    for (let i = 0; i < 3; i++) {
      const got = batch.instances[i].palette;
      let worst = 0;
      for (let k = 0; k < p.length; k++) worst = Math.max(worst, Math.abs(got[k] - p[k]));
      expect(worst).toBeLessThan(1e-5);
    }
  });

  it('a target joint given by a matrix takes the clips through addClips, leaving the model it came from as it was', async () => {
    const joints = baseJoints();
    const src = await loadRig(buildRig(joints, { keys: clipKeys(joints) }), 'walk.glb');
    const glb = editGlb(buildRig(joints), (json) => {
      for (const node of json.nodes) {
        if (node.name !== 'LeftForeArm' && node.name !== 'Spine') continue;
        node.matrix = Array.from(composeTRS(node.translation ?? [0, 0, 0], node.rotation ?? [0, 0, 0, 1], node.scale ?? [1, 1, 1], new Float64Array(16)));
        delete node.translation; delete node.rotation; delete node.scale;
      }
    });
    const tgt = await loadRig(glb, 'matrix.glb');
    const slot = findSlot(tgt, 'LeftForeArm');
    expect(tgt.hierarchy.useMatrix[slot]).toBe(1);
    const { clips } = retargetClips(src.animations, src, tgt);
    const withWalk = addClips(tgt, clips, 'walk.glb');
    expect(tgt.hierarchy.useMatrix[slot]).toBe(1);
    expect(withWalk.hierarchy.useMatrix[slot]).toBe(0);
    expect(relativeError(skinnedAt(withWalk, withWalk.animations[0], 0.6), skinnedAt(src, src.animations[0], 0.6))).toBeLessThan(1e-6);
  });
});
