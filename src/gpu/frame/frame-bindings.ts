import { environmentBindGroupEntries, EnvironmentPlaceholder, type Environment } from '../environment/environment.ts';
import { acquireBrdfLut, releaseBrdfLut } from '../environment/brdf-lut-texture.ts';
import { FrameUniformsData } from '../layouts/frame-uniforms.ts';
import { FrameBinding } from '../layouts/bindings.ts';
import type { ShadowMap } from './shadow-map.ts';

/**
 * A renderer's group 0, bound by every pass of a frame: the frame uniforms (one block, one
 * writeBuffer per frame), the shadow map, and what lights the scene and what the skybox
 * shows (an environment each, or the placeholders). The bind group is made again only when
 * one of those changes: a new environment, or a shadow map made at another size.
 */
export class FrameBindings {
  readonly data = new FrameUniformsData();
  readonly buffer: GPUBuffer;
  /** What lights the scene: an environment alone, or (undefined) the key light and hemisphere. */
  private lit: Environment | undefined;
  /** What the skybox shows. */
  private shown: Environment | undefined;
  /** Bound where there is no environment or table yet. */
  private readonly placeholder: EnvironmentPlaceholder;
  /** The device's BRDF table, held from the first environment until `destroy`. */
  private brdfLut: GPUTextureView | undefined;
  /** The shadow map view `group` binds. */
  private boundShadowView: GPUTextureView;
  private bindGroup: GPUBindGroup;

  constructor(
    private readonly device: GPUDevice, private readonly label: string, private readonly layout: GPUBindGroupLayout, private readonly shadow: ShadowMap,
  ) {
    this.buffer = device.createBuffer({
      label: `${label} frame uniforms`,
      size: this.data.buffer.byteLength,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.placeholder = new EnvironmentPlaceholder(device, label);
    this.boundShadowView = shadow.view;
    this.bindGroup = this.create();
  }

  /** The frame bind group (group 0). */
  get group(): GPUBindGroup {
    return this.bindGroup;
  }

  get environment(): Environment | undefined {
    return this.lit;
  }

  get background(): Environment | undefined {
    return this.shown;
  }

  /** Lights the scene with `environment` and shows `background` in the skybox (undefined: placeholders). */
  setEnvironment(environment: Environment | undefined, background: Environment | undefined): void {
    if (environment === this.lit && background === this.shown) return;
    this.lit = environment;
    this.shown = background;
    if (environment && !this.brdfLut) this.brdfLut = acquireBrdfLut(this.device);
    this.bindGroup = this.create();
  }

  /** An environment destroyed by its owner lights (or shows) nothing from this frame on. */
  dropDestroyedEnvironments(): void {
    if (this.lit?.destroyed || this.shown?.destroyed) {
      this.setEnvironment(this.lit?.destroyed ? undefined : this.lit, this.shown?.destroyed ? undefined : this.shown);
    }
  }

  /** Binds the shadow map again when it was made anew (another size). */
  followShadowMap(): void {
    if (this.shadow.view !== this.boundShadowView) this.bindGroup = this.create();
  }

  private create(): GPUBindGroup {
    this.boundShadowView = this.shadow.view;
    return this.device.createBindGroup({
      label: `${this.label} frame`,
      layout: this.layout,
      entries: [
        { binding: FrameBinding.UNIFORMS, resource: { buffer: this.buffer } },
        { binding: FrameBinding.SHADOW_MAP, resource: this.boundShadowView },
        { binding: FrameBinding.SHADOW_SAMPLER, resource: this.shadow.sampler },
        ...environmentBindGroupEntries(this.device, this.placeholder, this.lit, this.shown, this.brdfLut),
      ],
    });
  }

  destroy(): void {
    this.buffer.destroy();
    this.placeholder.destroy();
    if (this.brdfLut) releaseBrdfLut(this.device);
    this.brdfLut = undefined;
    this.lit = this.shown = undefined;
  }
}
