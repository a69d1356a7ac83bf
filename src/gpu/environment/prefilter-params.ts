/**
 * Byte layout of `struct PrefilterParams` (shaders/environment.wgsl) and the prefilter's
 * bindings and sizes. test/gpu/environment/prefilter.test.ts checks them against the WGSL.
 */
export const PrefilterParamsOffset = {
  /** u32: cube face 0…5 (+X, −X, +Y, −Y, +Z, −Z). */
  FACE: 0,
  /** f32: perceptual roughness of the specular level being made. */
  ROUGHNESS: 4,
  /** u32: GGX samples per texel. */
  SAMPLE_COUNT: 8,
  /** f32: solid angle of a texel of the source cube's level 0. */
  SOURCE_TEXEL_SOLID_ANGLE: 12,
} as const;
export const PREFILTER_PARAMS_SIZE = 16;

/** Bindings of the prefilter's group 0 (each pipeline uses some: see the WGSL). */
export const PrefilterBinding = {
  PARAMS: 0,
  SAMPLER: 1,
  EQUIRECT: 2,
  SOURCE_CUBE: 3,
  IRRADIANCE_FACES: 4,
  IRRADIANCE_OUT: 5,
} as const;

/** Face size of the radiance cube made from the image (the skybox and the specular source). */
export const RADIANCE_CUBE_SIZE = 512;
/** Widest equirect uploaded: 4 × RADIANCE_CUBE_SIZE texels round, one per cube texel at the equator. */
export const MAX_EQUIRECT_WIDTH = 4 * RADIANCE_CUBE_SIZE;
/** Face size of the specular chain's level 0, and its levels (roughness level / (levels − 1)). */
export const SPECULAR_CUBE_SIZE = 128;
export const SPECULAR_LEVELS = 6;
/** GGX samples per texel of the rough levels (filtered importance sampling keeps this low). */
export const SPECULAR_SAMPLES = 64;
/** The radiance cube level projected on SH for the irradiance (32 × 32 per face). */
export const IRRADIANCE_SOURCE_LEVEL = 4;
/** Nine SH coefficients, each a vec4f (rgb, 0): `array<vec4f, 9>`. */
export const IRRADIANCE_COEFFICIENTS = 9;
export const IRRADIANCE_BYTES = IRRADIANCE_COEFFICIENTS * 16;
/** Size of the split-sum BRDF table (n·v across, roughness down), rg16float. */
export const BRDF_LUT_SIZE = 64;
export const ENVIRONMENT_FORMAT: GPUTextureFormat = 'rgba16float';
