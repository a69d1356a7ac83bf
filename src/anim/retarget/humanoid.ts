/**
 * Joint names across rigging conventions: how a name is normalised, and the built-in
 * humanoid table that turns the joint names of Mixamo / Ready Player Me, VRM, VRoid, the
 * Unreal mannequin, Blender Rigify, Auto-Rig Pro and Quaternius rigs into one set of
 * humanoid bone names (VRM 1.0's, e.g. `leftUpperArm`: gltf/humanoid.ts), so any of them maps
 * onto any other.
 */
import { HUMANOID_BONES, sided, type HumanoidBone } from '../../gltf/humanoid.ts';

/**
 * A name with case, separators and namespace prefixes removed: `mixamorig:LeftArm`,
 * `mixamorig1:LeftArm`, `mixamorigLeftArm` (three.js strips the colon), `Armature|LeftArm`,
 * `DEF-left_arm` and `Left Arm` all become `leftarm`. Anything before the last `:` or `|` is
 * a namespace (Maya, FBX and Blender action paths write them).
 */
export function normalizeJointName(name: string): string {
  let n = name.trim();
  const cut = Math.max(n.lastIndexOf(':'), n.lastIndexOf('|'));
  if (cut >= 0 && cut < n.length - 1) n = n.slice(cut + 1);
  n = n.toLowerCase().replace(/^(mixamorig\d*|def-|org-)/, '');
  return n.replace(/[\s_.\-]+/g, '');
}

/** One rigging convention: its humanoid bones' joint names. */
export interface JointConvention {
  readonly name: string;
  /** Humanoid bone → the joint name this convention uses (normalised when looked up). */
  readonly bones: Readonly<Partial<Record<HumanoidBone, string>>>;
}

type Pair = [string, string];

function table(entries: Pair[]): Partial<Record<HumanoidBone, string>> {
  const out: Partial<Record<string, string>> = {};
  for (const [bone, joint] of entries) out[bone] = joint;
  return out as Partial<Record<HumanoidBone, string>>;
}

const FINGERS = [['Index', 'Index'], ['Middle', 'Middle'], ['Ring', 'Ring'], ['Little', 'Pinky']] as const;
const SEGMENTS = ['Proximal', 'Intermediate', 'Distal'] as const;
const THUMB = ['ThumbMetacarpal', 'ThumbProximal', 'ThumbDistal'] as const;

/** The built-in conventions (names from each tool's documentation or exported rigs). */
export const JOINT_CONVENTIONS: readonly JointConvention[] = [
  {
    name: 'mixamo',
    bones: table([
      ['hips', 'Hips'], ['spine', 'Spine'], ['chest', 'Spine1'], ['upperChest', 'Spine2'], ['neck', 'Neck'], ['head', 'Head'],
      ['leftEye', 'LeftEye'], ['rightEye', 'RightEye'],
      ...sided((s, L): Pair[] => {
        const side = L === 'L' ? 'Left' : 'Right';
        return [
          [`${s}Shoulder`, `${side}Shoulder`], [`${s}UpperArm`, `${side}Arm`], [`${s}LowerArm`, `${side}ForeArm`], [`${s}Hand`, `${side}Hand`],
          [`${s}UpperLeg`, `${side}UpLeg`], [`${s}LowerLeg`, `${side}Leg`], [`${s}Foot`, `${side}Foot`], [`${s}Toes`, `${side}ToeBase`],
          ...THUMB.map((b, i): [string, string] => [`${s}${b}`, `${side}HandThumb${i + 1}`]),
          ...FINGERS.flatMap(([f, m]) => SEGMENTS.map((seg, i): [string, string] => [`${s}${f}${seg}`, `${side}Hand${m}${i + 1}`])),
        ];
      }),
    ]),
  },
  {
    name: 'vrm',
    bones: table(HUMANOID_BONES.map((b): Pair => [b, b])),
  },
  {
    name: 'vroid',
    bones: table([
      ['hips', 'J_Bip_C_Hips'], ['spine', 'J_Bip_C_Spine'], ['chest', 'J_Bip_C_Chest'], ['upperChest', 'J_Bip_C_UpperChest'],
      ['neck', 'J_Bip_C_Neck'], ['head', 'J_Bip_C_Head'],
      ...sided((s, L): Pair[] => [
        [`${s}Shoulder`, `J_Bip_${L}_Shoulder`], [`${s}UpperArm`, `J_Bip_${L}_UpperArm`], [`${s}LowerArm`, `J_Bip_${L}_LowerArm`],
        [`${s}Hand`, `J_Bip_${L}_Hand`], [`${s}UpperLeg`, `J_Bip_${L}_UpperLeg`], [`${s}LowerLeg`, `J_Bip_${L}_LowerLeg`],
        [`${s}Foot`, `J_Bip_${L}_Foot`], [`${s}Toes`, `J_Bip_${L}_ToeBase`],
        ...THUMB.map((b, i): [string, string] => [`${s}${b}`, `J_Bip_${L}_Thumb${i + 1}`]),
        ...FINGERS.flatMap(([f, m]) => SEGMENTS.map((seg, i): [string, string] => [`${s}${f}${seg}`, `J_Bip_${L}_${m === 'Pinky' ? 'Little' : m}${i + 1}`])),
      ]),
    ]),
  },
  {
    name: 'unreal',
    bones: table([
      ['hips', 'pelvis'], ['spine', 'spine_01'], ['chest', 'spine_02'], ['upperChest', 'spine_03'], ['neck', 'neck_01'], ['head', 'head'],
      ...sided((s, _L, l): Pair[] => [
        [`${s}Shoulder`, `clavicle_${l}`], [`${s}UpperArm`, `upperarm_${l}`], [`${s}LowerArm`, `lowerarm_${l}`], [`${s}Hand`, `hand_${l}`],
        [`${s}UpperLeg`, `thigh_${l}`], [`${s}LowerLeg`, `calf_${l}`], [`${s}Foot`, `foot_${l}`], [`${s}Toes`, `ball_${l}`],
        ...THUMB.map((b, i): [string, string] => [`${s}${b}`, `thumb_0${i + 1}_${l}`]),
        ...FINGERS.flatMap(([f, m]) => SEGMENTS.map((seg, i): [string, string] => [`${s}${f}${seg}`, `${m.toLowerCase()}_0${i + 1}_${l}`])),
      ]),
    ]),
  },
  {
    name: 'rigify',
    bones: table([
      ['hips', 'DEF-spine'], ['spine', 'DEF-spine.001'], ['chest', 'DEF-spine.002'], ['upperChest', 'DEF-spine.003'],
      ['neck', 'DEF-spine.004'], ['head', 'DEF-spine.006'],
      ...sided((s, L): Pair[] => [
        [`${s}Shoulder`, `DEF-shoulder.${L}`], [`${s}UpperArm`, `DEF-upper_arm.${L}`], [`${s}LowerArm`, `DEF-forearm.${L}`], [`${s}Hand`, `DEF-hand.${L}`],
        [`${s}UpperLeg`, `DEF-thigh.${L}`], [`${s}LowerLeg`, `DEF-shin.${L}`], [`${s}Foot`, `DEF-foot.${L}`], [`${s}Toes`, `DEF-toe.${L}`],
        ...THUMB.map((b, i): [string, string] => [`${s}${b}`, `DEF-thumb.0${i + 1}.${L}`]),
        ...FINGERS.flatMap(([f, m]) => SEGMENTS.map((seg, i): [string, string] => [`${s}${f}${seg}`, `DEF-f_${m.toLowerCase()}.0${i + 1}.${L}`])),
      ]),
    ]),
  },
  {
    name: 'auto-rig-pro',
    bones: table([
      ['hips', 'root.x'], ['spine', 'spine_01.x'], ['chest', 'spine_02.x'], ['upperChest', 'spine_03.x'], ['neck', 'neck.x'], ['head', 'head.x'],
      ...sided((s, _L, l): Pair[] => [
        [`${s}Shoulder`, `shoulder.${l}`], [`${s}UpperArm`, `arm_stretch.${l}`], [`${s}LowerArm`, `forearm_stretch.${l}`], [`${s}Hand`, `hand.${l}`],
        [`${s}UpperLeg`, `thigh_stretch.${l}`], [`${s}LowerLeg`, `leg_stretch.${l}`], [`${s}Foot`, `foot.${l}`], [`${s}Toes`, `toes_01.${l}`],
      ]),
    ]),
  },
  {
    // Quaternius' characters (e.g. RobotExpressive): Blender names with .L/.R sides.
    name: 'quaternius',
    bones: table([
      ['hips', 'Hips'], ['spine', 'Abdomen'], ['chest', 'Torso'], ['neck', 'Neck'], ['head', 'Head'],
      ...sided((s, L): Pair[] => [
        [`${s}Shoulder`, `Shoulder.${L}`], [`${s}UpperArm`, `UpperArm.${L}`], [`${s}LowerArm`, `LowerArm.${L}`], [`${s}Hand`, `Hand.${L}`],
        [`${s}UpperLeg`, `UpperLeg.${L}`], [`${s}LowerLeg`, `LowerLeg.${L}`], [`${s}Foot`, `Foot.${L}`], [`${s}Toes`, `Toes.${L}`],
      ]),
    ]),
  },
];

/** Per convention, normalised joint name → humanoid bone. */
const LOOKUP: readonly ReadonlyMap<string, HumanoidBone>[] = JOINT_CONVENTIONS.map((c) => {
  const m = new Map<string, HumanoidBone>();
  for (const [bone, joint] of Object.entries(c.bones)) if (joint !== undefined) m.set(normalizeJointName(joint), bone as HumanoidBone);
  return m;
});

/** Fewest joints a skeleton must share with a convention's table for that convention to name its bones. */
const MIN_CONVENTION_MATCHES = 3;

/**
 * The humanoid bone of each joint name (undefined where none), read with the one convention
 * that names the most of them: conventions disagree (Rigify's `DEF-spine` is the hips, Mixamo's
 * `Spine` is the spine), so a skeleton is read in a single convention, never a mix.
 * Returns the convention's name too ('' when none matched at least three joints).
 */
export function humanoidBonesOf(names: readonly (string | undefined)[]): { convention: string; bones: (HumanoidBone | undefined)[] } {
  const normalised = names.map((n) => (n === undefined ? undefined : normalizeJointName(n)));
  let best = -1, bestCount = 0;
  LOOKUP.forEach((lookup, ci) => {
    let count = 0;
    for (const n of normalised) if (n !== undefined && lookup.has(n)) count++;
    if (count > bestCount) { best = ci; bestCount = count; }
  });
  if (best < 0 || bestCount < MIN_CONVENTION_MATCHES) return { convention: '', bones: names.map(() => undefined) };
  const lookup = LOOKUP[best];
  return { convention: JOINT_CONVENTIONS[best].name, bones: normalised.map((n) => (n === undefined ? undefined : lookup.get(n))) };
}
