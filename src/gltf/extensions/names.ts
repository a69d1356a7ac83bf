/**
 * Names of extensions whose readers are imported only by a file that has them: the registry and
 * vrm-presence.ts need the names in every first load, the readers (vrm-readers.ts, the Draco
 * decoding of khr-draco-mesh-compression.ts, material-extensions.ts) only for such a file.
 */

/** Per-instance transforms of a node's mesh (ext-mesh-gpu-instancing.ts, imported for a file with an instanced node: instancing-presence.ts). */
export const EXT_MESH_GPU_INSTANCING = 'EXT_mesh_gpu_instancing';

/** Draco-compressed primitives (khr-draco-mesh-compression.ts, draco.ts). */
export const KHR_DRACO_MESH_COMPRESSION = 'KHR_draco_mesh_compression';

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

/**
 * Material extensions read by material-extensions.ts, a module imported only for a file whose
 * materials use one of them (material-presence.ts). Held equal to its list by a test.
 */
export const LAZY_MATERIAL_EXTENSIONS: readonly string[] = [
  'KHR_materials_pbrSpecularGlossiness',
  'VRMC_materials_mtoon',
  'KHR_materials_clearcoat',
  'KHR_materials_specular',
  'KHR_materials_sheen',
  'KHR_materials_transmission',
  'KHR_materials_volume',
  'KHR_materials_iridescence',
  'KHR_materials_anisotropy',
  'KHR_materials_dispersion',
  'KHR_materials_diffuse_transmission',
];
