/**
 * A u32 counter the GPU writes, read back without stalling: for display only (a frame or
 * two late). The same ring as GpuTimer's: each slot a MAP_READ buffer; a frame copies the
 * counter into a free slot after its passes (`copy`), starts mapping it after submit
 * (`afterSubmit`), and the slot is free again once the map resolves. With every slot in
 * flight the frame is not read back rather than waiting. The callbacks are bound once per
 * slot; the only objects made per read frame are the ones WebGPU returns (mapAsync's
 * promise, getMappedRange's ArrayBuffer and a view onto it).
 */

const SlotState = { FREE: 0, COPIED: 1, MAPPING: 2 } as const;

export class CountReadback {
  /** The value most recently read back; -1 until one was. */
  last = -1;
  /** Values read back so far. */
  readCount = 0;
  private readonly buffers: GPUBuffer[] = [];
  private readonly state: Uint8Array;
  private readonly onMapped: (() => void)[] = [];
  private readonly onFailed: (() => void)[] = [];
  /** Slot of the frame being encoded, or -1. */
  private current = -1;
  private destroyed = false;

  constructor(device: GPUDevice, label: string, slots = 3) {
    this.state = new Uint8Array(slots);
    for (let s = 0; s < slots; s++) {
      this.buffers.push(device.createBuffer({ label: `${label} readback ${s}`, size: 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
      this.onMapped.push(() => this.read(s));
      this.onFailed.push(() => { this.state[s] = SlotState.FREE; });
    }
  }

  /** Copies the counter at `source[offset…offset + 4]` into a free slot (none free: this frame is skipped). */
  copy(encoder: GPUCommandEncoder, source: GPUBuffer, offset: number): void {
    if (this.destroyed) return;
    // A frame that threw between copy and afterSubmit never submitted its copy: take the slot back.
    if (this.current >= 0 && this.state[this.current] === SlotState.COPIED) this.state[this.current] = SlotState.FREE;
    this.current = -1;
    for (let s = 0; s < this.state.length; s++) {
      if (this.state[s] !== SlotState.FREE) continue;
      encoder.copyBufferToBuffer(source, offset, this.buffers[s], 0, 4);
      this.state[s] = SlotState.COPIED;
      this.current = s;
      return;
    }
  }

  /** After the frame's command buffer was submitted: starts mapping its slot. */
  afterSubmit(): void {
    const s = this.current;
    if (s < 0) return;
    this.current = -1;
    this.state[s] = SlotState.MAPPING;
    this.buffers[s].mapAsync(GPUMapMode.READ).then(this.onMapped[s], this.onFailed[s]);
  }

  private read(s: number): void {
    if (this.destroyed) return;
    const buffer = this.buffers[s];
    this.last = new Uint32Array(buffer.getMappedRange(0, 4))[0];
    buffer.unmap();
    this.state[s] = SlotState.FREE;
    this.readCount++;
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.buffers) b.destroy();
  }
}
