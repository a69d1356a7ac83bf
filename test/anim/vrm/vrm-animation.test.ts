/**
 * VRM animation clips (.vrma, VRMC_vrm_animation): the shared test.vrma loaded by
 * loadAnimationLibrary (its humanoid map read from the extension), retargeted onto a VRM 1.0
 * avatar through the humanoid maps, played by the player; against three-vrm-animation 3.5's
 * createVRMAnimationClip on the same avatar in three-vrm: every humanoid bone's world rotation,
 * the `happy` expression track and the look-at track (to expression weights, the avatar's
 * look-at being expression-type) at times across the clip.
 */
import { readFileSync } from 'node:fs';
import { AnimationMixer, Quaternion } from 'three';
import { describe, expect, it } from 'vitest';
import { createVRMAnimationClip } from '@pixiv/three-vrm-animation';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { addClips } from '../../../src/anim/retarget/add-clips.ts';
import { loadAnimationLibrary } from '../../../src/anim/retarget/animation-library.ts';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { rotationOfMatrix } from '../../../src/math/quat.ts';
import { loadThreeVrm, loadThreeVrmAnimation, threeNode } from '../../support/three-vrm.ts';
import { quatAngle } from '../fixtures.ts';

const VRMA = '../shared/assets/vrm/test.vrma';
const AVATAR = '../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm';
/** Radians between the two bone rotations (our retargeting bakes keys at the source's key times; both slerp between them). */
const TOLERANCE = 1e-4;

describe('VRM animation (.vrma)', () => {
  it('loads as a clip library with its humanoid map, expression and look-at tracks', async () => {
    const lib = await loadAnimationLibrary(new Uint8Array(readFileSync(VRMA)), { name: 'test.vrma' });
    expect(lib.model.warnings).toEqual([]);
    expect(Object.keys(lib.humanoid!).length).toBeGreaterThan(50);
    expect(lib.clips[0].expressionTracks?.map((t) => t.name)).toEqual(['happy']);
    expect(lib.clips[0].lookAtTrack?.components).toBe(4);
  });

  it('plays on a VRM 1.0 avatar as three-vrm-animation plays it', async () => {
    const vrmaBytes = new Uint8Array(readFileSync(VRMA)), avatarBytes = new Uint8Array(readFileSync(AVATAR));
    const lib = await loadAnimationLibrary(vrmaBytes, { name: 'test.vrma' });
    const avatar = await loadGltf(avatarBytes, { name: 'avatar.vrm' });
    const { clips, warnings } = retargetClips(lib.clips, lib, avatar);
    expect(warnings.filter((w) => !/ignored|no source/.test(w))).toEqual([]);
    const model = addClips({ ...avatar, animations: [] }, clips, 'test.vrma');
    const player = new AnimationPlayer(model);
    const vrm = player.instance.vrm!;

    const three = await loadThreeVrm(avatarBytes, { autoUpdateHumanBones: true });
    const animation = await loadThreeVrmAnimation(vrmaBytes);
    const mixer = new AnimationMixer(three.vrm.scene);
    mixer.clipAction(createVRMAnimationClip(animation, three.vrm)).play();

    const h = model.hierarchy, q = new Float64Array(4), tq = new Quaternion();
    let worst = 0, turned = 0, happy = 0, look = 0;
    const feet = new Map<string, number>();
    const duration = clips[0].duration;
    for (let k = 0; k <= 24; k++) {
      const t = (k / 24) * duration * 0.999;
      player.seek(t);
      mixer.setTime(t);
      three.vrm.update(0);
      three.vrm.scene.updateMatrixWorld(true);
      for (const [bone, node] of Object.entries(model.humanoid!) as [string, number][]) {
        rotationOfMatrix(player.instance.nodeMatrices, h.slotOf[node] * 16, q, 0);
        threeNode(three.gltf, node).getWorldQuaternion(tq);
        const d = quatAngle(q, [tq.x, tq.y, tq.z, tq.w]);
        if (/Foot|Toes/.test(bone)) {
          // The rest-alignment difference, the same at every time.
          if (!feet.has(bone)) feet.set(bone, d);
          expect(Math.abs(d - feet.get(bone)!), `${bone} at ${t}`).toBeLessThan(TOLERANCE);
          continue;
        }
        worst = Math.max(worst, d);
        if (bone === 'rightUpperArm') turned = Math.max(turned, quatAngle(q, [0, 0, 0, 1]));
      }
      for (const name of vrm.expressionNames) {
        const ours = vrm.expressions.weights[vrm.expressions.find(name)];
        const theirs = three.vrm.expressionManager!.getValue(name) ?? 0;
        expect(Math.abs(ours - theirs), `${name} at ${t}`).toBeLessThan(1e-5);
        if (name === 'happy') happy = Math.max(happy, ours);
      }
      look = Math.max(look, Math.abs(vrm.lookAt!.yaw) + Math.abs(vrm.lookAt!.pitch));
      expect(Math.abs(vrm.lookAt!.yaw - three.vrm.lookAt!.yaw)).toBeLessThan(1e-3);
      expect(Math.abs(vrm.lookAt!.pitch - three.vrm.lookAt!.pitch)).toBeLessThan(1e-3);
    }
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    expect([...feet.values()].every((d) => Math.abs(d - 0.3295) < 0.01)).toBe(true);
    expect(turned).toBeGreaterThan(0.3);
    expect(happy).toBeGreaterThan(0.5);
    expect(look).toBeGreaterThan(5);
  });
});
