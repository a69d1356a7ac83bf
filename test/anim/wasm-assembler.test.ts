import { describe, expect, it } from 'vitest';
import { assembleModule, FunctionBody, sleb, uleb, ValType } from '../../src/anim/wasm-assembler.ts';

const encode = (f: (v: number, out: number[]) => void, v: number): number[] => { const out: number[] = []; f(v, out); return out; };

function run(body: FunctionBody, memory = new WebAssembly.Memory({ initial: 1 })): Float64Array {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(assembleModule([body], 1)), { env: { memory } });
  (instance.exports[body.name] as (...a: number[]) => void)(0);
  return new Float64Array(memory.buffer);
}

describe('LEB128', () => {
  it('encodes unsigned values as the spec examples', () => {
    expect(encode(uleb, 0)).toEqual([0]);
    expect(encode(uleb, 127)).toEqual([0x7f]);
    expect(encode(uleb, 128)).toEqual([0x80, 0x01]);
    expect(encode(uleb, 624485)).toEqual([0xe5, 0x8e, 0x26]);
  });
  it('encodes signed values with the sign in bit 6 of the last byte', () => {
    expect(encode(sleb, 0)).toEqual([0]);
    expect(encode(sleb, 63)).toEqual([0x3f]);
    expect(encode(sleb, 64)).toEqual([0xc0, 0x00]);
    expect(encode(sleb, -1)).toEqual([0x7f]);
    expect(encode(sleb, -64)).toEqual([0x40]);
    expect(encode(sleb, -65)).toEqual([0xbf, 0x7f]);
    expect(encode(sleb, -123456)).toEqual([0xc0, 0xbb, 0x78]);
  });
});

describe('assembleModule', () => {
  it('rejects a shuffle without 16 lanes', () => {
    expect(() => new FunctionBody([], 'f').i8x16Shuffle([0, 1])).toThrow(/16 lane indices/);
  });

  it('builds a valid module whose scalar code runs: loop, branch, if/else, f64 arithmetic', () => {
    // for (i = 0; i < 4; i++) m[i] = m[i] !== 0 ? m[i] * 1.5 - 0.25 : 7 (0 tested through i32 flags at m[8..])
    const f = new FunctionBody([ValType.I32], 'scale');
    const i = f.local(ValType.I32), p = f.local(ValType.I32);
    f.block().loop();
    f.localGet(i).i32Const(4).i32LtU().i32Eqz().brIf(1);
    f.localGet(i).i32Const(8).i32Mul().localSet(p);
    f.localGet(p).i32Load(64).if();
    f.localGet(p).localGet(p).f64Load().f64Const(1.5).f64Mul().f64Const(0.25).f64Sub().f64Store();
    f.else();
    f.localGet(p).f64Const(7).f64Store();
    f.end();
    f.localGet(i).i32Const(1).i32Add().localSet(i);
    f.br(0).end().end();
    const memory = new WebAssembly.Memory({ initial: 1 });
    new Float64Array(memory.buffer).set([2, -4, 6, 8]);
    new Int32Array(memory.buffer).set([1, 0, 1, 0, 1, 0, 0, 0], 16); // flags for i = 0, 1, 2 (byte 64 + 8i)
    expect(Array.from(run(f, memory).subarray(0, 4))).toEqual([2.75, -6.25, 8.75, 7]);
  });

  it('runs the SIMD instructions the kernel uses', () => {
    // m[0..1] = m[0..1] * splat(m[2]) + splat(m[3] lane of (m[3], m[4]) extracted);
    // f32 at byte 64..79 = (f32(m[0]), f32(m[1]), f32(m[4]), f32(m[5])) by demote + shuffle.
    const f = new FunctionBody([ValType.I32], 'simd');
    const v = f.local(ValType.V128), lo = f.local(ValType.V128), hi = f.local(ValType.V128);
    f.i32Const(0).v128Load().localSet(v);
    f.localGet(v).i32Const(0).v128Load64Splat(16).f64x2Mul();
    f.i32Const(0).v128Load(24).f64x2ExtractLane(1).f64x2Splat().f64x2Add().localSet(v);
    f.i32Const(0).localGet(v).v128Store();
    f.i32Const(0).v128Load().f32x4DemoteF64x2Zero().localSet(lo);
    f.i32Const(0).v128Load(32).f32x4DemoteF64x2Zero().localSet(hi);
    f.i32Const(0).localGet(lo).localGet(hi).i8x16Shuffle([0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]).v128Store(64);
    const memory = new WebAssembly.Memory({ initial: 1 });
    new Float64Array(memory.buffer).set([1, 2, 3, 10, 100, 0.1]);
    const m = run(f, memory);
    expect(Array.from(m.subarray(0, 2))).toEqual([103, 106]);
    expect(Array.from(new Float32Array(memory.buffer, 64, 4))).toEqual([103, 106, 100, Math.fround(0.1)]);
  });

  it('runs the f32x4 instructions of the palette: load32_splat, mul, add, v128 const, and, or', () => {
    // f32 at bytes 32..47 = ((a · splat(s) + a) & keep xyz) | (0, 0, 0, 1), a = f32 at 0..15, s = f32 at 16.
    const f = new FunctionBody([ValType.I32], 'f32x4');
    const a = f.local(ValType.V128);
    f.i32Const(0).v128Load().localSet(a);
    f.i32Const(32).localGet(a).i32Const(0).v128Load32Splat(16).f32x4Mul().localGet(a).f32x4Add();
    f.v128Const([...Array(12).fill(0xff), 0, 0, 0, 0]).v128And().v128Const([...new Uint8Array(Float32Array.of(0, 0, 0, 1).buffer)]).v128Or().v128Store();
    const memory = new WebAssembly.Memory({ initial: 1 });
    const f32 = new Float32Array(memory.buffer);
    f32.set([1.5, -2, 0.25, 9, 3]);
    run(f, memory);
    expect(Array.from(f32.subarray(8, 12))).toEqual([6, -8, 1, 1]);
    expect(() => new FunctionBody([], 'g').v128Const([1, 2])).toThrow(/16 bytes/);
  });

  it('widens f32 keys to f64 as the sampler does: load64_zero + promote, f32.load + promote, f64 compares', () => {
    // m[0..1] = promote(f32 pair at byte 64); m[2] = f32 at byte 72; m[3] = 1 if m[2] < 0, else 2 if m[2] == 0.5
    const f = new FunctionBody([ValType.I32], 'widen');
    const r = f.local(ValType.F64);
    f.i32Const(0).i32Const(0).v128Load64Zero(64).f64x2PromoteLowF32x4().v128Store();
    f.i32Const(0).i32Const(0).f32Load(72).f64PromoteF32().f64Store(16);
    f.i32Const(0).f64Load(16).f64Const(0).f64Lt().if().f64Const(1).localSet(r).end();
    f.i32Const(0).f64Load(16).f64Const(0.5).f64Eq().if().f64Const(2).localSet(r).end();
    f.i32Const(0).localGet(r).f64Store(24);
    const memory = new WebAssembly.Memory({ initial: 1 });
    new Float32Array(memory.buffer).set([0.1, -3, 0.5], 16);
    expect(Array.from(run(f, memory).subarray(0, 4))).toEqual([Math.fround(0.1), -3, 0.5, 2]);
  });

  it('copies bytes with memory.copy', () => {
    const f = new FunctionBody([ValType.I32], 'copy');
    f.i32Const(0).i32Const(16).i32Const(24).memoryCopy(); // m[0..2] = m[2..4]
    const memory = new WebAssembly.Memory({ initial: 1 });
    new Float64Array(memory.buffer).set([0, 0, 1.5, -2, 3]);
    expect(Array.from(run(f, memory).subarray(0, 5))).toEqual([1.5, -2, 3, -2, 3]);
  });

  it('encodes f64 constants exactly and groups locals by type', () => {
    const f = new FunctionBody([ValType.I32], 'constants');
    const a = f.local(ValType.F64), b = f.local(ValType.F64);
    f.local(ValType.V128);
    f.f64Const(Math.PI).localSet(a).f64Const(-0.1).localSet(b);
    f.i32Const(0).localGet(a).f64Store().i32Const(0).localGet(b).f64Store(8);
    expect(f.encode().slice(1, 6)).toEqual([2, 2, ValType.F64, 1, ValType.V128]);
    expect(Array.from(run(f).subarray(0, 2))).toEqual([Math.PI, -0.1]);
  });
});
