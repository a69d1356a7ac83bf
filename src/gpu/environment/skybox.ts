/**
 * The skybox (RenderSettings.skybox): the environment's radiance cube drawn behind
 * everything (shaders/environment-lighting.wgsl vsSkybox / fsSkybox), one triangle over the
 * viewport at the far plane, first in the lit pass, neither testing nor writing depth.
 */
import { DEPTH_FORMAT, MSAA_SAMPLE_COUNT } from '../layouts.ts';
import { perDevice } from '../per-device.ts';
import { isSrgbFormat, MeshPipelines } from '../pipelines.ts';

/** The skybox pipeline of one colour format, built on first use. */
export class Skybox {
  private pipeline: GPURenderPipeline | undefined;
  private build: Promise<void> | undefined;

  constructor(private readonly device: GPUDevice, private readonly meshPipelines: MeshPipelines, private readonly format: GPUTextureFormat) {}

  get ready(): boolean {
    return this.pipeline !== undefined;
  }

  /** Builds the pipeline (once; concurrent calls share the build; a failed build may be retried). */
  prepare(): Promise<void> {
    if (!this.build) {
      this.build = this.device.createRenderPipelineAsync({
        label: `skybox ${this.format}`,
        layout: this.device.createPipelineLayout({ label: `skybox ${this.format}`, bindGroupLayouts: [this.meshPipelines.frameLayout] }),
        vertex: { module: this.meshPipelines.module, entryPoint: 'vsSkybox' },
        fragment: {
          module: this.meshPipelines.module,
          entryPoint: 'fsSkybox',
          constants: { ENCODE_SRGB: isSrgbFormat(this.format) ? 0 : 1 },
          targets: [{ format: this.format }],
        },
        primitive: { topology: 'triangle-list', cullMode: 'none' },
        depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: false, depthCompare: 'always' },
        multisample: { count: MSAA_SAMPLE_COUNT },
      }).then((p) => { this.pipeline = p; });
      this.build.catch(() => { this.build = undefined; });
    }
    return this.build;
  }

  /** Draws the skybox (the frame bind group is set); returns the draw calls made. */
  encode(pass: GPURenderPassEncoder): number {
    if (!this.pipeline) return 0;
    pass.setPipeline(this.pipeline);
    pass.draw(3);
    return 1;
  }
}

const skyboxesByFormat = perDevice(() => new Map<GPUTextureFormat, Skybox>());

/** The device's skybox for `format`, shared by every Renderer. */
export function deviceSkybox(device: GPUDevice, format: GPUTextureFormat): Skybox {
  const byFormat = skyboxesByFormat(device);
  let made = byFormat.get(format);
  if (!made) {
    made = new Skybox(device, new MeshPipelines(device), format);
    byFormat.set(format, made);
  }
  return made;
}
