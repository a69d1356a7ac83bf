import { describe, expect, it } from 'vitest';
import { instantiatePoseKernel, poseKernelBytes } from '../../src/anim/pose-kernel.ts';

describe('pose kernel', () => {
  it('is a valid module small enough for browsers to compile synchronously (< 4 KiB)', () => {
    const bytes = poseKernelBytes();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  it('instantiates on a given memory and exports localToModel and palette', () => {
    const kernel = instantiatePoseKernel(new WebAssembly.Memory({ initial: 1 }));
    expect(kernel).not.toBeNull();
    expect(typeof kernel!.localToModel).toBe('function');
    expect(typeof kernel!.palette).toBe('function');
  });

  it('computes a two-node chain by hand: child world = parent · child local, palette = world · inverse bind', () => {
    // Layout of pose-kernel.ts for n = 2 nodes, one character at byte 256; static data at 0.
    const n = 2, base = 256;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const f64 = new Float64Array(memory.buffer), i32 = new Int32Array(memory.buffer);
    i32.set([0, 128], 0); // parents: root → identity, node 1 → node 0
    i32.set([0, 0], 4); // no rest matrices
    const b = base / 8;
    f64.set([1, 2, 3, 0, 0, 1], b); // T: node 0 (1, 2, 3), node 1 (0, 0, 1)
    const s = Math.SQRT1_2;
    f64.set([0, 0, s, s, 0, 0, 0, 1], b + 3 * n); // R: node 0 90° about Z
    f64.set([2, 2, 2, 1, 1, 1], b + 7 * n); // S: node 0 scaled by 2
    const matrices = b + 10 * n;
    f64.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], matrices); // the block's identity
    const stride = 80 * n + 128 * (n + 1) + 144;
    const kernel = instantiatePoseKernel(memory)!;
    kernel.localToModel(1, base, stride, n, 0, 16, 64);
    const node1 = Array.from(f64.subarray(matrices + 32, matrices + 48)).map((x) => Math.round(x * 1e12) / 1e12 + 0);
    // Node 1 sits at parent-local (0, 0, 1): world (1, 2, 3) + 2 · (0, 0, 1); axes rotated and scaled by 2.
    expect(node1).toEqual([0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 2, 5, 1]);

    // Palette of joint = node 1 with an inverse bind that translates by (-1, -2, -5), world space.
    i32[32] = 2 * 128; // joint slots at byte 128
    new Float32Array(memory.buffer, 192, 16).set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -5, 1]); // f32 inverse bind at byte 192
    const meshOffset = 80 * n + 128 * (n + 1);
    i32[(base + meshOffset + 128) / 4] = 0;
    kernel.palette(1, base, stride, 80 * n, meshOffset, 1, 128, 192, 4096, 64);
    const palette = Array.from(new Float32Array(memory.buffer, 4096, 16)).map((x) => Math.round(x * 1e6) / 1e6 + 0);
    expect(palette).toEqual([0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1 + 4, 2 - 2, 5 - 10, 1]);
  });
});
