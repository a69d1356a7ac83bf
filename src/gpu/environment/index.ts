/**
 * `skinned-mesh-webgpu/environment`: image-based lighting from files — the `.hdr`, `.exr` and
 * 8-bit image codecs, the neutral studio, and the prefilter that turns an equirect image into
 * an `Environment` for the Renderer. Also part of the full API (`.`).
 *
 * @module skinned-mesh-webgpu/environment
 */
export type { Environment } from './environment.ts';
export { EnvironmentError, type EquirectImage } from './equirect.ts';
export { parseHdr, writeHdr } from './hdr.ts';
export { parseExrEnvironment } from './exr.ts';
export { neutralEnvironment } from './neutral.ts';
export { decodeImageEnvironment } from './srgb-image.ts';
export { prefilterEnvironment } from './prefilter.ts';
