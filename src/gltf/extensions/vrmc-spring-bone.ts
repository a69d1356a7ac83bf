/**
 * VRMC_springBone (VRM 1.0): colliders on nodes, collider groups, and springs — chains of
 * joints where each joint but the last is the head of a segment whose tail is the next joint
 * (the last joint is only a tail). Joint parameters are the head's. A joint that is not a
 * descendant of the one before it ends its chain there (the specification requires it);
 * missing or broken colliders and groups are skipped, each with a warning naming its path.
 * Collider shapes may be replaced by VRMC_springBone_extended_collider's (plane, inside
 * sphere/capsule).
 */
import { isObject, type JsonObject } from '../json.ts';
import { ColliderShape } from '../vrm-model.ts';
import { readExtendedCollider } from './vrmc-spring-bone-extended-collider.ts';
import type { JointInput, JointSettings, SpringBonesBuilder } from './vrm-spring-builder.ts';
import type { VrmReader } from './vrm-read.ts';
import { VRMC_SPRING_BONE } from './names.ts';

const SPEC_VERSIONS = ['1.0', '1.0-beta'];

/** VRMC_springBone's defaults (its JSON schema). */
export const SPRING_JOINT_DEFAULTS: JointSettings = {
  hitRadius: 0, stiffness: 1, gravityPower: 0, gravityDir: [0, -1, 0], dragForce: 0.5,
};

/** Reads `extensions.VRMC_springBone` into `builder`. */
export function readSpringBone(reader: VrmReader, ext: JsonObject, builder: SpringBonesBuilder): void {
  const path = `extensions.${VRMC_SPRING_BONE}`;
  const version = reader.string(ext, 'specVersion', path);
  if (version === undefined || !SPEC_VERSIONS.includes(version)) {
    reader.warn(`${path}.specVersion`, `spec version ${JSON.stringify(version)} is not 1.0; read as 1.0`);
  }
  const colliderOf = reader.array(ext, 'colliders', path).map((c, i) => reader.part(() => readCollider(reader, c, `${path}.colliders[${i}]`, builder)));
  const groups = reader.array(ext, 'colliderGroups', path).map((g, i) => {
    const gpath = `${path}.colliderGroups[${i}]`;
    if (!isObject(g)) {
      reader.warn(gpath, 'is not an object; skipped');
      return undefined;
    }
    const list: number[] = [];
    reader.array(g, 'colliders', gpath).forEach((c, k) => {
      const index = reader.part(() => reader.index(c, `${gpath}.colliders[${k}]`, colliderOf.length, 'colliders'));
      if (index === undefined) return;
      const collider = colliderOf[index];
      if (collider === undefined) reader.warn(`${gpath}.colliders[${k}]`, `colliders[${index}] was skipped; ignored`);
      else list.push(collider);
    });
    return list;
  });
  reader.array(ext, 'springs', path).forEach((s, i) => {
    reader.part(() => readSpring(reader, s, `${path}.springs[${i}]`, groups, builder));
  });
}

function readCollider(reader: VrmReader, c: unknown, path: string, builder: SpringBonesBuilder): number | undefined {
  if (!isObject(c)) {
    reader.warn(path, 'is not an object; skipped');
    return undefined;
  }
  const node = reader.node(c.node, `${path}.node`);
  const extended = readExtendedCollider(reader, c, path, node, builder);
  if (extended !== undefined) return extended;
  const shape = reader.object(c, 'shape', path);
  const spath = `${path}.shape`;
  const sphere = shape && reader.object(shape, 'sphere', spath);
  if (sphere) {
    const p = `${spath}.sphere`;
    return builder.addCollider(node, ColliderShape.SPHERE, false, reader.number(sphere, 'radius', p, 0, 0), reader.numbers(sphere, 'offset', p, [0, 0, 0]));
  }
  const capsule = shape && reader.object(shape, 'capsule', spath);
  if (capsule) {
    const p = `${spath}.capsule`;
    return builder.addCollider(
      node, ColliderShape.CAPSULE, false, reader.number(capsule, 'radius', p, 0, 0),
      reader.numbers(capsule, 'offset', p, [0, 0, 0]), reader.numbers(capsule, 'tail', p, [0, 0, 0]),
    );
  }
  reader.warn(spath, 'has neither a sphere nor a capsule; the collider is skipped');
  return undefined;
}

function readSpring(reader: VrmReader, s: unknown, path: string, groups: readonly (number[] | undefined)[], builder: SpringBonesBuilder): void {
  if (!isObject(s)) {
    reader.warn(path, 'is not an object; skipped');
    return;
  }
  const colliders: number[] = [];
  reader.array(s, 'colliderGroups', path).forEach((g, k) => {
    const index = reader.part(() => reader.index(g, `${path}.colliderGroups[${k}]`, groups.length, 'colliderGroups'));
    if (index === undefined) return;
    const group = groups[index];
    if (group) colliders.push(...group);
  });
  let center = -1;
  if (s.center !== undefined) center = reader.part(() => reader.node(s.center, `${path}.center`)) ?? -1;
  const jointsJson = reader.array(s, 'joints', path);
  const nodes: number[] = [];
  const settings: JointSettings[] = [];
  for (let k = 0; k < jointsJson.length; k++) {
    const jpath = `${path}.joints[${k}]`;
    const joint = jointsJson[k];
    const ends = k === 0 ? 'the spring has no joints' : `the spring ends at joints[${k - 1}]`;
    if (!isObject(joint)) {
      reader.warn(jpath, `is not an object; ${ends}`);
      break;
    }
    const node = reader.part(() => reader.node(joint.node, `${jpath}.node`));
    if (node === undefined) {
      reader.warn(jpath, `has no usable node; ${ends}`);
      break;
    }
    if (nodes.length > 0 && !reader.isAncestor(nodes[nodes.length - 1], node)) {
      reader.warn(`${jpath}.node`, `node ${node} is not a descendant of joints[${k - 1}]'s node ${nodes[nodes.length - 1]}; the spring ends at joints[${k - 1}]`);
      break;
    }
    nodes.push(node);
    settings.push(readJointSettings(reader, joint, jpath));
  }
  const joints: JointInput[] = [];
  for (let k = 0; k + 1 < nodes.length; k++) joints.push({ node: nodes[k], tail: nodes[k + 1], settings: settings[k] });
  if (joints.length === 0 && jointsJson.length > 0) reader.warn(`${path}.joints`, 'has fewer than two usable joints; the spring does nothing');
  builder.addSpring(reader.string(s, 'name', path), path, joints, colliders, center);
}

function readJointSettings(reader: VrmReader, joint: JsonObject, path: string): JointSettings {
  const d = SPRING_JOINT_DEFAULTS;
  return {
    hitRadius: reader.number(joint, 'hitRadius', path, d.hitRadius, 0),
    stiffness: reader.number(joint, 'stiffness', path, d.stiffness, 0),
    gravityPower: reader.number(joint, 'gravityPower', path, d.gravityPower, 0),
    gravityDir: reader.numbers(joint, 'gravityDir', path, [...d.gravityDir] as [number, number, number]),
    dragForce: reader.number(joint, 'dragForce', path, d.dragForce, 0, 1),
  };
}
