/**
 * DqPalettePass (shaders/dq-palette.wgsl): skinning matrices split on the GPU as the CPU's
 * dqPaletteFromMatrices does, for rigid, scaled, sheared, mirrored and collapsed joints, from
 * an offset into the source; an entry and its negation are one transform, so each is compared
 * with the CPU's up to that sign.
 */
import { describe, expect, it } from 'vitest';
import { DQ_JOINT_FLOATS, dqPaletteFromMatrices } from '../../../src/anim/dq-palette.ts';
import { DqPalettePass } from '../../../src/gpu/draw/dq-palette-pass.ts';
import { composeTRS } from '../../../src/math/trs.ts';
import { axisAngle } from '../../support/cylinders.ts';
import { useTestDevice } from '../../support/webgpu.ts';

const gpu = useTestDevice('dq palette pass tests');

/** mulberry32-like: the same matrices on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function matricesUnderTest(): Float32Array {
  const next = random(3);
  const list: Float64Array[] = [];
  const trs = (t: number[], r: number[], s: number[]) => list.push(composeTRS(t, r, s, new Float64Array(16)));
  trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
  trs([1, 2, 3], axisAngle([1, 2, 3], 75), [1, 1, 1]);
  trs([-1, 0.5, 2], axisAngle([0, 1, -1], 140), [2, 0.5, 1.3]);
  trs([0.2, 0.4, -3], axisAngle([1, 1, 0], 200), [0.7, 0.7, 0.7]);
  trs([0, 1, 0], axisAngle([0, 0, 1], 180), [-1, 1.5, 1]); // a mirror
  trs([3, 0, 0], axisAngle([1, 0, 0], 30), [1, 0, 1]); // a collapsed axis
  for (let k = 0; k < 40; k++) {
    trs([next() * 4 - 2, next() * 4 - 2, next() * 4 - 2], axisAngle([next() - 0.5, next() - 0.5, next() - 0.5], next() * 360), [0.3 + next() * 2, 0.3 + next() * 2, 0.3 + next() * 2]);
  }
  // A general affine matrix: shear, non-uniform scale and a mirror.
  list.push(Float64Array.of(1, 0.2, -0.3, 0, 0.7, -1.4, 0.1, 0, -0.2, 0.5, 0.9, 0, 3, 2, 1, 1));
  const out = new Float32Array(list.length * 16);
  list.forEach((m, i) => out.set(m, i * 16));
  return out;
}

describe('DqPalettePass', () => {
  it('gives the CPU\'s DqJoint entries (up to the sign of the dual quaternion), from an offset into the source', async (ctx) => {
    const device = gpu.device(ctx);
    const matrices = matricesUnderTest();
    const count = matrices.length / 16, offset = 2;
    const cpu = dqPaletteFromMatrices(Float64Array.from(matrices), count, new Float64Array(matrices.length)) as Float64Array;
    const source = device.createBuffer({ label: 'test matrices', size: matrices.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(source, 0, matrices);
    const target = device.createBuffer({ label: 'test entries', size: matrices.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    const readback = device.createBuffer({ label: 'test readback', size: matrices.byteLength, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const pass = new DqPalettePass(device, 'test');
    expect(() => pass.encode(device.createCommandEncoder(), device.queue, source, target, 1, 0)).toThrow(/prepare\(\) first/);
    await pass.prepare();
    expect(() => pass.encode(device.createCommandEncoder(), device.queue, source, target, count, 1)).toThrow(/do not fit/);
    const encoder = device.createCommandEncoder({ label: 'test dq palette' });
    expect(pass.encode(encoder, device.queue, source, target, count - offset, offset)).toBe(8);
    encoder.copyBufferToBuffer(target, 0, readback, 0, readback.size);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const got = new Float32Array(readback.getMappedRange().slice(0));
    for (let j = 0; j < count - offset; j++) {
      const g = got.subarray(j * DQ_JOINT_FLOATS, (j + 1) * DQ_JOINT_FLOATS), c = cpu.subarray((j + offset) * DQ_JOINT_FLOATS, (j + offset + 1) * DQ_JOINT_FLOATS);
      const scale = Math.max(1, ...Array.from(c, Math.abs));
      const sign = g[0] * c[0] + g[1] * c[1] + g[2] * c[2] + g[3] * c[3] < 0 ? -1 : 1;
      for (let k = 0; k < DQ_JOINT_FLOATS; k++) {
        const expected = k < 8 ? sign * c[k] : c[k];
        expect(Math.abs(g[k] - expected), `matrix ${j + offset} float ${k}: ${g[k]} vs ${expected}`).toBeLessThan(2e-5 * scale);
      }
    }
    for (const b of [source, target, readback]) b.destroy();
    pass.destroy();
  });
});
