/**
 * The VRM extensions' names, apart from their readers: the registry and vrm-presence.ts need the
 * names in every first load, the readers (vrm-readers.ts) only for a file with a VRM part.
 */

/** VRM 0.x: the whole avatar under the root's `extensions.VRM` (vrm0.ts). */
export const VRM0 = 'VRM';
/** VRM 1.0's avatar: meta, humanoid, expressions, look-at (vrmc-vrm.ts). */
export const VRMC_VRM = 'VRMC_vrm';
/** VRM 1.0's spring bones (vrmc-spring-bone.ts). */
export const VRMC_SPRING_BONE = 'VRMC_springBone';
/** Capsule and plane colliders, inside a VRMC_springBone collider (vrmc-spring-bone-extended-collider.ts). */
export const VRMC_SPRING_BONE_EXTENDED_COLLIDER = 'VRMC_springBone_extended_collider';
/** A node's rotation, aim or roll constraint (vrmc-node-constraint.ts). */
export const VRMC_NODE_CONSTRAINT = 'VRMC_node_constraint';
/** A VRM animation (.vrma): humanoid clips with expression and look-at tracks (vrmc-vrm-animation.ts). */
export const VRMC_VRM_ANIMATION = 'VRMC_vrm_animation';
