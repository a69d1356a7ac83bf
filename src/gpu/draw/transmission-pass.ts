/**
 * The screen-space transmission pass (KHR_materials_transmission), as three.js and the Khronos
 * sample viewer draw it: before the frame pass, the scene's opaque surfaces (and the skybox) are
 * drawn again into a copy of linear, premultiplied radiance without tone mapping
 * (TRANSMISSION_FORMAT, one sample, the target's size), whose mip chain is then filled; a
 * transmissive surface samples it behind itself along its refracted view ray, at a mip level
 * its roughness chooses (shaders/pbr-extensions/pbr-extensions.wgsl `transmittedLight`). The copy
 * is group 3 of the frame pass (`bindGroup`); until the first pass, and in frames of models
 * without transmission, group 3 is a transparent 1×1 placeholder.
 *
 * What the copy lacks: transmissive and blended surfaces (glass behind glass shows the opaque
 * scene only), and, for a crowd drawn in chunks, the other chunks' instances.
 */
import { environmentSampler } from '../environment/environment.ts';
import type { BuildFailure } from '../device/background-build.ts';
import { BindGroup, DEPTH_FORMAT, TRANSMISSION_FORMAT } from '../layouts/bindings.ts';
import { mipLevelCount, mipmapGenerator, type MipChain } from '../textures/mipmaps.ts';
import type { ModelDraws } from './model-draws.ts';
import { transmissionLayout, TransmissionBinding } from '../pipelines/pbr-extensions-path.ts';
import { deviceSkybox, type Skybox } from '../frame/skybox.ts';
import { srgbToLinear } from '../textures/textures.ts';

export class TransmissionPass {
  private color: GPUTexture | undefined;
  private depth: GPUTexture | undefined;
  private chain: MipChain | undefined;
  private group: GPUBindGroup;
  private readonly placeholder: GPUTexture;
  private readonly placeholderGroup: GPUBindGroup;
  private readonly skybox: Skybox;
  private readonly clearValue = { r: 0, g: 0, b: 0, a: 0 };
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly descriptor: GPURenderPassDescriptor;

  /** `onBuildFailed`: hears of a failed build of the copy's skybox pipeline (the renderer's one logger). */
  constructor(private readonly device: GPUDevice, private readonly label: string, private readonly onBuildFailed: BuildFailure) {
    this.placeholder = device.createTexture({
      label: `${label} transmitted scene placeholder`, size: [1, 1], format: TRANSMISSION_FORMAT, usage: GPUTextureUsage.TEXTURE_BINDING,
    });
    this.placeholderGroup = this.bind(this.placeholder);
    this.group = this.placeholderGroup;
    this.skybox = deviceSkybox(device, TRANSMISSION_FORMAT, true);
    this.colorAttachment = { view: undefined as unknown as GPUTextureView, clearValue: this.clearValue, loadOp: 'clear', storeOp: 'store' };
    this.depthAttachment = { view: undefined as unknown as GPUTextureView, depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' };
    this.descriptor = { label: `${label} transmission pass`, colorAttachments: [this.colorAttachment], depthStencilAttachment: this.depthAttachment };
  }

  /** Group 3 of pipelines with transmission: the last pass's scene (a placeholder before the first). */
  get bindGroup(): GPUBindGroup {
    return this.group;
  }

  /**
   * Draws `draws`' opaque surfaces (`count` instances, with `pipelines`: DrawPipelines.transmission,
   * the skin group `skinGroup`, GPU-culled arguments `indirect`) into the copy at `width`×`height`
   * and fills its mips; first the skybox when `skybox`, over a clear of `clearColor`
   * (display-referred RGBA, straight alpha, as RenderSettings.clearColor) turned into the radiance
   * that shows as it (sRGB decoded, over `exposure`). Returns the draw calls; allocates only when
   * the size changes.
   */
  encode(
    encoder: GPUCommandEncoder, width: number, height: number, frameGroup: GPUBindGroup, skybox: boolean, clearColor: Float32Array, exposure: number,
    draws: ModelDraws, count: number, skinGroup: GPUBindGroup, pipelines: readonly (GPURenderPipeline | null)[], indirect: GPUBuffer | undefined,
  ): number {
    this.ensure(width, height);
    const a = clearColor[3];
    const scale = a / (exposure > 0 ? exposure : 1);
    this.clearValue.r = srgbToLinear(clearColor[0]) * scale;
    this.clearValue.g = srgbToLinear(clearColor[1]) * scale;
    this.clearValue.b = srgbToLinear(clearColor[2]) * scale;
    this.clearValue.a = a;
    const pass = encoder.beginRenderPass(this.descriptor);
    pass.setBindGroup(BindGroup.FRAME, frameGroup);
    let calls = 0;
    if (skybox && this.skybox.request(this.onBuildFailed)) calls += this.skybox.encode(pass);
    pass.setBindGroup(BindGroup.SKIN, skinGroup);
    calls += draws.encodeTransmissionSources(pass, count, pipelines, indirect);
    pass.end();
    mipmapGenerator(this.device).encode(encoder, this.chain!);
    return calls;
  }

  private ensure(width: number, height: number): void {
    if (this.color && this.color.width === width && this.color.height === height) return;
    this.color?.destroy();
    this.depth?.destroy();
    this.color = this.device.createTexture({
      label: `${this.label} transmitted scene ${width}×${height}`, size: [width, height], format: TRANSMISSION_FORMAT, mipLevelCount: mipLevelCount(width, height),
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.depth = this.device.createTexture({
      label: `${this.label} transmitted scene depth ${width}×${height}`, size: [width, height], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.colorAttachment.view = this.color.createView({ label: `${this.label} transmitted scene level 0`, baseMipLevel: 0, mipLevelCount: 1 });
    this.depthAttachment.view = this.depth.createView({ label: `${this.label} transmitted scene depth` });
    this.chain = mipmapGenerator(this.device).chain(this.color);
    this.group = this.bind(this.color);
  }

  private bind(texture: GPUTexture): GPUBindGroup {
    return this.device.createBindGroup({
      label: `${this.label} transmitted scene (group 3)`,
      layout: transmissionLayout(this.device),
      entries: [
        { binding: TransmissionBinding.SCENE, resource: texture.createView({ label: `${texture.label} view` }) },
        { binding: TransmissionBinding.SAMPLER, resource: environmentSampler(this.device) },
      ],
    });
  }

  destroy(): void {
    this.color?.destroy();
    this.depth?.destroy();
    this.placeholder.destroy();
    this.color = this.depth = undefined;
    this.group = this.placeholderGroup;
  }
}
