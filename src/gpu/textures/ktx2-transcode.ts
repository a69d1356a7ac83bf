/**
 * KHR_texture_basisu: a KTX2 image (ETC1S or UASTC Basis Universal data) transcoded to what
 * the device samples. The header is read and checked with `ktx-parse` before any byte reaches
 * the transcoder, so hostile dimensions or level ranges are refused without allocating; the
 * transcoding itself is Binomial's (basis-transcoder.ts). Upload-time only: loading a file
 * never transcodes.
 *
 * Target formats are ranked as three.js r187's KTX2Loader ranks them: UASTC → ASTC 4×4, BC7,
 * ETC2; ETC1S → ETC2 (ETC1 when opaque), BC7; RGBA8 as the last resort, and whenever the base
 * level is not a multiple of the 4×4 block (WebGPU cannot create such a compressed texture).
 */
import { read, type KTX2Container } from 'ktx-parse';
import type { LoadBudget } from '../../gltf/budget.ts';
import { GltfError } from '../../gltf/errors.ts';
import { BasisFormat, loadBasisTranscoder, retireBasisTranscoder, type BasisKtx2File } from './basis-transcoder.ts';

/** KTX2's "no Vulkan format": Basis Universal data. */
const VK_FORMAT_UNDEFINED = 0;
const KTX2_SUPERCOMPRESSION_BASISLZ = 1;
const KTX2_SUPERCOMPRESSION_ZSTD = 2;
const BLOCK = 4;
const BLOCK_BYTES_16 = 16;
const BLOCK_BYTES_8 = 8;
const RGBA8_BYTES = 4;

/** The WebGPU features that allow each compressed target. */
export const FEATURE_BC = 'texture-compression-bc';
export const FEATURE_ETC2 = 'texture-compression-etc2';
export const FEATURE_ASTC = 'texture-compression-astc';

interface Target {
  readonly basis: number;
  readonly linear: GPUTextureFormat;
  readonly srgb: GPUTextureFormat;
  /** Bytes per 4×4 block; 0 for uncompressed RGBA8. */
  readonly blockBytes: number;
}

const ASTC: Target = { basis: BasisFormat.ASTC_4X4_RGBA, linear: 'astc-4x4-unorm', srgb: 'astc-4x4-unorm-srgb', blockBytes: BLOCK_BYTES_16 };
const BC7: Target = { basis: BasisFormat.BC7_RGBA, linear: 'bc7-rgba-unorm', srgb: 'bc7-rgba-unorm-srgb', blockBytes: BLOCK_BYTES_16 };
const ETC2_RGBA: Target = { basis: BasisFormat.ETC2_RGBA, linear: 'etc2-rgba8unorm', srgb: 'etc2-rgba8unorm-srgb', blockBytes: BLOCK_BYTES_16 };
const ETC1_RGB: Target = { basis: BasisFormat.ETC1_RGB, linear: 'etc2-rgb8unorm', srgb: 'etc2-rgb8unorm-srgb', blockBytes: BLOCK_BYTES_8 };
const RGBA8: Target = { basis: BasisFormat.RGBA32, linear: 'rgba8unorm', srgb: 'rgba8unorm-srgb', blockBytes: 0 };

export interface Ktx2Level {
  readonly width: number;
  readonly height: number;
  /** Blocks (row-major, `blockBytes` each) for a compressed format, RGBA8 rows otherwise. */
  readonly data: Uint8Array;
}

export interface TranscodedKtx2 {
  readonly format: GPUTextureFormat;
  /** Bytes per 4×4 block, 0 for RGBA8. */
  readonly blockBytes: number;
  /** The file's mip chain, largest first (levels larger than `maxDimension` dropped). */
  readonly levels: readonly Ktx2Level[];
  /** Set when levels were dropped to fit `maxDimension`. */
  readonly downscaledFrom?: { readonly width: number; readonly height: number };
}

export interface Ktx2Options {
  /** The device's features (GPUDevice.features). */
  readonly features: ReadonlySet<string>;
  /** Colour data (base colour, emissive): an sRGB format; else linear. */
  readonly srgb: boolean;
  /** The device's maxTextureDimension2D. */
  readonly maxDimension: number;
  /**
   * Charged with the transcoded levels' bytes before they are allocated (the model's load
   * budget, resumed: a tiny file claiming a huge image is refused, naming it).
   */
  readonly budget?: LoadBudget;
}

/** The checked header: what the transcoder is then asked for. */
export interface Ktx2Header {
  readonly width: number;
  readonly height: number;
  readonly levelCount: number;
  readonly uastc: boolean;
}

/** Reads and checks a KTX2 header (GltfError naming `path` when it is not a 2D Basis texture). */
export function readKtx2Header(bytes: Uint8Array, path: string): Ktx2Header {
  let container: KTX2Container;
  try {
    container = read(bytes);
  } catch (e) {
    throw new GltfError(path, `not a valid KTX2 file: ${(e as Error).message}`);
  }
  const { pixelWidth: width, pixelHeight: height, pixelDepth, layerCount, faceCount, levels, vkFormat, supercompressionScheme } = container;
  if (vkFormat !== VK_FORMAT_UNDEFINED) throw new GltfError(path, `KTX2 vkFormat ${vkFormat} is not Basis Universal data (KHR_texture_basisu needs VK_FORMAT_UNDEFINED)`);
  if (!(width >= 1 && height >= 1) || pixelDepth > 1 || layerCount > 1 || faceCount !== 1) {
    throw new GltfError(path, `KTX2 image is ${width}×${height}×${pixelDepth}, ${layerCount} layers, ${faceCount} faces; KHR_texture_basisu needs a single 2D image`);
  }
  const maxLevels = Math.floor(Math.log2(Math.max(width, height))) + 1;
  if (levels.length < 1 || levels.length > maxLevels) throw new GltfError(path, `KTX2 has ${levels.length} mip levels; ${width}×${height} allows 1 to ${maxLevels}`);
  const uastc = supercompressionScheme !== KTX2_SUPERCOMPRESSION_BASISLZ;
  if (uastc && supercompressionScheme !== 0 && supercompressionScheme !== KTX2_SUPERCOMPRESSION_ZSTD) {
    throw new GltfError(path, `KTX2 supercompression scheme ${supercompressionScheme} is not one Basis Universal uses`);
  }
  return { width, height, levelCount: levels.length, uastc };
}

/** The target for a Basis `uastc`/ETC1S texture of base level `width`×`height` on a device with `features`. */
function chooseTarget(uastc: boolean, hasAlpha: boolean, width: number, height: number, features: ReadonlySet<string>): Target {
  if (width % BLOCK !== 0 || height % BLOCK !== 0) return RGBA8;
  const etc2 = features.has(FEATURE_ETC2) ? (hasAlpha || uastc ? ETC2_RGBA : ETC1_RGB) : undefined;
  const bc7 = features.has(FEATURE_BC) ? BC7 : undefined;
  const astc = features.has(FEATURE_ASTC) && uastc ? ASTC : undefined;
  return (uastc ? astc ?? bc7 ?? etc2 : etc2 ?? bc7) ?? RGBA8;
}

/** Bytes of mip `level` of `header`'s image in `target`'s format. */
function levelBytes(target: Target, header: Ktx2Header, level: number): number {
  const width = Math.max(1, header.width >> level);
  const height = Math.max(1, header.height >> level);
  return target.blockBytes === 0 ? width * height * RGBA8_BYTES : Math.ceil(width / BLOCK) * Math.ceil(height / BLOCK) * target.blockBytes;
}

/**
 * Transcodes the KTX2 `bytes` (at `path`, e.g. `images[3]`) for a device. Levels larger than
 * `maxDimension` are skipped (refused when no level fits). Any refusal, by ktx-parse or by the
 * transcoder, is a GltfError naming `path`.
 */
export async function transcodeKtx2(bytes: Uint8Array, path: string, options: Ktx2Options): Promise<TranscodedKtx2> {
  const header = readKtx2Header(bytes, path);
  let first = 0;
  while (first < header.levelCount && Math.max(header.width >> first, header.height >> first) > options.maxDimension) first++;
  if (first === header.levelCount) {
    throw new GltfError(path, `KTX2 image ${header.width}×${header.height} has no mip level within the device's maxTextureDimension2D (${options.maxDimension})`);
  }
  const module = await loadBasisTranscoder().catch((e: unknown) => {
    throw new GltfError(path, `the Basis transcoder could not load: ${e instanceof Error ? e.message : String(e)}`);
  });
  let file: BasisKtx2File | undefined;
  try {
    file = new module.KTX2File(bytes);
    if (!file.isValid()) throw new GltfError(path, 'the Basis transcoder refuses this KTX2 file');
    if (file.getWidth() !== header.width || file.getHeight() !== header.height || file.getLevels() !== header.levelCount || file.isUASTC() !== header.uastc) {
      throw new GltfError(path, 'the Basis transcoder reads a different header than ktx-parse');
    }
    if (!file.isUASTC() && !file.isETC1S()) throw new GltfError(path, 'KTX2 data is neither ETC1S nor UASTC');
    const baseWidth = Math.max(1, header.width >> first);
    const baseHeight = Math.max(1, header.height >> first);
    const target = chooseTarget(header.uastc, file.getHasAlpha(), baseWidth, baseHeight, options.features);
    let total = 0;
    for (let level = first; level < header.levelCount; level++) total += levelBytes(target, header, level);
    options.budget?.charge(total, path);
    if (!file.startTranscoding()) throw new GltfError(path, 'the Basis transcoder could not start on this KTX2 file');
    const levels: Ktx2Level[] = [];
    for (let level = first; level < header.levelCount; level++) {
      const width = Math.max(1, header.width >> level);
      const height = Math.max(1, header.height >> level);
      const expected = levelBytes(target, header, level);
      const size = file.getImageTranscodedSizeInBytes(level, 0, 0, target.basis);
      if (size !== expected) throw new GltfError(path, `mip level ${level} transcodes to ${size} bytes, ${width}×${height} needs ${expected}`);
      const data = new Uint8Array(size);
      if (!file.transcodeImage(data, level, 0, 0, target.basis, 0, -1, -1)) {
        throw new GltfError(path, `the Basis transcoder could not decode mip level ${level} (corrupt data)`);
      }
      levels.push({ width, height, data });
    }
    return {
      format: options.srgb ? target.srgb : target.linear,
      blockBytes: target.blockBytes,
      levels,
      ...(first > 0 ? { downscaledFrom: { width: header.width, height: header.height } } : {}),
    };
  } catch (e) {
    if (e instanceof GltfError) throw e;
    // A trap inside the WebAssembly leaves its heap in an unknown state: start afresh next time.
    retireBasisTranscoder(module);
    throw new GltfError(path, `the Basis transcoder failed: ${(e as Error).message ?? String(e)}`);
  } finally {
    if (file) {
      try { file.close(); file.delete(); } catch { /* already torn down by a trap */ }
    }
  }
}
