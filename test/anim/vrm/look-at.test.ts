/**
 * Look-at against three-vrm 3.5's VRMLookAt: the built-in avatars (bone type; VRM 0.x facing
 * −Z and turned to +Z as three-vrm's rotateVRM0 does), their head turned at random, looking
 * at random targets; and an expression-type variant. Eye rotations (bone) and look
 * expression weights (expression) must equal three-vrm's to 1e-6.
 *
 * One deliberate difference: three-vrm 3.5's bone applier uses the vertical-down range map
 * when the eyes look up and the up map when they look down; VRMC_vrm's table (and our
 * expression path, and three-vrm's own expression applier) use up for up. The bone comparison
 * therefore swaps the two maps on our side, and a separate test checks the specification's.
 */
import { Object3D, Quaternion } from 'three';
import { describe, expect, it } from 'vitest';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { ExpressionJob } from '../../../src/anim/vrm/expressions.ts';
import { LookAtJob } from '../../../src/anim/vrm/look-at.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import type { VrmLookAt } from '../../../src/gltf/vrm-model.ts';
import { Rng } from '../../support/fuzz.ts';
import { loadThreeVrm, threeNode } from '../../support/three-vrm.ts';
import { quatAngle } from '../fixtures.ts';

const TOLERANCE = 1e-6;

function job(model: Model, settings: VrmLookAt, world?: Float64Array) {
  const h = model.hierarchy;
  const pose = createPose(model);
  const matrices = new Float64Array(h.count * 16);
  const rest = localToModel(h, createPose(model), new Float64Array(h.count * 16));
  const expressions = new ExpressionJob(model, pose);
  const hm = model.humanoid!;
  const lookAt = new LookAtJob(h, settings, pose, matrices, { head: hm.head!, leftEye: hm.leftEye ?? -1, rightEye: hm.rightEye ?? -1 }, expressions, rest, world);
  lookAt.validate();
  return { pose, matrices, lookAt, expressions };
}

const swapVertical = (s: VrmLookAt): VrmLookAt => ({ ...s, rangeMapVerticalUp: s.rangeMapVerticalDown, rangeMapVerticalDown: s.rangeMapVerticalUp });

/** A random head turn (up to ~40°) and a target 0.3–2 m from the head, anywhere around. */
function scenario(rng: Rng) {
  const axis = [rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5];
  const l = Math.hypot(...axis), a = (rng.next() - 0.5) * 1.4, s = Math.sin(a / 2) / l;
  const turn = [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(a / 2)];
  const r = 0.3 + rng.next() * 1.7, th = rng.next() * 2 * Math.PI, ph = (rng.next() - 0.5) * 2.4;
  const target = [r * Math.cos(ph) * Math.sin(th), 1.7 + r * Math.sin(ph), r * Math.cos(ph) * Math.cos(th)];
  return { turn, target };
}

async function compareBones(name: 'vrm-avatar' | 'vrm0-avatar'): Promise<{ worst: number; moved: number }> {
  const bytes = buildBuiltinGlb(name);
  const model = await loadGltf(bytes);
  const turned = name === 'vrm0-avatar';
  // three-vrm's rotateVRM0: the scene turned half round; ours through worldFromModel.
  const world = turned ? new Float64Array([-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1]) : undefined;
  const ours = job(model, swapVertical(model.vrm!.lookAt!), world);
  const three = await loadThreeVrm(bytes);
  if (turned) three.vrm.scene.rotation.y = Math.PI;
  const target = new Object3D();
  three.vrm.lookAt!.target = target;
  const hm = model.humanoid!, h = model.hierarchy;
  const head = threeNode(three.gltf, hm.head!);
  const restHead = head.quaternion.clone();
  const rng = new Rng(11);
  let worst = 0, moved = 0;
  for (let k = 0; k < 100; k++) {
    const s = scenario(rng);
    setRestPose(model, ours.pose);
    const q = new Quaternion(...(Array.from(ours.pose.rotation.subarray(h.slotOf[hm.head!] * 4, h.slotOf[hm.head!] * 4 + 4)) as [number, number, number, number]));
    q.multiply(new Quaternion(s.turn[0], s.turn[1], s.turn[2], s.turn[3]));
    ours.pose.rotation.set([q.x, q.y, q.z, q.w], h.slotOf[hm.head!] * 4);
    localToModel(h, ours.pose, ours.matrices);
    ours.lookAt.lookAt(s.target[0], s.target[1], s.target[2]);
    ours.lookAt.run();
    head.quaternion.copy(restHead).multiply(new Quaternion(s.turn[0], s.turn[1], s.turn[2], s.turn[3]));
    target.position.set(s.target[0], s.target[1], s.target[2]);
    three.vrm.scene.updateMatrixWorld(true);
    three.vrm.lookAt!.update(1 / 60);
    for (const eye of [hm.leftEye!, hm.rightEye!]) {
      const o = h.slotOf[eye] * 4;
      const t = threeNode(three.gltf, eye).quaternion;
      worst = Math.max(worst, quatAngle(ours.pose.rotation.subarray(o, o + 4), [t.x, t.y, t.z, t.w]));
      moved = Math.max(moved, quatAngle(ours.pose.rotation.subarray(o, o + 4), h.restRotation.subarray(o, o + 4)));
    }
  }
  return { worst, moved };
}

describe('LookAtJob agrees with three-vrm', () => {
  it('bone type, VRM 1.0 avatar, head turned, random targets', async () => {
    const { worst, moved } = await compareBones('vrm-avatar');
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    expect(moved).toBeGreaterThan(0.1);
  });

  it('bone type, VRM 0.x avatar turned to face +Z', async () => {
    const { worst, moved } = await compareBones('vrm0-avatar');
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    expect(moved).toBeGreaterThan(0.1);
  });

  it('expression type: the look expressions get three-vrm\'s weights', async () => {
    // The 1.0 avatar with an expression-type look-at whose look expressions move the lids.
    const { json, bin } = parseGlb(buildBuiltinGlb('vrm-avatar'));
    const vrm = (json as { extensions: { VRMC_vrm: { lookAt: Record<string, unknown>; expressions: { preset: Record<string, unknown> } } } }).extensions.VRMC_vrm;
    vrm.lookAt.type = 'expression';
    vrm.lookAt.rangeMapVerticalUp = { inputMaxValue: 40, outputScale: 0.8 };
    vrm.lookAt.rangeMapVerticalDown = { inputMaxValue: 60, outputScale: 1 };
    vrm.lookAt.rangeMapHorizontalOuter = { inputMaxValue: 50, outputScale: 0.9 };
    const face = (json as { nodes: { mesh?: number }[] }).nodes.findIndex((n) => n.mesh !== undefined);
    for (const [name, index] of [['lookUp', 0], ['lookDown', 1], ['lookLeft', 2], ['lookRight', 3]] as const) {
      vrm.expressions.preset[name] = { morphTargetBinds: [{ node: face, index, weight: 1 }] };
    }
    const bytes = encodeGlb(json, bin);
    const model = await loadGltf(bytes);
    const ours = job(model, model.vrm!.lookAt!);
    const three = await loadThreeVrm(bytes);
    const target = new Object3D();
    three.vrm.lookAt!.target = target;
    const rng = new Rng(5);
    let worst = 0, most = 0;
    for (let k = 0; k < 100; k++) {
      const { target: p } = scenario(rng);
      localToModel(model.hierarchy, ours.pose, ours.matrices);
      ours.lookAt.lookAt(p[0], p[1], p[2]);
      ours.lookAt.run();
      target.position.set(p[0], p[1], p[2]);
      three.vrm.scene.updateMatrixWorld(true);
      three.vrm.lookAt!.update(1 / 60);
      for (const name of ['lookUp', 'lookDown', 'lookLeft', 'lookRight']) {
        const w = ours.expressions.weights[ours.expressions.find(name)];
        worst = Math.max(worst, Math.abs(w - three.vrm.expressionManager!.getValue(name)!));
        most = Math.max(most, w);
      }
    }
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    expect(most).toBeGreaterThan(0.5);
  });
});

describe('LookAtJob follows VRMC_vrm', () => {
  it('uses the vertical-up map looking up and the down map looking down (bone type)', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    const settings = model.vrm!.lookAt!;
    expect(settings.rangeMapVerticalUp.outputScale).not.toBe(settings.rangeMapVerticalDown.outputScale);
    const ours = job(model, settings);
    localToModel(model.hierarchy, ours.pose, ours.matrices);
    const eye = model.hierarchy.slotOf[model.humanoid!.leftEye!] * 4;
    const rest = model.hierarchy.restRotation.subarray(eye, eye + 4);
    for (const [pitch, map] of [[-90, settings.rangeMapVerticalUp], [90, settings.rangeMapVerticalDown]] as const) {
      ours.lookAt.setAngles(0, pitch);
      ours.lookAt.run();
      expect(quatAngle(ours.pose.rotation.subarray(eye, eye + 4), rest)).toBeCloseTo((map.outputScale * Math.PI) / 180, 9);
    }
  });
});
