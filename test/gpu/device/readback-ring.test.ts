/**
 * The MAP_READ ring GpuTimer and CountReadback read through (src/gpu/device/readback-ring.ts),
 * on a stand-in device whose maps the test resolves or fails: a slot goes take → copied →
 * mapping → free, a frame with every slot in flight is skipped, a frame that never submitted
 * gives its slot back, a failed map frees its slot, and nothing is read after destroy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadbackRing } from '../../../src/gpu/device/readback-ring.ts';

const globals = globalThis as Record<string, unknown>;
const saved = { usage: globals.GPUBufferUsage, mapMode: globals.GPUMapMode };
beforeAll(() => {
  globals.GPUBufferUsage ??= { MAP_READ: 1, COPY_DST: 8 };
  globals.GPUMapMode ??= { READ: 1 };
});
afterAll(() => {
  globals.GPUBufferUsage = saved.usage;
  globals.GPUMapMode = saved.mapMode;
});

/** A device whose buffers map when the test says: each map's resolve/reject, and the words a buffer holds. */
function standIn() {
  const maps: { label: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const words = new Map<string, Uint32Array>();
  const labels: string[] = [];
  const device = {
    createBuffer: (d: GPUBufferDescriptor) => {
      const label = d.label!;
      labels.push(label);
      words.set(label, new Uint32Array(d.size / 4));
      return {
        label,
        mapAsync: () => new Promise<void>((resolve, reject) => maps.push({ label, resolve, reject })),
        getMappedRange: () => words.get(label)!.slice().buffer,
        unmap() {},
        destroy() {},
      };
    },
  } as unknown as GPUDevice;
  return { device, maps, words, labels };
}

const settle = () => new Promise(setImmediate);

describe('ReadbackRing', () => {
  it('reads a slot back after submit and frees it; with every slot in flight a frame is skipped', async () => {
    const { device, maps, words, labels } = standIn();
    const read: number[][] = [];
    const ring = new ReadbackRing(device, 'count', 2, 8, (w) => read.push(Array.from(w)));
    expect(labels).toEqual(['count readback 0', 'count readback 1']);
    const frame = (value: number): number => {
      const s = ring.take();
      if (s >= 0) {
        words.get(ring.buffer(s).label)!.set([value, value + 1]);
        ring.copied();
      }
      ring.afterSubmit();
      return s;
    };
    expect([frame(10), frame(20), frame(30)]).toEqual([0, 1, -1]);
    expect(maps.map((m) => m.label)).toEqual(['count readback 0', 'count readback 1']);
    maps.shift()!.resolve();
    await settle();
    expect(read).toEqual([[10, 11]]);
    expect(frame(40)).toBe(0);
    maps.shift()!.resolve();
    maps.shift()!.resolve();
    await settle();
    expect(read).toEqual([[10, 11], [20, 21], [40, 41]]);
  });

  it('takes back the slot of a frame that never submitted, frees a slot taken but not copied, and one whose map failed', async () => {
    const { device, maps } = standIn();
    const read: number[] = [];
    const ring = new ReadbackRing(device, 'timer', 1, 4, (w) => read.push(w[0]));
    expect(ring.take()).toBe(0);
    ring.copied();
    // The frame threw before submit: the next frame gets the slot.
    expect(ring.take()).toBe(0);
    // Taken, never copied (a pass begun but not ended): free again, not mapped.
    ring.afterSubmit();
    expect(maps).toEqual([]);
    expect(ring.take()).toBe(0);
    ring.copied();
    ring.afterSubmit();
    expect(ring.take()).toBe(-1);
    maps.shift()!.reject(new Error('device lost'));
    await settle();
    expect(read).toEqual([]);
    expect(ring.take()).toBe(0);
  });

  it('reads nothing and takes nothing once destroyed', async () => {
    const { device, maps } = standIn();
    const read: number[] = [];
    const ring = new ReadbackRing(device, 'count', 1, 4, (w) => read.push(w[0]));
    ring.take();
    ring.copied();
    ring.afterSubmit();
    ring.destroy();
    maps.shift()!.resolve();
    await settle();
    expect(read).toEqual([]);
    expect(ring.take()).toBe(-1);
  });
});
