/**
 * Reading small GPU results back without stalling: a ring of MAP_READ buffers, all created up
 * front. A frame takes a free slot (`take`), records its copy into `buffer(slot)` and says so
 * (`copied`), and starts mapping it after submit (`afterSubmit`); the slot is free again once the
 * map resolves, a frame or two later, and `onRead` sees its words while mapped. With every slot in
 * flight the frame is not read back rather than waiting. A frame that threw between `take` and
 * `afterSubmit` gives its slot back at the next `take`. The callbacks are bound once per slot;
 * the only objects made per read frame are the ones WebGPU returns (mapAsync's promise,
 * getMappedRange's ArrayBuffer) and the view onto it. GpuTimer and CountReadback read through it.
 */

const SlotState = {
  FREE: 0,
  /** Taken by the frame being encoded. */
  TAKEN: 1,
  /** Its copy recorded; waiting for submit. */
  COPIED: 2,
  /** mapAsync in flight. */
  MAPPING: 3,
} as const;

export class ReadbackRing {
  private readonly buffers: GPUBuffer[] = [];
  private readonly state: Uint8Array;
  private readonly onMapped: (() => void)[] = [];
  private readonly onMapFailed: (() => void)[] = [];
  /** Slot of the frame being encoded, or -1. */
  private current = -1;
  private destroyed = false;

  /** `slots` buffers of `bytes` bytes (a multiple of 4); `onRead` gets a slot's words while it is mapped. */
  constructor(device: GPUDevice, label: string, slots: number, private readonly bytes: number, private readonly onRead: (words: Uint32Array) => void) {
    this.state = new Uint8Array(slots);
    for (let s = 0; s < slots; s++) {
      this.buffers.push(device.createBuffer({ label: `${label} readback ${s}`, size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
      this.onMapped.push(() => this.read(s));
      this.onMapFailed.push(() => { this.state[s] = SlotState.FREE; });
    }
  }

  /** A free slot for the frame being encoded, or -1 (every slot in flight, or destroyed: this frame is not read back). */
  take(): number {
    if (this.destroyed) return -1;
    if (this.current >= 0) {
      // The last frame never reached afterSubmit: its copy was never submitted.
      this.state[this.current] = SlotState.FREE;
      this.current = -1;
    }
    for (let s = 0; s < this.state.length; s++) {
      if (this.state[s] !== SlotState.FREE) continue;
      this.state[s] = SlotState.TAKEN;
      this.current = s;
      return s;
    }
    return -1;
  }

  /** The MAP_READ buffer of `slot`, for the frame's copy. */
  buffer(slot: number): GPUBuffer {
    return this.buffers[slot];
  }

  /** The frame's copy into its slot is recorded. */
  copied(): void {
    if (this.current >= 0) this.state[this.current] = SlotState.COPIED;
  }

  /** After the frame's command buffer was submitted: starts mapping its slot (a slot taken but not copied is free again). */
  afterSubmit(): void {
    const s = this.current;
    if (s < 0) return;
    this.current = -1;
    if (this.state[s] !== SlotState.COPIED) {
      this.state[s] = SlotState.FREE;
      return;
    }
    this.state[s] = SlotState.MAPPING;
    this.buffers[s].mapAsync(GPUMapMode.READ).then(this.onMapped[s], this.onMapFailed[s]);
  }

  private read(s: number): void {
    if (this.destroyed) return;
    const buffer = this.buffers[s];
    this.onRead(new Uint32Array(buffer.getMappedRange(0, this.bytes)));
    buffer.unmap();
    this.state[s] = SlotState.FREE;
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.buffers) b.destroy();
  }
}
