/**
 * VRMC_springBone_extended_collider: on a VRMC_springBone collider,
 * `extensions.VRMC_springBone_extended_collider.shape` replaces the collider's shape with a
 * sphere or capsule that may keep tails inside (`inside: true`), or with a plane (a point
 * `offset` and a `normal`, tails kept on the normal's side). An unknown spec version falls
 * back to the plain shape, as three-vrm does.
 */
import { isObject, type JsonObject } from '../json.ts';
import { ColliderShape } from '../vrm-model.ts';
import type { SpringBonesBuilder } from './vrm-spring-builder.ts';
import type { VrmReader } from './vrm-read.ts';
import { VRMC_SPRING_BONE_EXTENDED_COLLIDER } from './names.ts';

/** The extended shape of collider JSON `c` (at `path`) added to `builder`; undefined when it has none usable. */
export function readExtendedCollider(reader: VrmReader, c: JsonObject, path: string, node: number, builder: SpringBonesBuilder): number | undefined {
  const exts = c.extensions;
  const ext = isObject(exts) ? exts[VRMC_SPRING_BONE_EXTENDED_COLLIDER] : undefined;
  if (ext === undefined) return undefined;
  const epath = `${path}.extensions.${VRMC_SPRING_BONE_EXTENDED_COLLIDER}`;
  if (!isObject(ext)) {
    reader.warn(epath, 'is not an object; the plain shape is used');
    return undefined;
  }
  const version = reader.string(ext, 'specVersion', epath);
  if (version !== '1.0') {
    reader.warn(`${epath}.specVersion`, `spec version ${JSON.stringify(version)} is not 1.0; the plain shape is used`);
    return undefined;
  }
  const shape = reader.object(ext, 'shape', epath);
  const spath = `${epath}.shape`;
  const sphere = shape && reader.object(shape, 'sphere', spath);
  if (sphere) {
    const p = `${spath}.sphere`;
    return builder.addCollider(
      node, ColliderShape.SPHERE, reader.boolean(sphere, 'inside', p, false), reader.number(sphere, 'radius', p, 0, 0),
      reader.numbers(sphere, 'offset', p, [0, 0, 0]),
    );
  }
  const capsule = shape && reader.object(shape, 'capsule', spath);
  if (capsule) {
    const p = `${spath}.capsule`;
    return builder.addCollider(
      node, ColliderShape.CAPSULE, reader.boolean(capsule, 'inside', p, false), reader.number(capsule, 'radius', p, 0, 0),
      reader.numbers(capsule, 'offset', p, [0, 0, 0]), reader.numbers(capsule, 'tail', p, [0, 0, 0]),
    );
  }
  const plane = shape && reader.object(shape, 'plane', spath);
  if (plane) {
    const p = `${spath}.plane`;
    const normal = reader.numbers(plane, 'normal', p, [0, 0, 1]);
    if (Math.hypot(...normal) === 0) {
      reader.warn(`${p}.normal`, 'is a zero vector; using [0, 0, 1]');
      normal[0] = 0; normal[1] = 0; normal[2] = 1;
    }
    return builder.addCollider(node, ColliderShape.PLANE, false, 0, reader.numbers(plane, 'offset', p, [0, 0, 0]), normal);
  }
  reader.warn(spath, 'has no sphere, capsule or plane; the plain shape is used');
  return undefined;
}
