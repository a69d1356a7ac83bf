/**
 * GPU time of a render pass, from timestamp queries, read back without stalling.
 *
 * Needs a device created with the 'timestamp-query' feature (requestWebGpuDevice and
 * createNodeDevice ask for it when the adapter has it); without it `supported` is false,
 * `beginPass` returns undefined and `lastMs` stays undefined.
 *
 * A small ring of slots, each a pair of queries in one query set, a 256-byte region of
 * one resolve buffer and its own MAP_READ buffer, all created up front. A frame takes a
 * free slot (`beginPass` → the pass's `timestampWrites`), resolves and copies it after the
 * pass (`endPass`), and starts mapping it after submit (`afterSubmit`); the slot is free
 * again when the map resolves a frame or two later. When every slot is still in flight
 * the frame goes unmeasured rather than waiting. The only objects made per measured frame
 * are those WebGPU's API returns itself (mapAsync's promise, getMappedRange's
 * ArrayBuffer, and a view onto it); the callbacks are bound once per slot.
 */

/** Queries per slot: beginning and end of the pass. */
const QUERIES_PER_SLOT = 2;
/** resolveQuerySet's destinationOffset must be a multiple of 256. */
const RESOLVE_ALIGNMENT = 256;
const TIMESTAMP_BYTES = 8;
const TWO_POW_32 = 4294967296;

const SlotState = {
  FREE: 0,
  /** Handed out by beginPass; queries are written by the pass being encoded. */
  ENCODING: 1,
  /** Resolve and copy recorded; waiting for submit. */
  RESOLVED: 2,
  /** mapAsync in flight. */
  MAPPING: 3,
} as const;

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
  private readonly readback: GPUBuffer[] = [];
  private readonly writes: GPURenderPassTimestampWrites[] = [];
  private readonly state: Uint8Array;
  private readonly onMapped: (() => void)[] = [];
  private readonly onMapFailed: (() => void)[] = [];
  /** Slot of the pass being encoded, or -1. */
  private current = -1;
  private destroyed = false;

  constructor(device: GPUDevice, options: GpuTimerOptions = {}) {
    const label = options.label ?? 'gpu timer';
    const slots = Math.max(1, options.slots ?? 4);
    this.supported = device.features.has('timestamp-query');
    this.state = new Uint8Array(this.supported ? slots : 0);
    if (!this.supported) return;
    this.querySet = device.createQuerySet({ label: `${label} timestamps`, type: 'timestamp', count: slots * QUERIES_PER_SLOT });
    this.resolveBuffer = device.createBuffer({
      label: `${label} resolved timestamps`,
      size: slots * RESOLVE_ALIGNMENT,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    for (let s = 0; s < slots; s++) {
      this.readback.push(device.createBuffer({
        label: `${label} readback ${s}`,
        size: QUERIES_PER_SLOT * TIMESTAMP_BYTES,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      }));
      this.writes.push({ querySet: this.querySet, beginningOfPassWriteIndex: s * QUERIES_PER_SLOT, endOfPassWriteIndex: s * QUERIES_PER_SLOT + 1 });
      this.onMapped.push(() => this.read(s));
      this.onMapFailed.push(() => { this.state[s] = SlotState.FREE; });
    }
  }

  /**
   * The `timestampWrites` for the next pass, or undefined (unsupported, or every slot
   * still in flight: this frame is not measured). Follow with endPass and afterSubmit.
   */
  beginPass(): GPURenderPassTimestampWrites | undefined {
    if (!this.supported || this.destroyed) return undefined;
    // A frame that threw between beginPass and afterSubmit never used its slot: take it back.
    if (this.current >= 0) {
      if (this.state[this.current] !== SlotState.MAPPING) this.state[this.current] = SlotState.FREE;
      this.current = -1;
    }
    for (let s = 0; s < this.state.length; s++) {
      if (this.state[s] === SlotState.FREE) {
        this.state[s] = SlotState.ENCODING;
        this.current = s;
        return this.writes[s];
      }
    }
    return undefined;
  }

  /** After the measured pass ended, on the same encoder: resolves its queries into the slot's readback buffer. */
  endPass(encoder: GPUCommandEncoder): void {
    const s = this.current;
    if (s < 0 || this.state[s] !== SlotState.ENCODING) return;
    encoder.resolveQuerySet(this.querySet!, s * QUERIES_PER_SLOT, QUERIES_PER_SLOT, this.resolveBuffer!, s * RESOLVE_ALIGNMENT);
    encoder.copyBufferToBuffer(this.resolveBuffer!, s * RESOLVE_ALIGNMENT, this.readback[s], 0, QUERIES_PER_SLOT * TIMESTAMP_BYTES);
    this.state[s] = SlotState.RESOLVED;
  }

  /** After the encoder's command buffer was submitted: starts reading the slot back. */
  afterSubmit(): void {
    const s = this.current;
    if (s < 0) return;
    this.current = -1;
    if (this.state[s] !== SlotState.RESOLVED) {
      // beginPass without endPass: the queries were never resolved; reuse the slot.
      this.state[s] = SlotState.FREE;
      return;
    }
    this.state[s] = SlotState.MAPPING;
    this.readback[s].mapAsync(GPUMapMode.READ).then(this.onMapped[s], this.onMapFailed[s]);
  }

  private read(s: number): void {
    const buffer = this.readback[s];
    if (this.destroyed) return;
    // Two u64 nanosecond counters, as (low, high) u32 pairs: no BigInt arithmetic.
    const words = new Uint32Array(buffer.getMappedRange(0, QUERIES_PER_SLOT * TIMESTAMP_BYTES));
    const ns = (words[3] - words[1]) * TWO_POW_32 + (words[2] - words[0]);
    buffer.unmap();
    this.state[s] = SlotState.FREE;
    // Implementations may clamp or quantise timestamps; a negative span is no measurement.
    if (ns >= 0) {
      this.lastMs = ns / 1e6;
      this.resolvedCount++;
    }
  }

  destroy(): void {
    this.destroyed = true;
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    for (const b of this.readback) b.destroy();
  }
}
