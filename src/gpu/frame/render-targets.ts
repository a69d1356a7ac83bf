/**
 * The frame pass's attachments: multisampled colour and depth at the target's size
 * (recreated only when that changes), resolved into the target through a view made when
 * the target changes; and the pass descriptor, reused every frame.
 */
import { DEPTH_FORMAT, MSAA_SAMPLE_COUNT } from '../layouts/bindings.ts';
import { isSrgbFormat } from '../pipelines/mesh.ts';
import { srgbToLinear } from '../textures/textures.ts';

export class RenderTargets {
  private msaaTexture: GPUTexture | undefined;
  private msaaView: GPUTextureView | undefined;
  private depthTexture: GPUTexture | undefined;
  private depthView: GPUTextureView | undefined;
  private lastTarget: GPUTexture | undefined;
  private lastTargetView: GPUTextureView | undefined;
  /** Whether the target format encodes sRGB in hardware (else the shader does). */
  private readonly srgb: boolean;
  private readonly clearValue = { r: 0, g: 0, b: 0, a: 1 };
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly targetViewDescriptor: GPUTextureViewDescriptor;

  constructor(private readonly device: GPUDevice, private readonly format: GPUTextureFormat, private readonly label: string) {
    this.srgb = isSrgbFormat(format);
    this.colorAttachment = {
      view: undefined as unknown as GPUTextureView, // set every frame
      resolveTarget: undefined,
      clearValue: this.clearValue,
      loadOp: 'clear',
      storeOp: 'discard',
    };
    this.depthAttachment = {
      view: undefined as unknown as GPUTextureView,
      depthClearValue: 1,
      depthLoadOp: 'clear',
      depthStoreOp: 'discard',
    };
    this.passDescriptor = {
      label: `${label} pass`,
      colorAttachments: [this.colorAttachment],
      depthStencilAttachment: this.depthAttachment,
    };
    this.targetViewDescriptor = { label: `${label} target view`, format };
  }

  /**
   * The frame pass into `target` (RENDER_ATTACHMENT usage, `format` or a view format of it),
   * cleared to `clearColor` (display-referred RGBA, straight alpha). `load`: keep what an
   * earlier pass drew instead (a later chunk); `store`: keep colour and depth for a later
   * pass. Allocates only when the target or its size changes.
   */
  pass(target: GPUTexture, clearColor: Float32Array, load: boolean, store: boolean): GPURenderPassDescriptor {
    this.ensureAttachments(target);
    if (target !== this.lastTarget) {
      this.lastTarget = target;
      this.lastTargetView = target.createView(this.targetViewDescriptor);
    }
    const clear = clearColor;
    const srgb = this.srgb;
    // The clear value is stored as is; an sRGB view stores it encoded, so give it linear values.
    this.clearValue.r = (srgb ? srgbToLinear(clear[0]) : clear[0]) * clear[3];
    this.clearValue.g = (srgb ? srgbToLinear(clear[1]) : clear[1]) * clear[3];
    this.clearValue.b = (srgb ? srgbToLinear(clear[2]) : clear[2]) * clear[3];
    this.clearValue.a = clear[3];
    this.colorAttachment.view = this.msaaView!;
    this.colorAttachment.resolveTarget = this.lastTargetView;
    this.depthAttachment.view = this.depthView!;
    this.colorAttachment.loadOp = this.depthAttachment.depthLoadOp = load ? 'load' : 'clear';
    this.colorAttachment.storeOp = this.depthAttachment.depthStoreOp = store ? 'store' : 'discard';
    return this.passDescriptor;
  }

  private ensureAttachments(target: GPUTexture): void {
    const { width, height } = target;
    if (this.msaaTexture && this.msaaTexture.width === width && this.msaaTexture.height === height) return;
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = this.device.createTexture({
      label: `${this.label} MSAA colour ${width}×${height}`,
      size: [width, height],
      format: this.format,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.depthTexture = this.device.createTexture({
      label: `${this.label} depth ${width}×${height}`,
      size: [width, height],
      format: DEPTH_FORMAT,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.msaaView = this.msaaTexture.createView({ label: `${this.label} MSAA colour view` });
    this.depthView = this.depthTexture.createView({ label: `${this.label} depth view` });
  }

  destroy(): void {
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = undefined;
    this.depthTexture = undefined;
    this.lastTarget = undefined;
    this.lastTargetView = undefined;
  }
}
