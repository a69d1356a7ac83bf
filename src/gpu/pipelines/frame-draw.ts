/**
 * A draw of the lit pass with no buffers of its own: its vertices come from the vertex index
 * and everything else from the frame uniforms (group 0) — the ground disc (ground.ts) and the
 * skybox (environment/skybox.ts). One pipeline per device, kind and colour format, built on
 * first use and shared by every Renderer.
 */
import { DEPTH_FORMAT, MSAA_SAMPLE_COUNT } from '../layouts/bindings.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { perDevice } from '../device/per-device.ts';
import { isSrgbFormat, MeshPipelines } from './mesh.ts';

/** What distinguishes one kind of frame draw. */
export interface FrameDrawKind {
  /** In the pipeline labels: `${name} ${format}`. */
  readonly name: string;
  /** Entry points in the mesh shader module. */
  readonly vertexEntry: string;
  readonly fragmentEntry: string;
  readonly vertexCount: number;
  /** Premultiplied-alpha blending (the ground's rim fades out); none for opaque. */
  readonly blend: boolean;
  /** The draw never writes depth; it tests it with this. */
  readonly depthCompare: GPUCompareFunction;
}

const PREMULTIPLIED: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };

/** One kind's pipeline for one colour format, built on first use. */
export class FrameDraw {
  private readonly pipeline: BackgroundBuild<GPURenderPipeline>;

  /**
   * `transmissionSource`: drawn into the transmission pass's target (linear output, one sample:
   * MeshPipelineDesc.transmissionSource).
   */
  constructor(
    private readonly device: GPUDevice, private readonly meshPipelines: MeshPipelines,
    private readonly format: GPUTextureFormat, private readonly kind: FrameDrawKind, private readonly transmissionSource = false,
  ) {
    this.pipeline = new BackgroundBuild(`the ${kind.name}`, () => this.build());
  }

  get ready(): boolean {
    return this.pipeline.ready;
  }

  /** Builds the pipeline (once; concurrent calls share the build; a failed build is built again when asked). */
  async prepare(): Promise<void> {
    await this.pipeline.prepare();
  }

  /** From the frame path: whether the pipeline is built; the first call starts the build (`onFailed` hears of a failure). */
  request(onFailed: BuildFailure): boolean {
    return this.pipeline.request(onFailed) !== undefined;
  }

  private build(): Promise<GPURenderPipeline> {
    const { kind, format } = this;
    const label = `${kind.name} ${format}${this.transmissionSource ? ' (transmitted scene)' : ''}`;
    return this.device.createRenderPipelineAsync({
      label,
      layout: this.device.createPipelineLayout({ label, bindGroupLayouts: [this.meshPipelines.frameLayout] }),
      vertex: { module: this.meshPipelines.module, entryPoint: kind.vertexEntry },
      fragment: {
        module: this.meshPipelines.module,
        entryPoint: kind.fragmentEntry,
        constants: { ENCODE_SRGB: isSrgbFormat(format) ? 0 : 1, LINEAR_OUTPUT: this.transmissionSource ? 1 : 0 },
        targets: [kind.blend ? { format, blend: { color: PREMULTIPLIED, alpha: PREMULTIPLIED } } : { format }],
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: false, depthCompare: kind.depthCompare },
      multisample: { count: this.transmissionSource ? 1 : MSAA_SAMPLE_COUNT },
    });
  }

  /** Draws (the frame bind group is set); returns the draw calls made: 0 until built. */
  encode(pass: GPURenderPassEncoder): number {
    const pipeline = this.pipeline.value;
    if (!pipeline) return 0;
    pass.setPipeline(pipeline);
    pass.draw(this.kind.vertexCount);
    return 1;
  }
}

const drawsByKind = perDevice(() => new Map<FrameDrawKind, Map<string, FrameDraw>>());

/** The device's frame draw of `kind` for `format` (for the transmission pass's target: `transmissionSource`), shared by every Renderer. */
export function deviceFrameDraw(device: GPUDevice, kind: FrameDrawKind, format: GPUTextureFormat, transmissionSource = false): FrameDraw {
  const kinds = drawsByKind(device);
  let byFormat = kinds.get(kind);
  if (!byFormat) kinds.set(kind, byFormat = new Map());
  const key = `${format}${transmissionSource ? ' linear' : ''}`;
  let made = byFormat.get(key);
  if (!made) byFormat.set(key, made = new FrameDraw(device, new MeshPipelines(device), format, kind, transmissionSource));
  return made;
}
