/**
 * DqJoint entries from palettes made on the GPU: a compute pass (shaders/dq-palette.wgsl) that
 * splits skinning matrices as the CPU's dqPaletteFromMatrices does (src/anim/dq-palette.ts), so
 * dual-quaternion and centre-of-rotation skinning can draw a crowd whose poses a
 * GpuPoseEvaluator computes (its `palettes` hold matrices; the CPU never sees them). One
 * pipeline per device; a bind group per (source, target) pair, made again only when a buffer
 * changes; the frame writes one 8-byte uniform. Allocates nothing per frame otherwise.
 */
import { PALETTE_MATRIX_BYTES } from '../layouts/bindings.ts';
import { perDevice } from '../device/per-device.ts';
import { compileShaderModule } from '../device/shader-module.ts';

/** Invocations per workgroup (WGSL `workgroupSize`). */
export const DQ_PALETTE_WORKGROUP_SIZE = 64;
/** WGSL `DqPaletteParams`: count, sourceOffset (u32 each). */
export const DQ_PALETTE_PARAMS_BYTES = 8;

interface DevicePipeline {
  readonly layout: GPUBindGroupLayout;
  readonly pipeline: Promise<GPUComputePipeline>;
}

const devicePipeline = perDevice((device: GPUDevice): DevicePipeline => {
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const layout = device.createBindGroupLayout({
    label: 'dq palette (group 0)',
    entries: [
      storage(0, 'read-only-storage'), storage(1, 'storage'),
      { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', minBindingSize: DQ_PALETTE_PARAMS_BYTES } },
    ],
  });
  // The WGSL is imported with the first crowd that needs the pass, not with the page.
  const pipeline = import('./dq-palette-wgsl.ts').then(({ DQ_PALETTE_WGSL }) => compileShaderModule(device, 'dq-palette.wgsl', DQ_PALETTE_WGSL)).then((module) => device.createComputePipelineAsync({
    label: 'dq palette',
    layout: device.createPipelineLayout({ label: 'dq palette', bindGroupLayouts: [layout] }),
    compute: { module, entryPoint: 'main', constants: { workgroupSize: DQ_PALETTE_WORKGROUP_SIZE } },
  }));
  return { layout, pipeline };
});

export class DqPalettePass {
  private pipeline: GPUComputePipeline | undefined;
  private readonly params: GPUBuffer;
  private readonly paramsData = new Uint32Array(DQ_PALETTE_PARAMS_BYTES / 4);
  private bindGroup: GPUBindGroup | undefined;
  private boundSource: GPUBuffer | undefined;
  private boundTarget: GPUBuffer | undefined;

  constructor(private readonly device: GPUDevice, private readonly label: string) {
    this.params = device.createBuffer({ label: `${label} dq palette params`, size: DQ_PALETTE_PARAMS_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }

  /** Resolves once the pipeline is built (a method that reads DqJoint entries waits for it). */
  async prepare(): Promise<void> {
    this.pipeline ??= await devicePipeline(this.device).pipeline;
  }

  /**
   * Encodes the conversion of `count` matrices of `source`, from matrix `sourceOffset` on,
   * into entries 0 … count − 1 of `target`. Returns the bytes written to the queue. Call
   * after `prepare()` resolved.
   */
  encode(encoder: GPUCommandEncoder, queue: GPUQueue, source: GPUBuffer, target: GPUBuffer, count: number, sourceOffset: number): number {
    const pipeline = this.pipeline;
    if (!pipeline) throw new Error('DqPalettePass.encode: prepare() first');
    if (count === 0) return 0;
    if ((sourceOffset + count) * PALETTE_MATRIX_BYTES > source.size || count * PALETTE_MATRIX_BYTES > target.size) {
      throw new RangeError(`DqPalettePass: ${count} entries from matrix ${sourceOffset} do not fit "${source.label}" (${source.size} bytes) or "${target.label}" (${target.size} bytes)`);
    }
    if (!this.bindGroup || source !== this.boundSource || target !== this.boundTarget) {
      this.bindGroup = this.device.createBindGroup({
        label: `${this.label} dq palette: ${source.label} → ${target.label}`,
        layout: devicePipeline(this.device).layout,
        entries: [{ binding: 0, resource: { buffer: source } }, { binding: 1, resource: { buffer: target } }, { binding: 2, resource: { buffer: this.params } }],
      });
      this.boundSource = source;
      this.boundTarget = target;
    }
    this.paramsData[0] = count;
    this.paramsData[1] = sourceOffset;
    queue.writeBuffer(this.params, 0, this.paramsData);
    const pass = encoder.beginComputePass({ label: `${this.label} dq palette` });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(count / DQ_PALETTE_WORKGROUP_SIZE));
    pass.end();
    return DQ_PALETTE_PARAMS_BYTES;
  }

  destroy(): void {
    this.params.destroy();
  }
}
