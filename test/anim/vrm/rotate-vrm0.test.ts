/**
 * rotateVrm0 turns a VRM 0.x avatar to face +Z as three-vrm's VRMUtils.rotateVRM0 does, and
 * leaves every other model as it is.
 */
import { describe, expect, it } from 'vitest';
import { VRMUtils } from '@pixiv/three-vrm';
import { restWorldMatrices } from '../../../src/anim/local-to-model.ts';
import { rotateVrm0 } from '../../../src/anim/vrm/rotate-vrm0.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { multiplyMat4 } from '../../../src/math/trs.ts';
import { loadThreeVrm } from '../../support/three-vrm.ts';

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
/** A half turn about +Y, exactly. */
const HALF_TURN = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1];
/** A placement with rotation, non-uniform scale and translation. */
const PLACED = [0.8, 0.3, -0.1, 0, -0.2, 1.1, 0.4, 0, 0.05, -0.3, 0.9, 0, 2, -1, 3.5, 1];

/** World z of the eyes minus the head's, with the model at `world`: positive when the face looks towards +Z. */
function faceZ(model: Awaited<ReturnType<typeof loadGltf>>, world: ArrayLike<number>): number {
  const m = restWorldMatrices(model.hierarchy);
  const z = (node: number): number => {
    const o = model.hierarchy.slotOf[node] * 16;
    return world[2] * m[o + 12] + world[6] * m[o + 13] + world[10] * m[o + 14] + world[14];
  };
  const hm = model.humanoid!;
  return (z(hm.leftEye!) + z(hm.rightEye!)) / 2 - z(hm.head!);
}

describe('rotateVrm0', () => {
  it('turns a VRM 0.x avatar half round about +Y, as three-vrm rotateVRM0 turns its scene', async () => {
    const bytes = buildBuiltinGlb('vrm0-avatar');
    const model = await loadGltf(bytes);
    const dst = new Float64Array(16);
    expect(rotateVrm0(model, IDENTITY, dst)).toBe(true);
    expect(Array.from(dst)).toEqual(HALF_TURN);
    const three = await loadThreeVrm(bytes);
    VRMUtils.rotateVRM0(three.vrm);
    three.vrm.scene.updateMatrix();
    const theirs = three.vrm.scene.matrix.elements;
    for (let i = 0; i < 16; i++) expect(Math.abs(dst[i] - theirs[i])).toBeLessThan(1e-15);
    // The file's face looks along −Z; turned, along +Z.
    expect(faceZ(model, IDENTITY)).toBeLessThan(-0.01);
    expect(faceZ(model, dst)).toBeGreaterThan(0.01);
  });

  it('is the placement times the half turn, exactly, into any array and in place', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm0-avatar'));
    const expected = multiplyMat4(PLACED, HALF_TURN, new Float64Array(16));
    const dst = new Float64Array(16);
    rotateVrm0(model, PLACED, dst);
    expect(Array.from(dst)).toEqual(Array.from(expected));
    const inPlace = Float64Array.from(PLACED);
    rotateVrm0(model, inPlace, inPlace);
    expect(Array.from(inPlace)).toEqual(Array.from(expected));
    const single = new Float32Array(16);
    rotateVrm0(model, PLACED, single);
    expect(Array.from(single)).toEqual(Array.from(Float32Array.from(expected)));
  });

  it('leaves VRM 1.0 avatars and plain glTF models as they are', async () => {
    for (const name of ['vrm-avatar', 'character']) {
      const model = await loadGltf(buildBuiltinGlb(name));
      const dst = new Float64Array(16);
      expect(rotateVrm0(model, PLACED, dst), name).toBe(false);
      expect(Array.from(dst)).toEqual(PLACED);
    }
    // A VRM 1.0 avatar already faces +Z.
    const vrm1 = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    expect(faceZ(vrm1, IDENTITY)).toBeGreaterThan(0.01);
  });
});
