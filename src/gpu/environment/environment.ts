/**
 * A prefiltered environment on the GPU (made by prefilter.ts): what the mesh shader lights
 * with and the skybox shows. The caller owns it: `destroy()` it when no renderer uses it.
 */
import { FrameBinding } from '../layouts.ts';
import { perDevice } from '../per-device.ts';
import { ENVIRONMENT_FORMAT, IRRADIANCE_BYTES } from './prefilter-params.ts';

export class Environment {
  /** Set by `destroy()`. */
  destroyed = false;

  constructor(
    /** The radiance cube (full mip chain): the skybox's image and the specular chain's source. */
    readonly radiance: GPUTexture,
    /** The GGX specular chain: level i for roughness i / (levels − 1). */
    readonly specular: GPUTexture,
    /** Nine SH coefficients (vec4f rgb each) of irradiance / π: shaders/sh9.wgsl. */
    readonly irradiance: GPUBuffer,
    /** Unit vector (world) towards the brightest part of the environment (its SH band 1): where its shadow is cast from. */
    readonly dominantDirection: Float32Array,
    /** The CPU copy of `irradiance` (27 floats used: rgb of each of the nine coefficients, stride 4). */
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

  destroy(): void {
    this.destroyed = true;
    this.radiance.destroy();
    this.specular.destroy();
    this.irradiance.destroy();
  }
}

/** What the frame bind group holds when no environment is set (legacy lighting): black 1×1 cubes, zero irradiance. */
export interface EnvironmentPlaceholder {
  readonly cubeView: GPUTextureView;
  readonly irradiance: GPUBuffer;
  /** Stands in for the BRDF table, which is made with the first environment. */
  readonly lutView: GPUTextureView;
}

export const environmentPlaceholder = perDevice((device): EnvironmentPlaceholder => {
  const cube = device.createTexture({
    label: 'environment placeholder cube', size: [1, 1, 6], format: ENVIRONMENT_FORMAT, usage: GPUTextureUsage.TEXTURE_BINDING,
  });
  const irradiance = device.createBuffer({ label: 'environment placeholder irradiance', size: IRRADIANCE_BYTES, usage: GPUBufferUsage.UNIFORM });
  const lut = device.createTexture({ label: 'BRDF table placeholder', size: [1, 1], format: 'rg16float', usage: GPUTextureUsage.TEXTURE_BINDING });
  return {
    cubeView: cube.createView({ label: 'environment placeholder cube view', dimension: 'cube' }), irradiance,
    lutView: lut.createView({ label: 'BRDF table placeholder view' }),
  };
});

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
    { binding: FrameBinding.ENVIRONMENT_IRRADIANCE, visibility: FRAGMENT, buffer: { type: 'uniform', minBindingSize: IRRADIANCE_BYTES } },
    { binding: FrameBinding.ENVIRONMENT_BACKGROUND, visibility: FRAGMENT, texture: { sampleType: 'float', viewDimension: 'cube' } },
  ];
}

/**
 * The frame group's environment entries for `environment` (with the device's BRDF table,
 * `lut`: prefilter.ts `brdfLut`) and the skybox's `background`, or the placeholders'
 * (legacy lighting, no skybox).
 */
export function environmentBindGroupEntries(
  device: GPUDevice, environment: Environment | undefined, background: Environment | undefined, lut: GPUTextureView | undefined,
): GPUBindGroupEntry[] {
  const placeholder = environmentPlaceholder(device);
  return [
    { binding: FrameBinding.ENVIRONMENT_SPECULAR, resource: environment?.specularView ?? placeholder.cubeView },
    { binding: FrameBinding.ENVIRONMENT_SAMPLER, resource: environmentSampler(device) },
    { binding: FrameBinding.BRDF_LUT, resource: lut ?? placeholder.lutView },
    { binding: FrameBinding.ENVIRONMENT_IRRADIANCE, resource: { buffer: environment?.irradiance ?? placeholder.irradiance } },
    { binding: FrameBinding.ENVIRONMENT_BACKGROUND, resource: background?.radianceView ?? placeholder.cubeView },
  ];
}
