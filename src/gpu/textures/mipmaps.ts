import fullscreenWgsl from '../../../shaders/fullscreen.wgsl?raw';
import mipmapWgsl from '../../../shaders/mipmap.wgsl?raw';
import { perDevice } from '../device/per-device.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';

/** The mipmap pipeline's WGSL: the fullscreen triangle, then the box filter. */
export const MIPMAP_WGSL = pipelineShader('mipmap', { 'fullscreen.wgsl': fullscreenWgsl, 'mipmap.wgsl': mipmapWgsl });

/** Number of levels in a full mip chain down to 1×1. */
export function mipLevelCount(width: number, height: number): number {
  return Math.floor(Math.log2(Math.max(width, height))) + 1;
}

/**
 * Fills levels 1… of a texture from level 0 on the GPU, one render pass per level.
 * The texture needs TEXTURE_BINDING | RENDER_ATTACHMENT usage and a renderable,
 * filterable format. Pipelines are cached by format; upload-time only.
 */
export class MipmapGenerator {
  private shared: MipmapResources | undefined;
  private readonly pipelines = new Map<GPUTextureFormat, GPURenderPipeline>();
  private readonly warmed = new Set<GPUTextureFormat>();

  constructor(private readonly device: GPUDevice) {}

  /**
   * The shader module, sampler and layouts, made at the first draw: a page whose images all get
   * their levels on the CPU (textures.ts CPU_MIPMAP_MAX_TEXELS) never asks the GPU process for them.
   */
  private resources(): MipmapResources {
    if (this.shared) return this.shared;
    const device = this.device;
    const bindGroupLayout = device.createBindGroupLayout({
      label: 'mipmap source',
      entries: [
        { binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } },
        { binding: 1, visibility: GPUShaderStage.FRAGMENT, sampler: { type: 'filtering' } },
      ],
    });
    this.shared = {
      module: device.createShaderModule({ label: 'mipmap', code: MIPMAP_WGSL }),
      sampler: device.createSampler({ label: 'mipmap source', minFilter: 'linear', magFilter: 'linear' }),
      bindGroupLayout,
      pipelineLayout: device.createPipelineLayout({ label: 'mipmap', bindGroupLayouts: [bindGroupLayout] }),
    };
    return this.shared;
  }

  private pipeline(format: GPUTextureFormat): GPURenderPipeline {
    let p = this.pipelines.get(format);
    if (!p) {
      const { module, pipelineLayout } = this.resources();
      p = this.device.createRenderPipeline({
        label: `mipmap ${format}`,
        layout: pipelineLayout,
        vertex: { module, entryPoint: 'vsFullscreen' },
        fragment: { module, entryPoint: 'fsDownsample', targets: [{ format }] },
        primitive: { topology: 'triangle-list' },
      });
      this.pipelines.set(format, p);
    }
    return p;
  }

  /**
   * Draws `format`'s downsampling once, into a 2×2 scratch texture, unless a texture of that
   * format was mipmapped already: a CPU rasteriser (SwiftShader) compiles a pipeline's routines at
   * its first draw, so a page that knows its textures' formats from the model's JSON has that
   * done while they download and decode instead of after (pipeline-forecast.ts). Load time only.
   */
  warm(format: GPUTextureFormat): void {
    if (this.warmed.has(format) || this.pipelines.has(format)) return;
    this.warmed.add(format);
    const texture = this.device.createTexture({
      label: `mipmap warm-up (${format})`, size: [2, 2], format, mipLevelCount: 2,
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.generate(texture);
    // Freed once the submitted passes are done with it.
    texture.destroy();
  }

  generate(texture: GPUTexture): void {
    if (texture.mipLevelCount < 2) return;
    const encoder = this.device.createCommandEncoder({ label: `mipmaps ${texture.label}` });
    this.encode(encoder, this.chain(texture));
    this.device.queue.submit([encoder.finish()]);
  }

  /**
   * The passes that fill levels 1… of `texture` from level 0, made once: a texture filled
   * again every frame (the transmitted scene) then encodes them without allocating.
   */
  chain(texture: GPUTexture): MipChain {
    const { bindGroupLayout, sampler } = this.resources();
    const levels: { bindGroup: GPUBindGroup; descriptor: GPURenderPassDescriptor }[] = [];
    for (let level = 1; level < texture.mipLevelCount; level++) {
      const bindGroup = this.device.createBindGroup({
        label: `mipmap ${texture.label} level ${level - 1}`,
        layout: bindGroupLayout,
        entries: [
          { binding: 0, resource: texture.createView({ label: `${texture.label} level ${level - 1}`, baseMipLevel: level - 1, mipLevelCount: 1 }) },
          { binding: 1, resource: sampler },
        ],
      });
      const descriptor: GPURenderPassDescriptor = {
        label: `mipmap ${texture.label} level ${level}`,
        colorAttachments: [{
          view: texture.createView({ label: `${texture.label} level ${level}`, baseMipLevel: level, mipLevelCount: 1 }),
          loadOp: 'clear',
          storeOp: 'store',
          clearValue: [0, 0, 0, 0],
        }],
      };
      levels.push({ bindGroup, descriptor });
    }
    return { pipeline: this.pipeline(texture.format), levels };
  }

  /** Encodes `chain`'s passes into `encoder` (allocates nothing beyond the passes themselves). */
  encode(encoder: GPUCommandEncoder, chain: MipChain): void {
    for (let i = 0; i < chain.levels.length; i++) {
      const level = chain.levels[i];
      const pass = encoder.beginRenderPass(level.descriptor);
      pass.setPipeline(chain.pipeline);
      pass.setBindGroup(0, level.bindGroup);
      pass.draw(3);
      pass.end();
    }
  }
}

/** What every mipmap pipeline of a device shares. */
interface MipmapResources {
  readonly module: GPUShaderModule;
  readonly sampler: GPUSampler;
  readonly bindGroupLayout: GPUBindGroupLayout;
  readonly pipelineLayout: GPUPipelineLayout;
}

/** The prepared downsampling passes of one texture (MipmapGenerator.chain). */
export interface MipChain {
  readonly pipeline: GPURenderPipeline;
  readonly levels: readonly { readonly bindGroup: GPUBindGroup; readonly descriptor: GPURenderPassDescriptor }[];
}

/** The device's MipmapGenerator (made on first use), so every Renderer on it shares its pipelines. */
export const mipmapGenerator = perDevice((device) => new MipmapGenerator(device));
