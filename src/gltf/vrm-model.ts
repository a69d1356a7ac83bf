/**
 * What a VRM file says beyond plain glTF, read into one runtime model for both VRM 0.x
 * (`extensions.VRM`) and VRM 1.0 (`VRMC_vrm`, `VRMC_springBone`, `VRMC_node_constraint`).
 * 0.x data is converted to 1.0's meanings at load (expression names, bind weights, collider
 * offsets, look-at front), as three-vrm does, so the pose steps in `src/anim/vrm` see only
 * one form. Node references are glTF node indices; the humanoid map lives in `Model.humanoid`.
 * Everything here is immutable and validated: broken parts were skipped with a warning
 * naming their JSON path (the readers in `extensions/vrm*.ts`).
 */

/** How an expression suppresses the blink, look-at or mouth expressions while it is on. */
export type VrmOverride = 'none' | 'block' | 'blend';

/** The material value a colour bind drives (VRMC_vrm `materialColorBinds[].type`). */
export type VrmMaterialColorType = 'color' | 'emissionColor' | 'shadeColor' | 'matcapColor' | 'rimColor' | 'outlineColor';

/** A morph target an expression drives, and its weight at expression weight 1. */
export interface VrmMorphBind {
  /** glTF node whose mesh has the morph target (every node using the mesh, for 0.x). */
  readonly node: number;
  /** Morph target index, checked against the mesh. */
  readonly index: number;
  /** The target weight at expression weight 1 (0.x's 0–100 already divided by 100). */
  readonly weight: number;
}

/** A material colour an expression drives toward `targetValue`. */
export interface VrmMaterialColorBind {
  readonly material: number;
  readonly type: VrmMaterialColorType;
  /** Linear RGBA at expression weight 1 (alpha is used by `color` only). */
  readonly targetValue: readonly [number, number, number, number];
}

/** A material UV scale and offset an expression drives. */
export interface VrmTextureTransformBind {
  readonly material: number;
  /** UV scale and offset at expression weight 1 (KHR_texture_transform's meanings). */
  readonly scale: readonly [number, number];
  readonly offset: readonly [number, number];
}

/**
 * A VRM expression (facial preset or custom): what it drives and which other expressions it overrides while
 * on.
 */
export interface VrmExpression {
  /** VRM 1.0 name: a preset (`happy`, `blink`, `aa`…) or the custom name. */
  readonly name: string;
  readonly preset: boolean;
  /** Weights above 0.5 count as 1, the rest as 0. */
  readonly isBinary: boolean;
  readonly overrideBlink: VrmOverride;
  readonly overrideLookAt: VrmOverride;
  readonly overrideMouth: VrmOverride;
  readonly morphTargetBinds: readonly VrmMorphBind[];
  readonly materialColorBinds: readonly VrmMaterialColorBind[];
  readonly textureTransformBinds: readonly VrmTextureTransformBind[];
}

/** Maps a look-at angle (degrees) to a bone angle (degrees) or an expression weight. */
export interface VrmRangeMap {
  readonly inputMaxValue: number;
  readonly outputScale: number;
}

/**
 * A VRM avatar's gaze: eyes driven as bones or as expressions, with the range maps from gaze angle to bone
 * angle or weight.
 */
export interface VrmLookAt {
  readonly type: 'bone' | 'expression';
  /** The eyes' point in the head bone's space (metres). */
  readonly offsetFromHeadBone: readonly [number, number, number];
  readonly rangeMapHorizontalInner: VrmRangeMap;
  readonly rangeMapHorizontalOuter: VrmRangeMap;
  readonly rangeMapVerticalDown: VrmRangeMap;
  readonly rangeMapVerticalUp: VrmRangeMap;
  /** The model's front in its own space: +Z for 1.0, −Z for 0.x. */
  readonly faceFront: readonly [number, number, number];
}

/** Collider shapes (VRMC_springBone and VRMC_springBone_extended_collider). */
export const ColliderShape = {
  SPHERE: 0,
  CAPSULE: 1,
  PLANE: 2,
} as const;
export type ColliderShape = (typeof ColliderShape)[keyof typeof ColliderShape];

/**
 * Every spring joint and collider of the model as flat arrays (the spring-bone job reads
 * them without objects). A joint is a head node whose rotation the simulation sets so that
 * its tail follows the Verlet-integrated tail point.
 */
export interface VrmSpringBones {
  readonly jointCount: number;
  /** Head node of each joint (glTF index). */
  readonly jointNode: Int32Array;
  /** Tail node, or -1 for a 0.x chain end (tail 7 cm along the head's own offset from its parent). */
  readonly tailNode: Int32Array;
  /** The tail's rest position in the head's local space (3 per joint). */
  readonly tailOffset: Float64Array;
  readonly hitRadius: Float64Array;
  readonly stiffness: Float64Array;
  readonly gravityPower: Float64Array;
  /** Unit-free world direction (3 per joint), as the file gives it. */
  readonly gravityDir: Float64Array;
  readonly dragForce: Float64Array;
  /** Center node of the joint's spring (its inertia is evaluated in that node's space), or -1 for world space. */
  readonly center: Int32Array;
  /** Spring (index into `springs`) of each joint. */
  readonly spring: Int32Array;
  /** Colliders of joint j are `jointColliders[jointColliderStart[j] … jointColliderStart[j + 1]]`, in the file's group order. */
  readonly jointColliderStart: Int32Array;
  readonly jointColliders: Int32Array;
  /**
   * Joints in update order: every joint after the joints above it and above the colliders it
   * tests (three-vrm's dependency order), else in file order.
   */
  readonly order: Int32Array;

  readonly colliderCount: number;
  readonly colliderNode: Int32Array;
  readonly colliderShape: Uint8Array;
  /** 1 for the extended colliders' inside sphere/capsule (keeps the tail in, not out). */
  readonly colliderInside: Uint8Array;
  readonly colliderRadius: Float64Array;
  /** Centre (sphere), start (capsule) or point (plane) in the collider node's space, 3 each. */
  readonly colliderOffset: Float64Array;
  /** Capsule end, or plane normal, in the collider node's space, 3 each (zero for a sphere). */
  readonly colliderTail: Float64Array;

  readonly springs: readonly VrmSpring[];
}

/** One spring-bone chain: a run of joints in `VrmSpringBones`' joint arrays. */
export interface VrmSpring {
  readonly name: string | undefined;
  /** Its joints are `firstJoint … firstJoint + jointCount − 1`. */
  readonly firstJoint: number;
  readonly jointCount: number;
  /** The JSON path it came from (for messages). */
  readonly path: string;
}

/** The three node constraints of VRMC_node_constraint. */
export type VrmConstraintType = 'roll' | 'aim' | 'rotation';

/**
 * A VRMC_node_constraint: a node whose rotation follows a source node's (roll, aim or whole rotation), by
 * weight.
 */
export interface VrmNodeConstraint {
  readonly type: VrmConstraintType;
  /** The node the constraint rotates (glTF index). */
  readonly node: number;
  readonly source: number;
  /** Roll: the roll axis (X, Y or Z); aim: the aim axis (±X, ±Y, ±Z); rotation: unused (0, 0, 0). */
  readonly axis: readonly [number, number, number];
  readonly weight: number;
  /** The JSON path it came from. */
  readonly path: string;
}

/**
 * A VRM 0.x material's `materialProperties` entry, checked and kept as the file wrote it
 * (Unity shader property names) for the MToon material to convert to MToon 1.0 parameters.
 */
export interface Vrm0MaterialProperties {
  readonly name: string | undefined;
  /** `VRM/MToon`, `VRM/UnlitTexture`…, or `VRM_USE_GLTFSHADER`. */
  readonly shader: string | undefined;
  readonly renderQueue: number | undefined;
  readonly floatProperties: Readonly<Record<string, number>>;
  readonly vectorProperties: Readonly<Record<string, readonly number[]>>;
  /** Texture indices, checked against `textures`. */
  readonly textureProperties: Readonly<Record<string, number>>;
  readonly keywordMap: Readonly<Record<string, boolean>>;
  readonly tagMap: Readonly<Record<string, string>>;
}

/** A VRM avatar's metadata: name, version, authors and licence. */
export interface VrmMeta {
  readonly name: string | undefined;
  readonly version: string | undefined;
  readonly authors: readonly string[];
  /** 1.0 `licenseUrl`, 0.x `otherLicenseUrl` or the licence name. */
  readonly license: string | undefined;
}

/**
 * Everything a VRM file (0.x or 1.0) adds to glTF, in VRM 1.0's meanings: metadata, expressions, look-at,
 * spring bones, node constraints and 0.x material properties.
 */
export interface Vrm {
  /** 0 for VRM 0.x (`extensions.VRM`), 1 for VRM 1.0 (`VRMC_vrm`). */
  readonly specVersion: 0 | 1;
  readonly meta: VrmMeta;
  /** Presets first in VRM 1.0's order, then custom expressions in the file's order. */
  readonly expressions: readonly VrmExpression[];
  readonly lookAt: VrmLookAt | undefined;
  /** Absent when the file has no spring bones. */
  readonly springBones: VrmSpringBones | undefined;
  /** In evaluation order (sources before the constraints that read them); cycles removed with a warning. */
  readonly constraints: readonly VrmNodeConstraint[];
  /** VRM 0.x only: per glTF material index, its `materialProperties` entry (undefined where none). */
  readonly materialProperties?: readonly (Vrm0MaterialProperties | undefined)[];
}
