/**
 * The humanoid map of a VRM avatar: VRM 1.0's `extensions.VRMC_vrm.humanoid.humanBones` (or a
 * VRM animation's `extensions.VRMC_vrm_animation.humanoid.humanBones`, the same form)
 * (bone name → `{ node }`) or VRM 0.x's `extensions.VRM.humanoid.humanBones` (a list of
 * `{ bone, node }`), read into `Model.humanoid` (1.0 preferred when a file has both). Bones
 * outside HUMANOID_BONES are skipped (VRM allows more than retargeting maps). As for every
 * VRM part, a broken entry (a bone name that is not a string, a node index the file does not
 * have) is skipped with a warning naming its path and the model still loads; a map that is
 * missing or not an object leaves the model without one, with a warning. The rest of VRM
 * (expressions, look-at, spring bones, materials) is read by vrm.ts.
 */
import { GltfError } from '../errors.ts';
import { HUMANOID_BONES, type HumanoidBone, type HumanoidMap } from '../humanoid.ts';
import { asObject, checkIndex, describe, isObject, optArray, optObject, type JsonObject } from '../json.ts';
import type { ReadContext } from '../read-context.ts';

import { VRM0 as VRM_0, VRMC_VRM, VRMC_VRM_ANIMATION } from './names.ts';

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
  /** Runs `read`, turning a GltfError into a warning: that part is skipped. */
  const part = (read: () => void): boolean => {
    try {
      read();
      return true;
    } catch (e) {
      if (!(e instanceof GltfError)) throw e;
      ctx.warn(e.path, `${e.problem}; skipped`);
      return false;
    }
  };
  // VRM 1.0, or a VRM animation (.vrma), which names its bones the same way.
  const name1 = isObject(extensions[VRMC_VRM]) ? VRMC_VRM : isObject(extensions[VRMC_VRM_ANIMATION]) ? VRMC_VRM_ANIMATION : undefined;
  const vrm1 = name1 ? (extensions[name1] as JsonObject) : undefined;
  if (vrm1) {
    const path = `extensions.${name1}.humanoid.humanBones`;
    let bones: JsonObject | undefined;
    const found = part(() => {
      bones = optObject(asObject(vrm1.humanoid, `extensions.${name1}.humanoid`), 'humanBones', `extensions.${name1}.humanoid`);
      if (!bones) throw new GltfError(path, 'is missing');
    });
    if (!found || !bones) return undefined;
    for (const [name, entry] of Object.entries(bones)) part(() => add(name, asObject(entry, `${path}.${name}`).node, `${path}.${name}`, 1));
    return out;
  }
  const vrm0 = isObject(extensions[VRM_0]) ? extensions[VRM_0] : undefined;
  if (vrm0) {
    const path = `extensions.${VRM_0}.humanoid.humanBones`;
    let list: unknown[] = [];
    if (!part(() => { list = optArray(asObject(vrm0.humanoid, `extensions.${VRM_0}.humanoid`), 'humanBones', `extensions.${VRM_0}.humanoid`); })) return undefined;
    list.forEach((entry, i) => part(() => {
      if (!isObject(entry)) throw new GltfError(`${path}[${i}]`, 'is not an object');
      add(entry.bone, entry.node, `${path}[${i}]`, 0);
    }));
    return out;
  }
  return undefined;
}
