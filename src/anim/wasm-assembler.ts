/**
 * A tiny WebAssembly binary writer: just enough to build the pose kernel
 * (`pose-kernel.ts`) in code, with no toolchain. One module imports one memory
 * ("env" "memory") and exports functions; function bodies are written as calls on
 * `FunctionBody`, one method per instruction, named after the text format
 * (`f64x2.mul` → `f64x2Mul`). Opcodes are from the WebAssembly 2.0 spec (§5.4,
 * SIMD prefix 0xFD).
 */

/** Value type bytes (§5.3.1). */
export const ValType = {
  I32: 0x7f,
  F64: 0x7c,
  V128: 0x7b,
} as const;
export type ValType = (typeof ValType)[keyof typeof ValType];

/** Unsigned LEB128. */
export function uleb(value: number, out: number[]): void {
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(value: number, out: number[]): void {
  value |= 0;
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/** A function's locals and instructions. Parameters are locals 0..params-1. */
export class FunctionBody {
  readonly code: number[] = [];
  private readonly localTypes: ValType[] = [];

  constructor(readonly params: readonly ValType[], readonly name: string) {}

  /** Declares a local and returns its index. */
  local(type: ValType): number {
    this.localTypes.push(type);
    return this.params.length + this.localTypes.length - 1;
  }

  /** The encoded body: local declarations (run-length grouped) then code and `end`. */
  encode(): number[] {
    const groups: [number, ValType][] = [];
    for (const t of this.localTypes) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    const body: number[] = [];
    uleb(groups.length, body);
    for (const [n, t] of groups) { uleb(n, body); body.push(t); }
    body.push(...this.code, 0x0b);
    const out: number[] = [];
    uleb(body.length, out);
    out.push(...body);
    return out;
  }

  private op(...bytes: number[]): this { this.code.push(...bytes); return this; }
  private simd(opcode: number): this { this.code.push(0xfd); uleb(opcode, this.code); return this; }
  private memarg(align: number, offset: number): this { uleb(align, this.code); uleb(offset, this.code); return this; }

  // Control. Blocks have no result (block type 0x40).
  block(): this { return this.op(0x02, 0x40); }
  loop(): this { return this.op(0x03, 0x40); }
  if(): this { return this.op(0x04, 0x40); }
  else(): this { return this.op(0x05); }
  end(): this { return this.op(0x0b); }
  br(depth: number): this { this.op(0x0c); uleb(depth, this.code); return this; }
  brIf(depth: number): this { this.op(0x0d); uleb(depth, this.code); return this; }

  // Locals.
  localGet(i: number): this { this.op(0x20); uleb(i, this.code); return this; }
  localSet(i: number): this { this.op(0x21); uleb(i, this.code); return this; }
  localTee(i: number): this { this.op(0x22); uleb(i, this.code); return this; }

  // Scalar memory (natural alignment).
  i32Load(offset = 0): this { return this.op(0x28).memarg(2, offset); }
  f32Load(offset = 0): this { return this.op(0x2a).memarg(2, offset); }
  f64Load(offset = 0): this { return this.op(0x2b).memarg(3, offset); }
  f64Store(offset = 0): this { return this.op(0x39).memarg(3, offset); }

  /** memory.copy(dst, src, bytes) (bulk memory, §5.4.6). */
  memoryCopy(): this { return this.op(0xfc, 0x0a, 0x00, 0x00); }

  // i32.
  i32Const(v: number): this { this.op(0x41); sleb(v, this.code); return this; }
  i32Eqz(): this { return this.op(0x45); }
  i32LtU(): this { return this.op(0x49); }
  i32Shl(): this { return this.op(0x74); }
  i32Add(): this { return this.op(0x6a); }
  i32Mul(): this { return this.op(0x6c); }

  // f64.
  f64Const(v: number): this {
    this.op(0x44);
    const bytes = new Uint8Array(Float64Array.of(v).buffer); // little-endian IEEE 754
    for (const b of bytes) this.code.push(b);
    return this;
  }
  f64Add(): this { return this.op(0xa0); }
  f64Sub(): this { return this.op(0xa1); }
  f64Mul(): this { return this.op(0xa2); }
  f64Eq(): this { return this.op(0x61); }
  f64Lt(): this { return this.op(0x63); }
  f64PromoteF32(): this { return this.op(0xbb); }

  // SIMD (v128, 16-byte aligned accesses).
  v128Load(offset = 0): this { return this.simd(0x00).memarg(4, offset); }
  /** Loads one f64 into both lanes. */
  v128Load64Splat(offset = 0): this { return this.simd(0x0a).memarg(3, offset); }
  v128Store(offset = 0): this { return this.simd(0x0b).memarg(4, offset); }
  /** Loads 8 bytes into the low half, zeroing the high half. */
  v128Load64Zero(offset = 0): this { return this.simd(0x5d).memarg(3, offset); }
  i8x16Shuffle(lanes: readonly number[]): this {
    if (lanes.length !== 16) throw new RangeError('i8x16.shuffle takes 16 lane indices');
    this.simd(0x0d);
    this.code.push(...lanes);
    return this;
  }
  /** Both lanes set to `value`, as a constant. */
  f64x2Const(value: number): this {
    this.simd(0x0c);
    const bytes = new Uint8Array(Float64Array.of(value, value).buffer);
    for (const b of bytes) this.code.push(b);
    return this;
  }
  f64x2Splat(): this { return this.simd(0x14); }
  f64x2ReplaceLane(lane: number): this { this.simd(0x22); this.code.push(lane); return this; }
  f64x2ExtractLane(lane: number): this { this.simd(0x21); this.code.push(lane); return this; }
  /** Two f64 lanes → f32 lanes 0 and 1 (rounded to nearest), lanes 2 and 3 zero. */
  f32x4DemoteF64x2Zero(): this { return this.simd(0x5e); }
  /** f32 lanes 0 and 1 → two f64 lanes (exact). */
  f64x2PromoteLowF32x4(): this { return this.simd(0x5f); }
  /** Loads one f32 into all four lanes. */
  v128Load32Splat(offset = 0): this { return this.simd(0x09).memarg(2, offset); }
  /** A v128 constant of 16 bytes. */
  v128Const(bytes: readonly number[]): this {
    if (bytes.length !== 16) throw new RangeError('v128.const takes 16 bytes');
    this.simd(0x0c);
    this.code.push(...bytes);
    return this;
  }
  v128And(): this { return this.simd(0x4e); }
  v128Or(): this { return this.simd(0x50); }
  f32x4Add(): this { return this.simd(0xe4); }
  f32x4Mul(): this { return this.simd(0xe6); }
  f64x2Add(): this { return this.simd(0xf0); }
  f64x2Sub(): this { return this.simd(0xf1); }
  f64x2Mul(): this { return this.simd(0xf2); }
}

function section(id: number, content: number[], out: number[]): void {
  out.push(id);
  uleb(content.length, out);
  out.push(...content);
}

function name(s: string, out: number[]): void {
  const bytes = new TextEncoder().encode(s);
  uleb(bytes.length, out);
  out.push(...bytes);
}

/**
 * A module importing `env.memory` (at least `minPages` 64 KiB pages) and exporting each
 * function under its name. Every function returns nothing.
 */
export function assembleModule(functions: readonly FunctionBody[], minPages: number): Uint8Array<ArrayBuffer> {
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const types: number[] = [];
  uleb(functions.length, types);
  for (const f of functions) {
    types.push(0x60);
    uleb(f.params.length, types);
    types.push(...f.params);
    types.push(0x00);
  }
  section(1, types, out);
  const imports: number[] = [];
  uleb(1, imports);
  name('env', imports);
  name('memory', imports);
  imports.push(0x02, 0x00);
  uleb(minPages, imports);
  section(2, imports, out);
  const funcs: number[] = [];
  uleb(functions.length, funcs);
  functions.forEach((_, i) => uleb(i, funcs));
  section(3, funcs, out);
  const exports: number[] = [];
  uleb(functions.length, exports);
  functions.forEach((f, i) => { name(f.name, exports); exports.push(0x00); uleb(i, exports); });
  section(7, exports, out);
  const code: number[] = [];
  uleb(functions.length, code);
  for (const f of functions) code.push(...f.encode());
  section(10, code, out);
  return Uint8Array.from(out);
}
