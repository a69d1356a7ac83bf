import type { Hierarchy, Model } from '../../gltf/model.ts';
import { isInSubtree } from '../mask.ts';
import type { HumanoidBone, HumanoidMap } from '../../gltf/humanoid.ts';
import { humanoidBonesOf, normalizeJointName } from './humanoid.ts';

/**
 * Which source joint drives each target joint. Tried in this order, first match wins:
 * the user's map; the same name; the same normalised name (`normalizeJointName`); the same
 * humanoid bone, read from the file's VRM humanoid map when it has one, else from the
 * built-in table of rigging conventions (humanoid.ts).
 */

/** A thrown retargeting problem (no joint in common, a bad user map, NaN in a reference pose); `joint` names the joint when there is one. */
export class RetargetError extends Error {
  override readonly name = 'RetargetError';
  constructor(message: string, readonly joint?: string) {
    super(message);
  }
}

/** A model to retarget from or to; `humanoid` (default: the model's own, `Model.humanoid`) maps its bones. */
export interface RetargetSkeleton {
  readonly model: Model;
  readonly humanoid?: HumanoidMap;
}

/** Options of `mapJoints` (and of retargeting): a user map that overrides the automatic matches. */
export interface JointMapOptions {
  /** Target joint name → source joint name. Always wins over the automatic matches. */
  readonly jointMap?: Readonly<Record<string, string>>;
}

/** How a target joint found its source joint. */
export type JointMatch = 'user' | 'name' | 'normalized' | 'humanoid';

/** One matched joint: the target joint's name, its source joint's name, and how the match was made. */
export interface JointPair {
  readonly target: string;
  readonly source: string;
  readonly by: JointMatch;
}

/**
 * The result of `mapJoints`: which source joint drives each target joint, and which target joints have none.
 */
export interface JointMapping {
  /** Per target slot: the source slot driving it, or -1. */
  readonly sourceSlotOf: Int32Array;
  /** The matched joints, in target slot order. */
  readonly pairs: readonly JointPair[];
  /** Target joints with no source joint: they keep their rest pose. */
  readonly unmapped: readonly string[];
  /** Target slot of the hips (the humanoid `hips`, else the first mapped joint). */
  readonly hipsSlot: number;
  /** Matches dropped because they contradict the hierarchies (named), and similar notes. */
  readonly warnings: readonly string[];
}

/** A node's name for messages: its name, else `nodes[i]`. */
export function jointLabel(model: Model, slot: number): string {
  const node = model.hierarchy.order[slot];
  return model.nodes[node].name ?? `nodes[${node}]`;
}

/** The slots of a model's skeleton: every skin's joints (sorted), or every node when it has no skin (an animation-only file). */
export function skeletonSlots(model: Model): Int32Array {
  const h = model.hierarchy;
  if (model.skins.length === 0) return Int32Array.from({ length: h.count }, (_, i) => i);
  const inSkin = new Uint8Array(h.count);
  for (const skin of model.skins) for (const slot of skin.jointSlots) inSkin[slot] = 1;
  const out: number[] = [];
  for (let slot = 0; slot < h.count; slot++) if (inSkin[slot]) out.push(slot);
  return Int32Array.from(out);
}

/** Humanoid bone per slot of the skeleton: from its map when it has one (a VRM file's), else from the names. */
function humanoidBySlot(sk: RetargetSkeleton, slots: Int32Array): Map<number, HumanoidBone> {
  const out = new Map<number, HumanoidBone>();
  const h = sk.model.hierarchy;
  const humanoid = sk.humanoid ?? sk.model.humanoid;
  if (humanoid) {
    for (const [bone, node] of Object.entries(humanoid)) {
      if (typeof node === 'number' && node >= 0 && node < h.count) out.set(h.slotOf[node], bone as HumanoidBone);
    }
    return out;
  }
  const { bones } = humanoidBonesOf(Array.from(slots, (s) => sk.model.nodes[h.order[s]].name));
  bones.forEach((b, i) => { if (b) out.set(slots[i], b); });
  return out;
}

/**
 * The slot of humanoid `bone` (VRM 1.0's name, e.g. `leftHand`) in `model`: by its humanoid map
 * (a VRM file's) when it has one, else by its joint names read in the rigging convention that
 * names most of them; −1 when no joint is that bone.
 */
export function humanoidBoneSlot(model: Model, bone: string): number {
  for (const [slot, b] of humanoidBySlot({ model }, skeletonSlots(model))) if (b === bone) return slot;
  return -1;
}

/** Maps the target's skeleton joints onto the source's (see the module comment). Throws RetargetError when nothing matches or the user map is wrong. */
export function mapJoints(source: RetargetSkeleton, target: RetargetSkeleton, options: JointMapOptions = {}): JointMapping {
  const src = source.model, tgt = target.model;
  const srcSlots = skeletonSlots(src), tgtSlots = skeletonSlots(tgt);
  const srcH = src.hierarchy, tgtH = tgt.hierarchy;
  const sourceSlotOf = new Int32Array(tgtH.count).fill(-1);
  const by = new Map<number, JointMatch>();
  const warnings: string[] = [];

  // Source lookups: exact names over every node (a user may name any node), the rest over the skeleton.
  const srcExact = new Map<string, number>();
  for (let slot = 0; slot < srcH.count; slot++) {
    const name = src.nodes[srcH.order[slot]].name;
    if (name !== undefined && !srcExact.has(name)) srcExact.set(name, slot);
  }
  const srcSkeletonExact = new Map<string, number>();
  const srcNormalised = new Map<string, number>();
  for (const slot of srcSlots) {
    const name = src.nodes[srcH.order[slot]].name;
    if (name === undefined) continue;
    if (!srcSkeletonExact.has(name)) srcSkeletonExact.set(name, slot);
    const n = normalizeJointName(name);
    if (n !== '' && !srcNormalised.has(n)) srcNormalised.set(n, slot);
  }
  const srcBones = new Map<HumanoidBone, number>();
  for (const [slot, bone] of humanoidBySlot(source, srcSlots)) if (!srcBones.has(bone)) srcBones.set(bone, slot);
  const tgtBones = humanoidBySlot(target, tgtSlots);

  const tgtByName = new Map<string, number>();
  for (const slot of tgtSlots) {
    const name = tgt.nodes[tgtH.order[slot]].name;
    if (name !== undefined && !tgtByName.has(name)) tgtByName.set(name, slot);
  }
  const user = options.jointMap ?? {};
  for (const [tName, sName] of Object.entries(user)) {
    const t = tgtByName.get(tName);
    if (t === undefined) throw new RetargetError(`joint map: the target has no skeleton joint named ${JSON.stringify(tName)}`, tName);
    if (typeof sName !== 'string') throw new RetargetError(`joint map: ${JSON.stringify(tName)} maps to ${JSON.stringify(sName)}, not a joint name`, tName);
    const s = srcExact.get(sName);
    if (s === undefined) throw new RetargetError(`joint map: ${JSON.stringify(tName)} maps to ${JSON.stringify(sName)}, which the source does not have`, tName);
    sourceSlotOf[t] = s;
    by.set(t, 'user');
  }
  for (const t of tgtSlots) {
    if (sourceSlotOf[t] >= 0) continue;
    const name = tgt.nodes[tgtH.order[t]].name;
    let s = name === undefined ? undefined : srcSkeletonExact.get(name);
    let how: JointMatch = 'name';
    if (s === undefined && name !== undefined) { s = srcNormalised.get(normalizeJointName(name)); how = 'normalized'; }
    if (s === undefined) {
      const bone = tgtBones.get(t);
      if (bone) { s = srcBones.get(bone); how = 'humanoid'; }
    }
    if (s !== undefined) { sourceSlotOf[t] = s; by.set(t, how); }
  }

  // The map must keep ancestry: a target joint's nearest mapped ancestor must drive it from an
  // ancestor of its own source (or the same joint). The other way round is a cycle.
  for (const t of tgtSlots) {
    const s = sourceSlotOf[t];
    if (s < 0) continue;
    const a = nearestMappedAncestor(tgtH, sourceSlotOf, t);
    if (a < 0) continue;
    const sa = sourceSlotOf[a];
    if (isInSubtree(srcH, s, sa)) continue;
    const what = `target ${JSON.stringify(jointLabel(tgt, a))} is an ancestor of ${JSON.stringify(jointLabel(tgt, t))}, but their sources ${JSON.stringify(jointLabel(src, sa))} and ${JSON.stringify(jointLabel(src, s))}`;
    if (isInSubtree(srcH, sa, s)) {
      if (by.get(t) === 'user' || by.get(a) === 'user') throw new RetargetError(`joint map makes a cycle: ${what} are the other way round`, jointLabel(tgt, t));
      warnings.push(`${what} are the other way round; ${JSON.stringify(jointLabel(tgt, t))} is left unmapped`);
      sourceSlotOf[t] = -1;
      by.delete(t);
    } else if (by.get(t) !== 'user') {
      warnings.push(`${what} are on different branches; ${JSON.stringify(jointLabel(tgt, t))} is left unmapped`);
      sourceSlotOf[t] = -1;
      by.delete(t);
    }
  }

  const pairs: JointPair[] = [];
  const unmapped: string[] = [];
  for (const t of tgtSlots) {
    if (sourceSlotOf[t] >= 0) pairs.push({ target: jointLabel(tgt, t), source: jointLabel(src, sourceSlotOf[t]), by: by.get(t)! });
    else unmapped.push(jointLabel(tgt, t));
  }
  if (pairs.length === 0) {
    const names = (m: Model, slots: Int32Array) => Array.from(slots.subarray(0, 8), (s) => jointLabel(m, s)).join(', ') + (slots.length > 8 ? ', …' : '');
    throw new RetargetError(`no joint in common: target joints (${names(tgt, tgtSlots)}) match no source joint (${names(src, srcSlots)}); give a joint map`);
  }
  return { sourceSlotOf, pairs, unmapped, hipsSlot: findHips(tgt, tgtBones, sourceSlotOf), warnings };
}

/** The nearest proper ancestor of target `slot` that the map drives (sourceSlotOf ≥ 0), or -1. */
export function nearestMappedAncestor(h: Hierarchy, sourceSlotOf: Int32Array, slot: number): number {
  for (let p = h.parentSlot[slot]; p >= 0; p = h.parentSlot[p]) if (sourceSlotOf[p] >= 0) return p;
  return -1;
}

/**
 * The target's hips: its humanoid `hips` when mapped; else the first mapped joint (parent-first)
 * with two or more mapped children, where legs and spine part (a quadruped's pelvis too); else
 * the first mapped joint.
 */
function findHips(tgt: Model, bones: ReadonlyMap<number, HumanoidBone>, sourceSlotOf: Int32Array): number {
  for (const [slot, bone] of bones) if (bone === 'hips' && sourceSlotOf[slot] >= 0) return slot;
  const h = tgt.hierarchy;
  const mappedChildren = new Int32Array(h.count);
  let first = -1;
  for (let slot = 0; slot < h.count; slot++) {
    if (sourceSlotOf[slot] < 0) continue;
    if (first < 0) first = slot;
    const p = nearestMappedAncestor(h, sourceSlotOf, slot);
    if (p >= 0) mappedChildren[p]++;
  }
  for (let slot = 0; slot < h.count; slot++) if (sourceSlotOf[slot] >= 0 && mappedChildren[slot] >= 2) return slot;
  return first;
}
