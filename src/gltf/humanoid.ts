/**
 * The humanoid bones (VRM 1.0's names, e.g. `leftUpperArm`): the vocabulary of a model's
 * humanoid map (`Model.humanoid`, read from a VRM file: extensions/vrm-humanoid.ts) and of
 * retargeting's table of rigging conventions (anim/retarget/humanoid.ts).
 */

/** `f` for the left side, then the right (`l`/`lower`: the side's letter as conventions write it). */
export function sided<T>(f: (side: 'left' | 'right', l: 'L' | 'R', lower: 'l' | 'r') => T[]): T[] {
  return [...f('left', 'L', 'l'), ...f('right', 'R', 'r')];
}

/** The humanoid bones (VRM 1.0 names), the common vocabulary of every convention retargeting knows. */
export const HUMANOID_BONES = [
  'hips', 'spine', 'chest', 'upperChest', 'neck', 'head', 'jaw', 'leftEye', 'rightEye',
  ...sided<string>((s) => [
    `${s}Shoulder`, `${s}UpperArm`, `${s}LowerArm`, `${s}Hand`, `${s}UpperLeg`, `${s}LowerLeg`, `${s}Foot`, `${s}Toes`,
    `${s}ThumbMetacarpal`, `${s}ThumbProximal`, `${s}ThumbDistal`,
    ...['Index', 'Middle', 'Ring', 'Little'].flatMap((f) => [`${s}${f}Proximal`, `${s}${f}Intermediate`, `${s}${f}Distal`]),
  ]),
] as const;

/**
 * A VRM 1.0 humanoid bone name (`hips`, `spine`, `leftUpperArm`, … `rightLittleDistal`; VRM 0.x thumbs are
 * renamed to 1.0's): the vocabulary `Model.humanoid` and retargeting map joints by.
 */
export type HumanoidBone = (typeof HUMANOID_BONES)[number];

/** A skeleton's humanoid bones by glTF node index (VRM files carry one: `Model.humanoid`). */
export type HumanoidMap = Readonly<Partial<Record<HumanoidBone, number>>>;
