/**
 * VRM 0.x `extensions.VRM.secondaryAnimation`, read into the same spring-bone model as
 * VRMC_springBone with three-vrm's conversions: every node under each of a bone group's
 * `bones` (depth first) is a joint whose tail is its first child, or for a node without
 * children a point 7 cm along its own offset from its parent; the group's parameters apply to
 * all of them (`stiffiness`, the 0.x spelling, is the stiffness); collider groups are
 * spheres on one node each, with the offset's z negated (0.x stored it mirrored); a `center`
 * of -1 means none. Missing parameters take three-vrm's defaults (UniVRM 0.x's drag 0.4,
 * not VRMC_springBone's 0.5).
 */
import { isObject, type JsonObject } from '../json.ts';
import { ColliderShape } from '../vrm-model.ts';
import type { JointInput, JointSettings, SpringBonesBuilder } from './vrm-spring-builder.ts';
import type { VrmReader } from './vrm-read.ts';

const VRM0_JOINT_DEFAULTS: JointSettings = {
  hitRadius: 0, stiffness: 1, gravityPower: 0, gravityDir: [0, -1, 0], dragForce: 0.4,
};

export function readSecondaryAnimation(reader: VrmReader, secondary: JsonObject, builder: SpringBonesBuilder): void {
  const path = 'extensions.VRM.secondaryAnimation';
  const groups = reader.array(secondary, 'colliderGroups', path).map((g, i) => reader.part(() => {
    const gpath = `${path}.colliderGroups[${i}]`;
    if (!isObject(g)) {
      reader.warn(gpath, 'is not an object; skipped');
      return undefined;
    }
    const node = reader.node(g.node, `${gpath}.node`);
    return reader.array(g, 'colliders', gpath).flatMap((c, k) => {
      const cpath = `${gpath}.colliders[${k}]`;
      if (!isObject(c)) {
        reader.warn(cpath, 'is not an object; skipped');
        return [];
      }
      const [x, y, z] = reader.xyz(c, 'offset', cpath, [0, 0, 0]);
      return [builder.addCollider(node, ColliderShape.SPHERE, false, reader.number(c, 'radius', cpath, 0, 0), [x, y, -z])];
    });
  }));
  const nodes = reader.input.nodes;
  reader.array(secondary, 'boneGroups', path).forEach((g, i) => {
    const gpath = `${path}.boneGroups[${i}]`;
    if (!isObject(g)) {
      reader.warn(gpath, 'is not an object; skipped');
      return;
    }
    const settings: JointSettings = {
      hitRadius: reader.number(g, 'hitRadius', gpath, VRM0_JOINT_DEFAULTS.hitRadius, 0),
      stiffness: reader.number(g, 'stiffiness', gpath, VRM0_JOINT_DEFAULTS.stiffness, 0),
      gravityPower: reader.number(g, 'gravityPower', gpath, VRM0_JOINT_DEFAULTS.gravityPower, 0),
      gravityDir: reader.xyz(g, 'gravityDir', gpath, [0, -1, 0]),
      dragForce: reader.number(g, 'dragForce', gpath, VRM0_JOINT_DEFAULTS.dragForce, 0, 1),
    };
    const colliders: number[] = [];
    reader.array(g, 'colliderGroups', gpath).forEach((c, k) => {
      const index = reader.part(() => reader.index(c, `${gpath}.colliderGroups[${k}]`, groups.length, 'colliderGroups'));
      if (index !== undefined) colliders.push(...(groups[index] ?? []));
    });
    let center = -1;
    if (g.center !== undefined && g.center !== -1) center = reader.part(() => reader.node(g.center, `${gpath}.center`)) ?? -1;
    const seen = new Set<number>();
    reader.array(g, 'bones', gpath).forEach((b, k) => {
      const bpath = `${gpath}.bones[${k}]`;
      const root = reader.part(() => reader.node(b, bpath));
      if (root === undefined) return;
      // Depth-first, children in order: three-vrm's `traverse`.
      const joints: JointInput[] = [];
      const stack = [root];
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (seen.has(n)) continue;
        seen.add(n);
        const children = nodes[n].children;
        joints.push({ node: n, tail: children.length > 0 ? children[0] : -1, settings });
        for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]);
      }
      builder.addSpring(reader.string(g, 'comment', gpath), bpath, joints, colliders, center);
    });
  });
}
