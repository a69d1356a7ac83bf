/**
 * Byte layout of `struct DrawRecord` (shaders/mesh.wgsl): one per draw (mesh node ×
 * primitive), all in one storage array at group 1 binding 1. A draw finds its record
 * through `@builtin(instance_index)`, which is the `firstInstance` it was issued with,
 * so every draw shares one bind group and the records go up in one `writeBuffer`.
 * The morph weights ride in the record (48 bytes more per record than without them)
 * so that they need no buffer or writeBuffer of their own: a frame stays at three.
 * test/gpu/layouts/bindings.test.ts checks the offsets against the WGSL declaration.
 */
export const DrawRecordOffset = {
  /** mat4x4f: the mesh node's world matrix (skinned vertices are in mesh-node space too). */
  MODEL: 0,
  /** mat3x3f: cofactor of the model matrix's 3×3 (inverse-transpose up to scale); columns padded to 16 bytes. */
  NORMAL_MATRIX: 64,
  /** u32: first palette matrix of this draw's skin (0 for rigid draws, which do not read it). */
  PALETTE_OFFSET: 112,
  /** u32: `DrawFlag` bits. */
  FLAGS: 116,
  /** u32: first float of the primitive's block in the morph delta array (src/gpu/model/morph-targets.ts). */
  MORPH_BASE: 120,
  /** u32: morph targets of the primitive (its block holds this many per vertex). */
  MORPH_TARGET_COUNT: 124,
  /**
   * vec4f × 2: weights of the active morph targets (at most MAX_ACTIVE_MORPH_TARGETS),
   * 0 after the last; read only while a DrawFlag.MORPH_* bit is set.
   */
  MORPH_WEIGHTS_0: 128,
  MORPH_WEIGHTS_1: 144,
  /** vec4u: the active targets' indices, two 16-bit halves per word, low half first. */
  MORPH_TARGETS: 160,
  /** u32: first vertex of this draw and instance in the compute path's skinned vertices (src/gpu/draw/preskin.ts); 0 for rigid draws. */
  SKINNED_BASE: 176,
  /** u32: first vertex of the primitive in the model's centres of rotation (src/gpu/model/center-buffer.ts); 0 for rigid draws. */
  CENTER_BASE: 180,
} as const;

export const DRAW_RECORD_SIZE = 192;
/** Records are written through one Float32Array/Uint32Array pair: strides and offsets in 4-byte words. */
export const DRAW_RECORD_WORDS = DRAW_RECORD_SIZE / 4;
export const DrawRecordWord = {
  MODEL: DrawRecordOffset.MODEL / 4,
  NORMAL_MATRIX: DrawRecordOffset.NORMAL_MATRIX / 4,
  PALETTE_OFFSET: DrawRecordOffset.PALETTE_OFFSET / 4,
  FLAGS: DrawRecordOffset.FLAGS / 4,
  MORPH_BASE: DrawRecordOffset.MORPH_BASE / 4,
  MORPH_TARGET_COUNT: DrawRecordOffset.MORPH_TARGET_COUNT / 4,
  MORPH_WEIGHTS_0: DrawRecordOffset.MORPH_WEIGHTS_0 / 4,
  MORPH_WEIGHTS_1: DrawRecordOffset.MORPH_WEIGHTS_1 / 4,
  MORPH_TARGETS: DrawRecordOffset.MORPH_TARGETS / 4,
  SKINNED_BASE: DrawRecordOffset.SKINNED_BASE / 4,
  CENTER_BASE: DrawRecordOffset.CENTER_BASE / 4,
} as const;
/** Floats between mat3x3f columns (a vec3f column is padded to a vec4f). */
export const MAT3_COLUMN_WORDS = 4;

/** The CPU copy of every draw record, sized once per model. */
export class DrawRecordArray {
  readonly buffer: ArrayBuffer;
  readonly f32: Float32Array;
  readonly u32: Uint32Array;
  constructor(readonly count: number) {
    this.buffer = new ArrayBuffer(Math.max(1, count) * DRAW_RECORD_SIZE);
    this.f32 = new Float32Array(this.buffer);
    this.u32 = new Uint32Array(this.buffer);
  }
}
