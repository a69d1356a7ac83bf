/**
 * Byte layouts of shaders/cull.wgsl (GPU bounds, culling and compaction: draw/culling-pass.ts):
 * its bindings and the structs CullParams, CullMeshNode, CullPair and CullDraw, as word
 * offsets for the typed arrays that fill them. test/gpu/draw/culling-pass.test.ts compares them
 * with the WGSL declarations.
 */

/** `@binding(N)` of cull.wgsl's group 0. */
export const CullBinding = {
  PALETTES: 0,
  SOURCE_DRAWS: 1,
  CULLED_DRAWS: 2,
  MESH_NODES: 3,
  PAIRS: 4,
  DRAW_INFO: 5,
  ARGS: 6,
  VISIBLE: 7,
  PARAMS: 8,
} as const;

/** `struct CullParams`: six vec4f planes, then five u32; 128 bytes (a uniform rounds to 16). */
export const CullParamsWord = {
  PLANES: 0,
  COUNT: 24,
  PALETTE_MATRICES: 25,
  DRAW_COUNT: 26,
  MESH_NODE_COUNT: 27,
  CULL: 28,
} as const;
export const CULL_PARAMS_BYTES = 128;

/** `struct CullMeshNode`, 48 bytes. */
export const CullMeshNodeWord = {
  RIGID_CENTER: 0,
  HAS_RIGID: 3,
  RIGID_HALF: 4,
  FIRST_PAIR: 7,
  PAIR_END: 8,
  PALETTE_OFFSET: 9,
  RECORD_DRAW: 10,
} as const;
export const CULL_MESH_NODE_BYTES = 48;

/** `struct CullPair`, 48 bytes. */
export const CullPairWord = {
  CENTER: 0,
  CAP: 3,
  HALF: 4,
  JOINT: 7,
  GROUP_END: 8,
} as const;
export const CULL_PAIR_BYTES = 48;

/** `struct CullDraw`, 8 bytes. */
export const CullDrawWord = {
  ELEMENT_COUNT: 0,
  INDEXED: 1,
} as const;
export const CULL_DRAW_BYTES = 8;

/** u32 words per draw of the indirect argument buffer (drawIndexedIndirect's five; drawIndirect reads four). */
export const INDIRECT_ARGS_WORDS = 5;
export const INDIRECT_ARGS_BYTES = INDIRECT_ARGS_WORDS * 4;
/** "No such index" in a u32 field (WGSL NO_INDEX). */
export const CULL_NO_INDEX = 0xffffffff;
export const CULL_WORKGROUP_SIZE = 64;
