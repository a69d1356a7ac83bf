/**
 * The humanoid map of a VRM avatar: VRM 1.0's `extensions.VRMC_vrm.humanoid.humanBones`
 * (bone name → `{ node }`) or VRM 0.x's `extensions.VRM.humanoid.humanBones` (a list of
 * `{ bone, node }`), read into `Model.humanoid` (1.0 preferred when a file has both). Bones
 * outside HUMANOID_BONES are skipped (VRM allows more than retargeting maps); a bone name
 * that is not a string, or a node index the file does not have, is refused naming its path.
 * The rest of VRM (expressions, look-at, spring bones, materials) is read elsewhere.
 */
import { GltfError } from '../errors.ts';
import { HUMANOID_BONES, type HumanoidBone, type HumanoidMap } from '../humanoid.ts';
import { asObject, checkIndex, describe, isObject, optArray, optObject } from '../json.ts';
import type { ReadContext } from '../read-context.ts';

export const VRMC_VRM = 'VRMC_vrm';
/** VRM 0.x's root extension. */
export const VRM_0 = 'VRM';

/** VRM 0.x's thumb names, one joint further out than VRM 1.0's (0.x Proximal = 1.0 Metacarpal). */
const VRM0_RENAMES: Readonly<Record<string, HumanoidBone>> = {
  leftThumbProximal: 'leftThumbMetacarpal', leftThumbIntermediate: 'leftThumbProximal',
  rightThumbProximal: 'rightThumbMetacarpal', rightThumbIntermediate: 'rightThumbProximal',
};

const BONE_SET: ReadonlySet<string> = new Set(HUMANOID_BONES);

/** A VRM humanoid bone name (either version) as a HumanoidBone, or undefined for one we do not know. */
export function humanoidBoneOfVrm(name: string, version: 0 | 1): HumanoidBone | undefined {
  if (version === 0 && Object.hasOwn(VRM0_RENAMES, name)) return VRM0_RENAMES[name];
  return BONE_SET.has(name) ? (name as HumanoidBone) : undefined;
}

/** The file's VRM humanoid map, or undefined when it has no VRM extension. */
export function readVrmHumanoid(ctx: ReadContext, nodeCount: number): HumanoidMap | undefined {
  const extensions = optObject(ctx.root, 'extensions', '');
  if (!extensions) return undefined;
  const out: Partial<Record<HumanoidBone, number>> = {};
  const add = (boneName: unknown, node: unknown, path: string, version: 0 | 1): void => {
    if (typeof boneName !== 'string') throw new GltfError(path, `bone name ${describe(boneName)} is not a string`);
    const bone = humanoidBoneOfVrm(boneName, version);
    if (bone === undefined) return;
    out[bone] = checkIndex(node, `${path}.node`, nodeCount, 'nodes');
  };
  const vrm1 = optObject(extensions, VRMC_VRM, 'extensions');
  if (vrm1) {
    const path = `extensions.${VRMC_VRM}.humanoid.humanBones`;
    const bones = optObject(asObject(vrm1.humanoid, `extensions.${VRMC_VRM}.humanoid`), 'humanBones', `extensions.${VRMC_VRM}.humanoid`);
    if (!bones) throw new GltfError(path, 'is missing');
    for (const [name, entry] of Object.entries(bones)) add(name, asObject(entry, `${path}.${name}`).node, `${path}.${name}`, 1);
    return out;
  }
  const vrm0 = optObject(extensions, VRM_0, 'extensions');
  if (vrm0) {
    const path = `extensions.${VRM_0}.humanoid.humanBones`;
    const list = optArray(asObject(vrm0.humanoid, `extensions.${VRM_0}.humanoid`), 'humanBones', `extensions.${VRM_0}.humanoid`);
    list.forEach((entry, i) => {
      if (!isObject(entry)) throw new GltfError(`${path}[${i}]`, 'is not an object');
      add(entry.bone, entry.node, `${path}[${i}]`, 0);
    });
    return out;
  }
  return undefined;
}
