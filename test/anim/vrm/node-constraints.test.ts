/**
 * Node constraints against three-vrm 3.5's VRMNodeConstraintManager: roll, rotation and aim
 * constraints (one fed by another), with rest rotations everywhere, while the sources turn
 * through random rotations. The constrained nodes' local rotations must match three-vrm's to
 * TOLERANCE radians (three.js's slerp switches to lerp at a smaller angle than ours does; the
 * two differ by less than this).
 */
import { Quaternion } from 'three';
import { describe, expect, it } from 'vitest';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { NodeConstraintJob } from '../../../src/anim/vrm/node-constraints.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { Rng } from '../../support/fuzz.ts';
import { loadThreeConstraints, threeNode } from '../../support/three-vrm.ts';
import { buildConstraintFixture } from '../../support/vrm-fixtures.ts';
import { quatAngle } from '../fixtures.ts';

const TOLERANCE = 1e-6;

function randomRotation(rng: Rng): number[] {
  const axis = [rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5];
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const angle = (rng.next() - 0.5) * 2.5;
  const s = Math.sin(angle / 2) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

describe('NodeConstraintJob agrees with three-vrm', () => {
  it('roll, rotation and aim, chained, for 200 random source poses', async () => {
    const bytes = buildConstraintFixture();
    const model = await loadGltf(bytes);
    expect(model.warnings).toEqual([]);
    const constraints = model.vrm!.constraints;
    expect(constraints.map((c) => c.type)).toEqual(['roll', 'rotation', 'aim', 'roll']);
    const h = model.hierarchy;
    const pose = createPose(model);
    const matrices = new Float64Array(h.count * 16);
    const job = new NodeConstraintJob(h, constraints, pose, matrices);
    job.validate();
    const { gltf, manager } = await loadThreeConstraints(bytes);
    const rng = new Rng(3);
    let worst = 0, moved = 0;
    const rest = createPose(model);
    for (let k = 0; k < 200; k++) {
      const arm = randomRotation(rng), hand = randomRotation(rng);
      setRestPose(model, pose);
      // Sources turn from their rest rotations.
      const compose = (node: number, delta: number[]) => {
        const r = new Quaternion(...(Array.from(rest.rotation.subarray(h.slotOf[node] * 4, h.slotOf[node] * 4 + 4)) as [number, number, number, number]));
        r.multiply(new Quaternion(delta[0], delta[1], delta[2], delta[3]));
        pose.rotation.set([r.x, r.y, r.z, r.w], h.slotOf[node] * 4);
        threeNode(gltf, node).quaternion.copy(r);
      };
      compose(1, arm);
      compose(2, hand);
      localToModel(h, pose, matrices);
      job.run();
      gltf.scene.updateMatrixWorld(true);
      manager.update();
      for (const c of constraints) {
        const ours = pose.rotation.subarray(h.slotOf[c.node] * 4, h.slotOf[c.node] * 4 + 4);
        const q = threeNode(gltf, c.node).quaternion;
        worst = Math.max(worst, quatAngle(ours, [q.x, q.y, q.z, q.w]));
        moved = Math.max(moved, quatAngle(ours, rest.rotation.subarray(h.slotOf[c.node] * 4, h.slotOf[c.node] * 4 + 4)));
      }
    }
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    expect(moved).toBeGreaterThan(0.5);
  });
});
