/**
 * Whether a file has anything the VRM readers (vrm-readers.ts) read, so that the loader imports
 * them only then: a root `VRMC_vrm`, `VRM` (0.x), `VRMC_springBone` or `VRMC_vrm_animation`, or a
 * node's `VRMC_node_constraint` (spring bones and constraints are read in a plain glTF too). Decided
 * by what the JSON holds, not by `extensionsUsed` alone, so a file that forgets to list them loads
 * as before. A root `extensions` that is not an object counts too: the readers report it.
 */
import { isObject, type JsonObject } from '../json.ts';
import { VRM0, VRMC_NODE_CONSTRAINT, VRMC_SPRING_BONE, VRMC_VRM, VRMC_VRM_ANIMATION } from './names.ts';

const ROOT_EXTENSIONS: readonly string[] = [VRMC_VRM, VRM0, VRMC_SPRING_BONE, VRMC_VRM_ANIMATION];

/** True when the file at `root` (with its `nodes`) has a VRM part for the VRM readers. */
export function hasVrmParts(root: JsonObject, nodesJson: readonly unknown[]): boolean {
  const extensions = root.extensions;
  if (extensions !== undefined && !isObject(extensions)) return true;
  if (extensions && ROOT_EXTENSIONS.some((name) => extensions[name] !== undefined)) return true;
  return nodesJson.some((n) => isObject(n) && isObject(n.extensions) && n.extensions[VRMC_NODE_CONSTRAINT] !== undefined);
}
