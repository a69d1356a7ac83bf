/**
 * GPU time of a render pass, from timestamp queries, read back without stalling.
 *
 * Needs a device created with the 'timestamp-query' feature (requestWebGpuDevice and
 * createNodeDevice ask for it when the adapter has it); without it `supported` is false,
 * `beginPass` returns undefined and `lastMs` stays undefined.
 *
 * A small ring of slots, each a pair of queries in one query set, a 256-byte region of
 * one resolve buffer and its own MAP_READ buffer of a ReadbackRing, all created up front. A frame takes a
 * free slot (`beginPass` → the pass's `timestampWrites`), resolves and copies it after the
 * pass (`endPass`), and starts mapping it after submit (`afterSubmit`); the slot is free
 * again when the map resolves a frame or two later. When every slot is still in flight
 * the frame goes unmeasured rather than waiting. The only objects made per measured frame
 * are those WebGPU's API returns itself (mapAsync's promise, getMappedRange's
 * ArrayBuffer, and a view onto it); the callbacks are bound once per slot.
 */

import { ReadbackRing } from './readback-ring.ts';

/** Queries per slot: beginning and end of the pass. */
const QUERIES_PER_SLOT = 2;
/** resolveQuerySet's destinationOffset must be a multiple of 256. */
const RESOLVE_ALIGNMENT = 256;
const TIMESTAMP_BYTES = 8;
const TWO_POW_32 = 4294967296;

export interface GpuTimerOptions {
  readonly label?: string;
  /** Frames that may be in flight at once (default 4). */
  readonly slots?: number;
}

export class GpuTimer {
  /** Whether the device has 'timestamp-query'. */
  readonly supported: boolean;
  /** GPU milliseconds of the most recently read-back pass; undefined until one was, or when unsupported. */
  lastMs: number | undefined = undefined;
  /** Passes measured and read back so far. */
  resolvedCount = 0;

  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolveBuffer: GPUBuffer | undefined;
  private readonly ring: ReadbackRing | undefined;
  private readonly writes: GPURenderPassTimestampWrites[] = [];
  /** Slot of the pass being encoded, or -1. */
  private current = -1;

  constructor(device: GPUDevice, options: GpuTimerOptions = {}) {
    const label = options.label ?? 'gpu timer';
    const slots = Math.max(1, options.slots ?? 4);
    this.supported = device.features.has('timestamp-query');
    if (!this.supported) return;
    this.querySet = device.createQuerySet({ label: `${label} timestamps`, type: 'timestamp', count: slots * QUERIES_PER_SLOT });
    this.resolveBuffer = device.createBuffer({
      label: `${label} resolved timestamps`,
      size: slots * RESOLVE_ALIGNMENT,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    this.ring = new ReadbackRing(device, label, slots, QUERIES_PER_SLOT * TIMESTAMP_BYTES, (words) => this.read(words));
    for (let s = 0; s < slots; s++) {
      this.writes.push({ querySet: this.querySet, beginningOfPassWriteIndex: s * QUERIES_PER_SLOT, endOfPassWriteIndex: s * QUERIES_PER_SLOT + 1 });
    }
  }

  /**
   * The `timestampWrites` for the next pass, or undefined (unsupported, or every slot
   * still in flight: this frame is not measured). Follow with endPass and afterSubmit.
   */
  beginPass(): GPURenderPassTimestampWrites | undefined {
    this.current = this.ring ? this.ring.take() : -1;
    return this.current >= 0 ? this.writes[this.current] : undefined;
  }

  /** After the measured pass ended, on the same encoder: resolves its queries into the slot's readback buffer. */
  endPass(encoder: GPUCommandEncoder): void {
    const s = this.current;
    if (s < 0) return;
    this.current = -1;
    encoder.resolveQuerySet(this.querySet!, s * QUERIES_PER_SLOT, QUERIES_PER_SLOT, this.resolveBuffer!, s * RESOLVE_ALIGNMENT);
    encoder.copyBufferToBuffer(this.resolveBuffer!, s * RESOLVE_ALIGNMENT, this.ring!.buffer(s), 0, QUERIES_PER_SLOT * TIMESTAMP_BYTES);
    this.ring!.copied();
  }

  /** After the encoder's command buffer was submitted: starts reading the slot back (a pass begun but not ended is not). */
  afterSubmit(): void {
    this.current = -1;
    this.ring?.afterSubmit();
  }

  /** Two u64 nanosecond counters, as (low, high) u32 pairs: no BigInt arithmetic. */
  private read(words: Uint32Array): void {
    const ns = (words[3] - words[1]) * TWO_POW_32 + (words[2] - words[0]);
    // Implementations may clamp or quantise timestamps; a negative span is no measurement.
    if (ns >= 0) {
      this.lastMs = ns / 1e6;
      this.resolvedCount++;
    }
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    this.ring?.destroy();
  }
}
