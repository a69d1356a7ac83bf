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
} as const;

/**
 * Largest and smallest face size of the radiance cube made from the image (the skybox and the
 * specular source): one cube texel per image texel at the equator (a quarter of its width),
 * so a small or soft image (`neutral`: 256 wide) costs a small cube — on a CPU rasteriser
 * the cube's size is most of the prefilter's time.
 */
export const RADIANCE_CUBE_SIZE = 512;
export const MIN_RADIANCE_CUBE_SIZE = 128;
/** Widest equirect uploaded: 4 × RADIANCE_CUBE_SIZE texels round, one per cube texel at the equator. */
export const MAX_EQUIRECT_WIDTH = 4 * RADIANCE_CUBE_SIZE;
/** The specular chain's level 0 is the radiance cube's level log2 of this (a quarter of its size). */
export const SPECULAR_SIZE_RATIO = 4;
/** Levels of the specular chain (roughness = level / (levels − 1)). */
export const SPECULAR_LEVELS = 6;

/** The radiance cube's face size for an equirect image `width` texels wide (a power of two). */
export function radianceCubeSize(width: number): number {
  const size = 2 ** Math.ceil(Math.log2(Math.max(1, width / 4)));
  return Math.min(RADIANCE_CUBE_SIZE, Math.max(MIN_RADIANCE_CUBE_SIZE, size));
}
/** GGX samples per texel of the rough levels (filtered importance sampling keeps this low). */
export const SPECULAR_SAMPLES = 64;
/** Nine SH coefficients (sh9.ts), each a vec4f (rgb, 0) in the frame uniforms: `array<vec4f, 9>`. */
export const IRRADIANCE_COEFFICIENTS = 9;
/** Size of the split-sum BRDF table (n·v across, roughness down), rg16float. */
export const BRDF_LUT_SIZE = 64;
export const ENVIRONMENT_FORMAT: GPUTextureFormat = 'rgba16float';
