/**
 * The WebAssembly SIMD kernel behind `InstanceBatch` (batch.ts): LINEAR channel sampling,
 * local→model and palettes of many characters of one model, one call each, over flat
 * arrays in one memory.
 *
 * Sampling and local→model do exactly the arithmetic of `sampleLinearChannels` and
 * `localToModel`, in the same order and in f64 (two lanes per f64x2), so its poses and node
 * matrices equal the JS ones as numbers: WebAssembly has no fused multiply-add and rounds
 * like JS. The palette, an f32 result read by an f32 GPU, is formed in f32 four lanes at a
 * time from those f64 matrices, a few f32 ulps from `skinPalette`'s f64 product rounded
 * once. What the kernel saves is the JS overhead around the arithmetic: a bounds check per
 * typed-array access, scalar instead of two- and four-lane products, and a call per character.
 *
 * Memory layout per character block (byte offsets, n = node count, all f64):
 *   +0      translation  3n
 *   +24n    rotation     4n (x y z w)
 *   +56n    scale        3n
 *   +80n    matrices     16 × (n + 1): an identity, then node slot s at +80n + 128(s+1);
 *           the identity is every root's "parent", so the loop has no root branch.
 *   then, per skinned mesh node: its inverse world matrix (16) and an i32 "relative"
 *   flag at +128 (0: the palette stays in world space);
 *   then three i32 for `sample`: clip descriptor, cursor keys, cursor fractions.
 * Palettes are f32, 16 per joint, each character's palettes back to back; inverse bind
 * matrices f32 (64 bytes each).
 */
import { assembleModule, FunctionBody, ValType } from './wasm-assembler.ts';

/** Byte size of one matrix of 16 f64. */
export const MATRIX_BYTES = 128;
/** Bytes of pose (T, R, S) per node: the node matrices of a block start at `nodeCount · POSE_BYTES_PER_NODE`. */
export const POSE_BYTES_PER_NODE = 80;
/** Bytes per skinned mesh node in a character block: its inverse world matrix, the relative flag, padding to 16. */
export const MESH_INVERSE_BYTES = 144;

const { I32, V128, F64 } = ValType;

/**
 * localToModel(count, charPtr, stride, nodeCount, parentsPtr, useMatrixPtr, restMatrixPtr):
 * for `count` character blocks from `charPtr`, `stride` bytes apart. `parentsPtr`: i32 per
 * slot, the byte offset of its parent's matrix from the block's identity (0 for roots);
 * `useMatrixPtr`: i32 per slot, 1 to use the rest matrix at `restMatrixPtr + 128·slot`.
 */
function localToModelFunction(): FunctionBody {
  const f = new FunctionBody([I32, I32, I32, I32, I32, I32, I32], 'localToModel');
  const [count, charPtr, stride, nodeCount, parentsPtr, useMatrixPtr, restMatrixPtr] = [0, 1, 2, 3, 4, 5, 6];
  const c = f.local(I32), slot = f.local(I32), base = f.local(I32), mBase = f.local(I32);
  const p = f.local(I32), out = f.local(I32);
  // Walking pointers, one step per slot: translation, rotation, scale, parent offset, flag, rest matrix.
  const tP = f.local(I32), rP = f.local(I32), sP = f.local(I32), parentP = f.local(I32), useP = f.local(I32), restP = f.local(I32);
  const [x, y, z, w, sx, sy, sz] = [0, 1, 2, 3, 4, 5, 6].map(() => f.local(F64));
  const [xx, xy, xz, yy, yz, zz, wx, wy, wz] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(() => f.local(F64));
  // l[col][row] of the local 3×4 matrix: columns 0-2 the scaled rotation, 3 the translation.
  const l = [0, 1, 2, 3].map(() => [0, 1, 2].map(() => f.local(F64)));
  const parent = [0, 1, 2, 3].map(() => [0, 1].map(() => f.local(V128))); // columns as (x, y), (z, w)

  f.localGet(charPtr).localSet(base);
  f.block().loop(); // characters
  f.localGet(c).localGet(count).i32LtU().i32Eqz().brIf(1);
  f.localGet(base).localGet(nodeCount).i32Const(POSE_BYTES_PER_NODE).i32Mul().i32Add().localTee(mBase).localSet(out);
  f.localGet(base).localSet(tP);
  f.localGet(base).localGet(nodeCount).i32Const(24).i32Mul().i32Add().localSet(rP);
  f.localGet(base).localGet(nodeCount).i32Const(56).i32Mul().i32Add().localSet(sP);
  f.localGet(parentsPtr).localSet(parentP);
  f.localGet(useMatrixPtr).localSet(useP);
  f.localGet(restMatrixPtr).localSet(restP);
  f.i32Const(0).localSet(slot);
  f.block().loop(); // slots, parents first
  f.localGet(slot).localGet(nodeCount).i32LtU().i32Eqz().brIf(1);

  f.localGet(useP).i32Load().if();
  {
    for (let col = 0; col < 4; col++) {
      for (let row = 0; row < 3; row++) f.localGet(restP).f64Load((col * 4 + row) * 8).localSet(l[col][row]);
    }
  }
  f.else();
  {
    [x, y, z, w].forEach((v, i) => f.localGet(rP).f64Load(i * 8).localSet(v));
    [sx, sy, sz].forEach((v, i) => f.localGet(sP).f64Load(i * 8).localSet(v));
    [0, 1, 2].forEach((i) => f.localGet(tP).f64Load(i * 8).localSet(l[3][i]));
    // As localToModel: x2 = x + x, xx = x · x2, ..., wz = w · z2.
    const times2 = (a: number, b: number, dst: number): void => {
      f.localGet(a).localGet(b).localGet(b).f64Add().f64Mul().localSet(dst);
    };
    times2(x, x, xx); times2(x, y, xy); times2(x, z, xz); times2(y, y, yy); times2(y, z, yz); times2(z, z, zz);
    times2(w, x, wx); times2(w, y, wy); times2(w, z, wz);
    const oneMinus = (a: number, b: number, s: number, dst: number): void => { // (1 - (a + b)) · s
      f.f64Const(1).localGet(a).localGet(b).f64Add().f64Sub().localGet(s).f64Mul().localSet(dst);
    };
    const plus = (a: number, b: number, s: number, dst: number): void => { // (a + b) · s
      f.localGet(a).localGet(b).f64Add().localGet(s).f64Mul().localSet(dst);
    };
    const minus = (a: number, b: number, s: number, dst: number): void => { // (a - b) · s
      f.localGet(a).localGet(b).f64Sub().localGet(s).f64Mul().localSet(dst);
    };
    oneMinus(yy, zz, sx, l[0][0]); plus(xy, wz, sx, l[0][1]); minus(xz, wy, sx, l[0][2]);
    minus(xy, wz, sy, l[1][0]); oneMinus(xx, zz, sy, l[1][1]); plus(yz, wx, sy, l[1][2]);
    plus(xz, wy, sz, l[2][0]); minus(yz, wx, sz, l[2][1]); oneMinus(xx, yy, sz, l[2][2]);
  }
  f.end();

  f.localGet(mBase).localGet(parentP).i32Load().i32Add().localSet(p);
  for (let col = 0; col < 4; col++) {
    for (let h = 0; h < 2; h++) f.localGet(p).v128Load(col * 32 + h * 16).localSet(parent[col][h]);
  }
  // out column k = P0 · l[k][0] + P1 · l[k][1] + P2 · l[k][2] (+ P3 for the translation).
  for (let col = 0; col < 4; col++) {
    for (let h = 0; h < 2; h++) {
      f.localGet(out);
      for (let i = 0; i < 3; i++) {
        f.localGet(parent[i][h]).localGet(l[col][i]).f64x2Splat().f64x2Mul();
        if (i > 0) f.f64x2Add();
      }
      if (col === 3) f.localGet(parent[3][h]).f64x2Add();
      // The bottom row as localToModel writes it, 0 0 0 1: the products give −0 where a
      // negative entry meets a parent's 0, and −0 is a different number to Object.is.
      if (h === 1) f.f64Const(col === 3 ? 1 : 0).f64x2ReplaceLane(1);
      f.v128Store(MATRIX_BYTES + col * 32 + h * 16);
    }
  }

  for (const [ptr, step] of [[tP, 24], [rP, 32], [sP, 24], [parentP, 4], [useP, 4], [restP, MATRIX_BYTES], [out, MATRIX_BYTES], [slot, 1]]) {
    f.localGet(ptr).i32Const(step).i32Add().localSet(ptr);
  }
  f.br(0).end().end();

  f.localGet(base).localGet(stride).i32Add().localSet(base);
  f.localGet(c).i32Const(1).i32Add().localSet(c);
  f.br(0).end().end();
  return f;
}

/**
 * palette(count, charPtr, stride, matricesOffset, meshOffset, jointCount, jointSlotsPtr,
 *         inverseBindPtr, palettePtr, paletteStride):
 * one skinned mesh node's palette for `count` characters: (meshInverse ·) jointWorld ·
 * inverseBind in f32, four lanes per column. `matricesOffset`/`meshOffset`: where the
 * block's identity and this mesh's inverse world matrix (f64) are; `jointSlotsPtr`: i32 per
 * joint, its matrix's byte offset from the identity; `inverseBindPtr`: f32 inverse bind
 * matrices, 64 bytes each; `palettePtr`: the first character's first matrix,
 * `paletteStride` bytes per character. Affine inverse bind matrices only.
 *
 * The node matrices stay f64 (exactly the JS jobs'); only this last product is f32, like
 * the palette itself and the GPU that reads it: twice the lanes of f64x2, at a few f32
 * ulps from `skinPalette`'s f64 product rounded once.
 */
function paletteFunction(): FunctionBody {
  const f = new FunctionBody([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32], 'palette');
  const [count, charPtr, stride, matricesOffset, meshOffset, jointCount, jointSlotsPtr, inverseBindPtr, palettePtr, paletteStride] =
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const c = f.local(I32), j = f.local(I32), base = f.local(I32), mBase = f.local(I32);
  const g = f.local(I32), b = f.local(I32), out = f.local(I32), relative = f.local(I32), mesh = f.local(I32);
  const joint = [0, 1, 2, 3].map(() => f.local(V128)), meshInverse = [0, 1, 2, 3].map(() => f.local(V128)), a = f.local(V128);
  /** The f64 column at `ptr + offset` (x y, z w) as one f32x4. */
  const f32Column = (ptr: number, offset: number): void => {
    f.localGet(ptr).v128Load(offset).f32x4DemoteF64x2Zero().localGet(ptr).v128Load(offset + 16).f32x4DemoteF64x2Zero().i8x16Shuffle(LOW_HALVES);
  };

  f.localGet(charPtr).localSet(base);
  f.localGet(palettePtr).localSet(out);
  f.block().loop(); // characters
  f.localGet(c).localGet(count).i32LtU().i32Eqz().brIf(1);
  f.localGet(base).localGet(matricesOffset).i32Add().localSet(mBase);
  f.localGet(base).localGet(meshOffset).i32Add().localSet(mesh);
  f.localGet(mesh).i32Load(MATRIX_BYTES).localTee(relative).if();
  for (let col = 0; col < 4; col++) { f32Column(mesh, col * 32); f.localSet(meshInverse[col]); }
  f.end();
  f.localGet(inverseBindPtr).localSet(b);
  f.i32Const(0).localSet(j);
  f.block().loop(); // joints
  f.localGet(j).localGet(jointCount).i32LtU().i32Eqz().brIf(1);

  f.localGet(mBase).localGet(jointSlotsPtr).localGet(j).i32Const(4).i32Mul().i32Add().i32Load().i32Add().localSet(g);
  for (let col = 0; col < 4; col++) { f32Column(g, col * 32); f.localSet(joint[col]); }
  for (let col = 0; col < 4; col++) {
    // A column k = G0 · B[k][0] + G1 · B[k][1] + G2 · B[k][2] (+ G3 for the translation).
    for (let i = 0; i < 3; i++) {
      f.localGet(joint[i]).localGet(b).v128Load32Splat((col * 4 + i) * 4).f32x4Mul();
      if (i > 0) f.f32x4Add();
    }
    if (col === 3) f.localGet(joint[3]).f32x4Add();
    f.localSet(a);
    f.localGet(relative).if();
    // A column k ← M0 · A[k][0] + M1 · A[k][1] + M2 · A[k][2] (+ M3).
    for (let i = 0; i < 3; i++) {
      f.localGet(meshInverse[i]).localGet(a).localGet(a).i8x16Shuffle(BROADCAST_F32[i]).f32x4Mul();
      if (i > 0) f.f32x4Add();
    }
    if (col === 3) f.localGet(meshInverse[3]).f32x4Add();
    f.localSet(a);
    f.end();
    // The bottom row exactly 0 0 0 1, as skinPalette writes it (products of 0 may give −0).
    f.localGet(out).localGet(a).v128Const(KEEP_XYZ).v128And();
    if (col === 3) f.v128Const(W_ONE).v128Or();
    f.v128Store(col * 16);
  }
  f.localGet(out).i32Const(64).i32Add().localSet(out);
  f.localGet(b).i32Const(64).i32Add().localSet(b);
  f.localGet(j).i32Const(1).i32Add().localSet(j);
  f.br(0).end().end();

  f.localGet(palettePtr).localGet(paletteStride).localGet(c).i32Const(1).i32Add().i32Mul().i32Add().localSet(out);
  f.localGet(base).localGet(stride).i32Add().localSet(base);
  f.localGet(c).i32Const(1).i32Add().localSet(c);
  f.br(0).end().end();
  return f;
}

/** i8x16.shuffle lanes: the low two f32 of each operand, one f32x4 of two demoted f64x2. */
const LOW_HALVES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
/** i8x16.shuffle lanes broadcasting f32 lane i. */
const BROADCAST_F32 = [0, 1, 2].map((i) => Array.from({ length: 16 }, (_, k) => 4 * i + (k % 4)));
/** Bytes of an f32x4 keeping x, y, z and zeroing w; and an f32x4 (0, 0, 0, 1). */
const KEEP_XYZ = [...Array(12).fill(0xff), 0, 0, 0, 0];
const W_ONE = [...new Uint8Array(Float32Array.of(0, 0, 0, 1).buffer)];

/** i8x16.shuffle lanes broadcasting f64 lane 0, and lane 1. */
const LANE_0 = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7];
const LANE_1 = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

/** Bytes of a clip descriptor: vector channel count and records, rotation channel count and records (i32 each). */
export const CLIP_DESCRIPTOR_BYTES = 16;
/** Bytes of one channel record: out offset in a block, timeline, first key's values, (rotations) first key's slerp pair. */
export const CHANNEL_RECORD_BYTES = 16;

/**
 * sample(count, charPtr, stride, clipFieldOffset, restPosePtr, restPoseBytes): for every
 * character, copies the rest pose over its pose (T, R, S: the first `restPoseBytes` of
 * the block), then `sampleLinearChannels` from the keys and fractions JS found
 * (`findCursorKeys`). At
 * `clipFieldOffset` in each block, three i32: the clip descriptor's address (0: sample
 * nothing), the cursor's keys (i32 per timeline) and fractions (f64 per timeline).
 * A descriptor holds the vector channel count, their records' address, the rotation
 * count and theirs. A record: the byte offset of the target in the block, the
 * timeline, the address of the channel's first key values (f32: 3 per key for vectors,
 * 4 for rotations) and, for rotations, of its first (angle, 1/sin angle) f64 pair.
 */
function sampleFunction(): FunctionBody {
  const f = new FunctionBody([I32, I32, I32, I32, I32, I32], 'sample');
  const [count, charPtr, stride, clipFieldOffset, restPosePtr, restPoseBytes] = [0, 1, 2, 3, 4, 5];
  const c = f.local(I32), base = f.local(I32), desc = f.local(I32), keys = f.local(I32), fractions = f.local(I32);
  const i = f.local(I32), n = f.local(I32), rec = f.local(I32), timeline = f.local(I32), a = f.local(I32), o = f.local(I32), pair = f.local(I32);
  const u = f.local(F64), invSin = f.local(F64);
  const va = f.local(V128), vb = f.local(V128), weights = f.local(V128), angles = f.local(V128), squares = f.local(V128);

  /** Loads two f32 at `ptr + offset` as an f64x2. */
  const pairAt = (ptr: number, offset: number): void => { f.localGet(ptr).v128Load64Zero(offset).f64x2PromoteLowF32x4(); };
  const f32At = (ptr: number, offset: number): void => { f.localGet(ptr).f32Load(offset).f64PromoteF32(); };
  /** sample.ts's sinHalfPi of both lanes of `angles`, same Horner order; leaves them on the stack. */
  const sinHalfPi2 = (): void => {
    f.localGet(angles).localGet(angles).f64x2Mul().localSet(squares);
    f.f64x2Const(1 / 6227020800);
    for (const k of [-1 / 39916800, 1 / 362880, -1 / 5040, 1 / 120, -1 / 6, 1]) f.localGet(squares).f64x2Mul().f64x2Const(k).f64x2Add();
    f.localGet(angles).f64x2Mul();
  };
  /** Per record: timeline, its fraction into `u`, its key's value address into `a`, the target into `o`. */
  const openRecord = (valueBytes: number): void => {
    f.localGet(rec).i32Load(4).localSet(timeline);
    f.localGet(fractions).localGet(timeline).i32Const(3).i32Shl().i32Add().f64Load().localSet(u);
    f.localGet(keys).localGet(timeline).i32Const(2).i32Shl().i32Add().i32Load().localSet(pair); // the key, for now
    f.localGet(rec).i32Load(8).localGet(pair).i32Const(valueBytes).i32Mul().i32Add().localSet(a);
    f.localGet(rec).i32Load(12).localGet(pair).i32Const(16).i32Mul().i32Add().localSet(pair);
    f.localGet(base).localGet(rec).i32Load().i32Add().localSet(o);
  };
  const forEachRecord = (countOffset: number, body: () => void): void => {
    f.localGet(desc).i32Load(countOffset).localSet(n);
    f.localGet(desc).i32Load(countOffset + 4).localSet(rec);
    f.i32Const(0).localSet(i);
    f.block().loop();
    f.localGet(i).localGet(n).i32LtU().i32Eqz().brIf(1);
    body();
    f.localGet(rec).i32Const(CHANNEL_RECORD_BYTES).i32Add().localSet(rec);
    f.localGet(i).i32Const(1).i32Add().localSet(i);
    f.br(0).end().end();
  };

  f.localGet(charPtr).localSet(base);
  f.block().loop(); // characters
  f.localGet(c).localGet(count).i32LtU().i32Eqz().brIf(1);
  f.localGet(base).localGet(restPosePtr).localGet(restPoseBytes).memoryCopy();
  f.localGet(base).localGet(clipFieldOffset).i32Add().localTee(desc).i32Load(4).localSet(keys);
  f.localGet(desc).i32Load(8).localSet(fractions);
  f.localGet(desc).i32Load().localTee(desc).if();

  // Translation and scale: a + (b - a) · u, (x, y) in two lanes and z alone.
  forEachRecord(0, () => {
    openRecord(12);
    f.localGet(u).f64Const(0).f64Lt().if();
    f.localGet(o); pairAt(a, 0); f.v128Store();
    f.localGet(o); f32At(a, 8); f.f64Store(16);
    f.else();
    pairAt(a, 0); f.localSet(va);
    f.localGet(o).localGet(va); pairAt(a, 12); f.localGet(va).f64x2Sub().localGet(u).f64x2Splat().f64x2Mul().f64x2Add().v128Store();
    f.localGet(o); f32At(a, 8); f32At(a, 20); f32At(a, 8); f.f64Sub().localGet(u).f64Mul().f64Add().f64Store(16);
    f.end();
  });

  // Rotations: ka · a + kb · b with sample.ts's weights (keys already in one hemisphere).
  forEachRecord(8, () => {
    openRecord(16);
    f.localGet(u).f64Const(0).f64Lt().if();
    f.localGet(o); pairAt(a, 0); f.v128Store();
    f.localGet(o); pairAt(a, 8); f.v128Store(16);
    f.else();
    // (ka, kb) in two lanes: (1 - u, u), or sin((1 - u)θ)/sin θ and sin(uθ)/sin θ.
    f.f64Const(1).localGet(u).f64Sub().f64x2Splat().localGet(u).f64x2ReplaceLane(1).localSet(weights);
    f.localGet(pair).f64Load(8).localTee(invSin).f64Const(0).f64Eq().i32Eqz().if();
    f.localGet(weights).localGet(pair).v128Load64Splat().f64x2Mul().localSet(angles);
    sinHalfPi2();
    f.localGet(invSin).f64x2Splat().f64x2Mul().localSet(weights);
    f.end();
    f.localGet(weights).localGet(weights).i8x16Shuffle(LANE_0).localSet(va);
    f.localGet(weights).localGet(weights).i8x16Shuffle(LANE_1).localSet(vb);
    for (const half of [0, 8]) {
      f.localGet(o).localGet(va); pairAt(a, half); f.f64x2Mul();
      f.localGet(vb); pairAt(a, 16 + half); f.f64x2Mul().f64x2Add().v128Store(half * 2);
    }
    f.end();
  });

  f.end();
  f.localGet(base).localGet(stride).i32Add().localSet(base);
  f.localGet(c).i32Const(1).i32Add().localSet(c);
  f.br(0).end().end();
  return f;
}

/** The kernel's exports, called with byte addresses into the memory it was given. */
export interface PoseKernel {
  sample(count: number, charPtr: number, stride: number, clipFieldOffset: number, restPosePtr: number, restPoseBytes: number): void;
  localToModel(count: number, charPtr: number, stride: number, nodeCount: number, parentsPtr: number, useMatrixPtr: number, restMatrixPtr: number): void;
  palette(
    count: number, charPtr: number, stride: number, matricesOffset: number, meshOffset: number, jointCount: number,
    jointSlotsPtr: number, inverseBindPtr: number, palettePtr: number, paletteStride: number,
  ): void;
}

let compiled: WebAssembly.Module | null | undefined;

/** The kernel's binary (exported for tests: its size must stay under browsers' 4 KiB sync-compile limit). */
export function poseKernelBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule([sampleFunction(), localToModelFunction(), paletteFunction()], 1);
}

/**
 * The kernel bound to `memory`, or null where WebAssembly or its SIMD proposal is missing
 * (callers then use the JS jobs). Compiled once, synchronously: small enough for browsers
 * to allow that on the main thread.
 */
export function instantiatePoseKernel(memory: WebAssembly.Memory): PoseKernel | null {
  if (compiled === undefined) {
    try {
      compiled = typeof WebAssembly === 'object' ? new WebAssembly.Module(poseKernelBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { memory } }).exports as unknown as PoseKernel;
}
