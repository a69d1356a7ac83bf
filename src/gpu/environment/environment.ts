/**
 * A prefiltered environment on the GPU (made by prefilter.ts): what the mesh shader lights
 * with and the skybox shows. The caller owns it: `destroy()` it when no renderer uses it.
 */
import { FrameBinding } from '../layouts/bindings.ts';
import { perDevice } from '../device/per-device.ts';
import { ENVIRONMENT_FORMAT } from './prefilter-params.ts';

/**
 * A prefiltered environment on the GPU (`prefilterEnvironment` makes one): the radiance cube, the GGX
 * specular chain, irradiance as nine SH coefficients and the dominant light direction. The caller owns it:
 * `destroy()` it once no renderer uses it.
 */
export class Environment {
  /** Set by `destroy()`. */
  destroyed = false;

  constructor(
    /** The radiance cube (full mip chain): the skybox's image and the specular chain's source. */
    readonly radiance: GPUTexture,
    /** The GGX specular chain: level i for roughness i / (levels − 1). */
    readonly specular: GPUTexture,
    /** Unit vector (world) towards the brightest part of the environment (its SH band 1): where its shadow is cast from. */
    readonly dominantDirection: Float32Array,
    /**
     * Nine SH coefficients of irradiance / π (shaders/sh9.wgsl), rgb of each at a stride of
     * 4 (36 floats): what the frame uniforms carry to the shader.
     */
    readonly irradianceCoefficients: Float32Array,
  ) {
    this.radianceView = radiance.createView({ label: `${radiance.label} cube`, dimension: 'cube' });
    this.specularView = specular.createView({ label: `${specular.label} cube`, dimension: 'cube' });
  }

  readonly radianceView: GPUTextureView;
  readonly specularView: GPUTextureView;

  /** Mip levels of the specular chain. */
  get specularLevels(): number {
    return this.specular.mipLevelCount;
  }

  /** Releases the environment's textures; a renderer must not be drawing with it. */
  destroy(): void {
    this.destroyed = true;
    this.radiance.destroy();
    this.specular.destroy();
  }
}

/**
 * What a renderer's frame bind group holds where it has no environment (legacy lighting, no
 * skybox) or no BRDF table yet: a black 1×1 cube and a 1×1 table. Each Renderer owns its own
 * (destroyed with it), so a page without viewers holds no GPU memory.
 */
export class EnvironmentPlaceholder {
  private readonly cube: GPUTexture;
  private readonly lut: GPUTexture;
  readonly cubeView: GPUTextureView;
  readonly lutView: GPUTextureView;

  constructor(device: GPUDevice, label: string) {
    this.cube = device.createTexture({ label: `${label} environment placeholder`, size: [1, 1, 6], format: ENVIRONMENT_FORMAT, usage: GPUTextureUsage.TEXTURE_BINDING });
    this.lut = device.createTexture({ label: `${label} BRDF table placeholder`, size: [1, 1], format: 'rg16float', usage: GPUTextureUsage.TEXTURE_BINDING });
    this.cubeView = this.cube.createView({ label: `${label} environment placeholder`, dimension: 'cube' });
    this.lutView = this.lut.createView({ label: `${label} BRDF table placeholder` });
  }

  destroy(): void {
    this.cube.destroy();
    this.lut.destroy();
  }
}

/** The environment sampler: trilinear, clamped (cube maps ignore the address modes; the BRDF table does not). */
export const environmentSampler = perDevice((device) => device.createSampler({
  label: 'environment sampler', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear',
  addressModeU: 'clamp-to-edge', addressModeV: 'clamp-to-edge',
}));

/** The frame group's (group 0) environment entries: shaders/environment-lighting.wgsl. */
export function environmentLayoutEntries(): GPUBindGroupLayoutEntry[] {
  const FRAGMENT = GPUShaderStage.FRAGMENT;
  return [
    { binding: FrameBinding.ENVIRONMENT_SPECULAR, visibility: FRAGMENT, texture: { sampleType: 'float', viewDimension: 'cube' } },
    { binding: FrameBinding.ENVIRONMENT_SAMPLER, visibility: FRAGMENT, sampler: { type: 'filtering' } },
    { binding: FrameBinding.BRDF_LUT, visibility: FRAGMENT, texture: { sampleType: 'float' } },
    { binding: FrameBinding.ENVIRONMENT_BACKGROUND, visibility: FRAGMENT, texture: { sampleType: 'float', viewDimension: 'cube' } },
  ];
}

/**
 * The frame group's environment entries for `environment` (with the device's BRDF table,
 * `lut`: prefilter.ts `brdfLut`) and the skybox's `background`, or the placeholders'
 * (legacy lighting, no skybox).
 */
export function environmentBindGroupEntries(
  device: GPUDevice, placeholder: EnvironmentPlaceholder, environment: Environment | undefined, background: Environment | undefined, lut: GPUTextureView | undefined,
): GPUBindGroupEntry[] {
  return [
    { binding: FrameBinding.ENVIRONMENT_SPECULAR, resource: environment?.specularView ?? placeholder.cubeView },
    { binding: FrameBinding.ENVIRONMENT_SAMPLER, resource: environmentSampler(device) },
    { binding: FrameBinding.BRDF_LUT, resource: lut ?? placeholder.lutView },
    { binding: FrameBinding.ENVIRONMENT_BACKGROUND, resource: background?.radianceView ?? placeholder.cubeView },
  ];
}
