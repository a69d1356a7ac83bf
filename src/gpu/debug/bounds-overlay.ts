/**
 * The BOUNDS debug view: the world-space box of every instance the frame draws (the
 * culling bounds of src/gpu/draw/cpu-culling.ts) as 12 lines each, one instanced line-list draw
 * over the frame. The pipeline is built the first time a frame asks for the view; the
 * box buffer grows with the most boxes drawn so far (otherwise nothing is allocated).
 */
import { BOUNDS_BOX_STRIDE, BOUNDS_EDGE_VERTICES } from '../layouts/debug.ts';
import type { DebugPipelines } from '../pipelines/debug.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';

export class BoundsOverlay {
  private readonly pipeline: BackgroundBuild<GPURenderPipeline>;
  private buffer: GPUBuffer | undefined;
  private capacity = 0;
  /** Bytes the last `encode` wrote to the GPU (RenderStats.bytesUploaded). */
  uploadedBytes = 0;

  constructor(
    private readonly device: GPUDevice,
    pipelines: DebugPipelines,
    format: GPUTextureFormat,
    private readonly label: string,
  ) {
    this.pipeline = new BackgroundBuild('the bounds view', () => pipelines.bounds(format));
  }

  get ready(): boolean {
    return this.pipeline.ready;
  }

  /** Builds the pipeline (once; concurrent calls share the build; a failed one is built again when asked). */
  async prepare(): Promise<void> {
    await this.pipeline.prepare();
  }

  /** From the frame path: starts the build without awaiting it (allocates only then); `onFailed` hears of a failure. */
  request(onFailed: BuildFailure): void {
    this.pipeline.request(onFailed);
  }

  /**
   * Uploads `count` boxes (WORLD_BOX_FLOATS each: min x y z, max x y z) and draws them into
   * `pass`, whose frame (group 0) and skin (group 1) bind groups are set. Returns the draw
   * calls made: 0 until the pipeline is ready or without boxes.
   */
  encode(pass: GPURenderPassEncoder, boxes: Float32Array, count: number): number {
    this.uploadedBytes = 0;
    const pipeline = this.pipeline.value;
    if (!pipeline || count === 0) return 0;
    if (count > this.capacity) {
      this.buffer?.destroy();
      this.capacity = Math.max(count, this.capacity * 2);
      this.buffer = this.device.createBuffer({
        label: `${this.label} bounds boxes ×${this.capacity}`,
        size: this.capacity * BOUNDS_BOX_STRIDE,
        usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST,
      });
    }
    this.device.queue.writeBuffer(this.buffer!, 0, boxes.buffer, boxes.byteOffset, count * BOUNDS_BOX_STRIDE);
    this.uploadedBytes += count * BOUNDS_BOX_STRIDE;
    pass.setPipeline(pipeline);
    pass.setVertexBuffer(0, this.buffer!);
    pass.draw(BOUNDS_EDGE_VERTICES, count);
    return 1;
  }

  destroy(): void {
    this.buffer?.destroy();
    this.buffer = undefined;
    this.capacity = 0;
  }
}
