/**
 * Byte layouts of shaders/records.wgsl (draw records written on the GPU: draw/records-pass.ts): its
 * bindings and the structs RecordParams and RecordDraw, as word offsets for the typed arrays
 * that fill them. test/gpu/draw/records-pass.test.ts compares them with the WGSL declarations.
 */

/** `@binding(N)` of records.wgsl's group 0. */
export const RecordsBinding = {
  PLACEMENTS: 0,
  PALETTES: 1,
  RECORDS: 2,
  RECORD_DRAWS: 3,
  PARAMS: 4,
  MORPH_WEIGHTS: 5,
  MESH_WORLDS: 6,
} as const;

/** `struct RecordParams`: eight u32, the eye and one more u32; 48 bytes as a uniform. */
export const RecordParamsWord = {
  COUNT: 0,
  PALETTE_MATRICES: 1,
  DRAW_COUNT: 2,
  PRESKIN_VERTICES: 3,
  EXACT_NORMALS: 4,
  PLACEMENT_FORM: 5,
  FIRST: 6,
  WEIGHT_STRIDE: 7,
  /** vec3f, float32 words. */
  EYE: 8,
  MESH_STRIDE: 11,
} as const;
export const RECORD_PARAMS_BYTES = 48;

/** `RecordParams.placementForm`: how the placements binding holds each instance's (records.wgsl constants). */
export const PlacementForm = {
  /** Three rows of the camera-relative affine matrix (PLACEMENT_ROW_FLOATS), uploaded. */
  ROWS: 0,
  /** Quaternion, camera-relative translation, uniform scale (PLACEMENT_COMPACT_FLOATS), uploaded. */
  COMPACT: 1,
  /** A GPU pose evaluator's model → world mat4x4f per instance (world space), nothing uploaded. */
  MATRICES: 2,
} as const;

/** `struct RecordDraw`, 112 bytes. */
export const RecordDrawWord = {
  NODE_WORLD: 0,
  PALETTE_OFFSET: 16,
  JOINT_COUNT: 17,
  STATIC_FLAGS: 18,
  SKINNED: 19,
  SKINNED_BASE: 20,
  MORPH_FLAGS: 21,
  MORPH_BASE: 22,
  MORPH_TARGET_COUNT: 23,
  WEIGHT_OFFSET: 24,
  WEIGHT_COUNT: 25,
  WORLD_INDEX: 26,
  CENTER_BASE: 27,
} as const;
export const RECORD_DRAW_BYTES = 112;

/** Floats per instance of the placement upload: the three rows of its camera-relative affine matrix. */
export const PLACEMENT_ROW_FLOATS = 12;
/** Floats per instance of the compact placement upload (similarity transforms): quaternion x y z w, translation x y z, scale. */
export const PLACEMENT_COMPACT_FLOATS = 8;
