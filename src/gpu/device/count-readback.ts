/**
 * A u32 counter the GPU writes, read back without stalling (ReadbackRing): for display only,
 * a frame or two late. A frame copies the counter into a free slot after its passes (`copy`)
 * and starts reading it after submit (`afterSubmit`).
 */
import { ReadbackRing } from './readback-ring.ts';

export class CountReadback {
  /** The value most recently read back; -1 until one was. */
  last = -1;
  /** Values read back so far. */
  readCount = 0;
  private readonly ring: ReadbackRing;

  constructor(device: GPUDevice, label: string, slots = 3) {
    this.ring = new ReadbackRing(device, label, slots, 4, (words) => {
      this.last = words[0];
      this.readCount++;
    });
  }

  /** Copies the counter at `source[offset…offset + 4]` into a free slot (none free: this frame is skipped). */
  copy(encoder: GPUCommandEncoder, source: GPUBuffer, offset: number): void {
    const s = this.ring.take();
    if (s < 0) return;
    encoder.copyBufferToBuffer(source, offset, this.ring.buffer(s), 0, 4);
    this.ring.copied();
  }

  /** After the frame's command buffer was submitted: starts mapping its slot. */
  afterSubmit(): void {
    this.ring.afterSubmit();
  }

  destroy(): void {
    this.ring.destroy();
  }
}
