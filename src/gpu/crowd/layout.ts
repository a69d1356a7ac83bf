/**
 * Byte and word layouts shared by shaders/crowd-eval.wgsl and the TS that fills its buffers
 * (the GPU pose evaluator, issue #16). One definition each; test/gpu/crowd/layout.test.ts
 * reads the WGSL and checks every size, offset and constant here against it.
 */

/** Invocations per workgroup of every crowd-eval.wgsl entry point. */
export const CROWD_WORKGROUP_SIZE = 64;

/**
 * Per instance, the only per-frame upload (WGSL `InstanceState`, 32 bytes): clip and
 * crossfade partner (u16 each, NO_CLIP for none), both clip times, the blend weight of
 * the clip against the partner, and the placement as x y z and yaw about +Y.
 */
export const INSTANCE_STATE_BYTES = 32;
export const InstanceStateOffset = { CLIPS: 0, TIME: 4, PARTNER_TIME: 8, WEIGHT: 12, PLACEMENT: 16 } as const;
/** `clips` low/high 16 bits: none (rest pose / no partner). */
export const NO_CLIP = 0xffff;
/** Clips one evaluator can address (a u16 per clip in `InstanceState.clips`). */
export const MAX_GPU_CLIPS = NO_CLIP;

/**
 * WGSL `NodeRecord`: one per hierarchy slot, parent-first order (112 bytes). Its matrix rows
 * are, by `kind`, unused (T/R/S), the node's own matrix, or (a node that no clip moves,
 * nor any ancestor) its model matrix, computed at load in f64 and rounded once.
 */
export const NODE_RECORD_BYTES = 128;
export const NodeKind = { TRS: 0, MATRIX: 1, STATIC: 2 } as const;
export const NodeRecordOffset = {
  REST_TRANSLATION: 0, PARENT: 12, REST_ROTATION: 16, REST_SCALE: 32, KIND: 44,
  WEIGHT_START: 48, WEIGHT_COUNT: 52, PAD_0: 56, PAD_1: 60, MATRIX_ROW_0: 64, MATRIX_ROW_1: 80, MATRIX_ROW_2: 96, STATIC_LOW: 112,
} as const;

/**
 * WGSL `PaletteJoint`: per palette matrix of one instance (144 bytes). `meshMode` says how
 * the palette is made relative to its mesh node (palette.ts skinPalette): not at all (the
 * mesh node's model matrix is identity or singular), by `meshInverse` computed once at load
 * in f64 (the mesh node and its ancestors are never animated: the usual case), or by
 * inverting the mesh node's model matrix per instance on the GPU.
 */
export const PALETTE_JOINT_BYTES = 144;
export const PaletteJointOffset = { INVERSE_BIND: 0, MESH_INVERSE: 64, JOINT_SLOT: 128, MESH_SLOT: 132, MESH_MODE: 136, PAD_0: 140 } as const;
export const MeshMode = { WORLD: 0, STATIC: 1, ANIMATED: 2 } as const;

/** WGSL `Params`: per chunk of instances (and hierarchy level), in a uniform block of its own. */
export const PARAMS_BYTES = 32;
export const ParamsOffset = {
  FIRST: 0, COUNT: 4, LEVEL_START: 8, LEVEL_COUNT: 12, NODE_COUNT: 16, PALETTE_COUNT: 20, WEIGHT_COUNT: 24, REST_WEIGHTS_AT: 28,
} as const;
/** Params blocks sit this far apart (minUniformBufferOffsetAlignment's ceiling). */
export const PARAMS_STRIDE = 256;

/**
 * The animation pack: one array<u32> of 32-bit words (f32 stored as their bits) holding
 * every clip record from word 0, then per clip its channel table, the channel records,
 * key times, key values, slerp pairs and the rest morph weights. One storage binding,
 * since a compute stage may bind only 8.
 */
/** Words per clip record: up xyz, lock slot (i32, -1 none), origin xyz, table, cos/sin of half the locked yaw, 2 unused. */
export const CLIP_WORDS = 12;
export const ClipWord = { UP: 0, LOCK_SLOT: 3, ORIGIN: 4, TABLE: 7, TURN_COS: 8, TURN_SIN: 9 } as const;
/** Words per channel-table entry (per clip, per slot): channel word offsets for T, R, S, weights; NO_CHANNEL if none. */
export const TABLE_WORDS = 4;
/** Words per channel record: time start, key count, value start, interpolation, components, slerp start, 2 unused. */
export const CHANNEL_WORDS = 8;
export const ChannelWord = { TIME_START: 0, KEY_COUNT: 1, VALUE_START: 2, INTERPOLATION: 3, COMPONENTS: 4, SLERP_START: 5 } as const;
/** A table entry with no channel. */
export const NO_CHANNEL = 0xffffffff;

/** Binding numbers of crowd-eval.wgsl's group 0 (each entry point uses some; layouts are 'auto'). */
export const CrowdBinding = {
  PARAMS: 0, STATES: 1, ANIMATION: 2, NODES: 3, LOCALS: 4, MORPH_WEIGHTS: 5, PLACEMENTS: 6,
  GLOBALS: 7, LEVEL_SLOTS: 8, PALETTE_JOINTS: 9, PALETTES: 10, MESH_SLOTS: 11, MESH_WORLDS: 12,
} as const;

/**
 * vec4f per slot of the local-pose scratch (T, R, S) and of the model-matrix scratch (three
 * rows, the translation in .w, then its low part: a double-float translation).
 */
export const LOCAL_VEC4S = 3;
export const GLOBAL_VEC4S = 4;
