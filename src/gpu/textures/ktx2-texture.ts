/**
 * KHR_texture_basisu on the GPU: a texture whose preferred sources are KTX2 images gets the
 * first one that transcodes (ktx2-transcode.ts), with the file's own mip chain, in the best
 * format the device has. One that cannot be used falls back to the texture's next source (the
 * plain `source`, decoded as usual) with a warning; with nothing to fall back to, the load
 * fails with a GltfError naming the image. Upload-time only.
 */
import { LoadBudget } from '../../gltf/budget.ts';
import { GltfError, type GltfWarning } from '../../gltf/errors.ts';
import { KTX2_MIME_TYPE } from '../../gltf/extensions/khr-texture-basisu.ts';
import type { Image, Model } from '../../gltf/model.ts';
import { transcodeKtx2OffThread } from './ktx2-offthread.ts';
import type { TranscodedKtx2 } from './ktx2-transcode.ts';

const BLOCK = 4;
const RGBA8_BYTES = 4;
/** «KTX 20»\r\n\x1A\n */
const KTX2_MAGIC = [0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a] as const;

/** Whether `image` is KTX2, by its mimeType or, lacking one, its first bytes. */
export function isKtx2Image(image: Image): boolean {
  if (image.mimeType !== undefined) return image.mimeType === KTX2_MIME_TYPE;
  return KTX2_MAGIC.every((b, i) => image.bytes[i] === b);
}

/** A sampled texture of transcoded levels (COPY_SRC so tests and tools can read it back). */
export function createKtx2Texture(device: GPUDevice, t: TranscodedKtx2, label: string): GPUTexture {
  const base = t.levels[0];
  const texture = device.createTexture({
    label,
    size: [base.width, base.height],
    format: t.format,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC,
    mipLevelCount: t.levels.length,
  });
  t.levels.forEach((level, mipLevel) => {
    const data = level.data as Uint8Array<ArrayBuffer>;
    if (t.blockBytes === 0) {
      device.queue.writeTexture({ texture, mipLevel }, data, { bytesPerRow: level.width * RGBA8_BYTES, rowsPerImage: level.height }, [level.width, level.height]);
    } else {
      // Compressed levels are copied whole blocks at a time: the physical size of a 2×2 level is 4×4.
      const blocksWide = Math.ceil(level.width / BLOCK);
      const blocksHigh = Math.ceil(level.height / BLOCK);
      device.queue.writeTexture({ texture, mipLevel }, data, { bytesPerRow: blocksWide * t.blockBytes, rowsPerImage: blocksHigh }, [blocksWide * BLOCK, blocksHigh * BLOCK]);
    }
  });
  return texture;
}

/**
 * What one upload's KTX2 transcoding is charged to: the model's load budget, resumed where the
 * load left it (a model built in code, without one, gets the budget of a load of its images).
 */
export function ktx2UploadBudget(model: Model): LoadBudget {
  if (model.loadBudget) return LoadBudget.resume(model.loadBudget);
  return LoadBudget.forInput(model.images.reduce((sum, image) => sum + image.bytes.byteLength, 0));
}

/** What `uploadKtx2Source` did: a texture, or the candidates left for the image decoder. */
export type Ktx2SourceResult = { readonly texture: GPUTexture; readonly source: number } | { readonly rest: readonly number[] };

/**
 * Transcodes (in a worker on pages: ktx2-offthread.ts) and uploads the leading KTX2 images of
 * `candidates` (textureSourceCandidates), the first that works winning; the transcoded bytes
 * are charged to `budget` (ktx2UploadBudget, one per upload of a model). Each refusal becomes a warning when a later candidate remains, and
 * a GltfError naming the image when none does. Returns the remaining (non-KTX2) candidates when
 * the first one is not KTX2.
 */
export async function uploadKtx2Source(
  device: GPUDevice, model: Model, candidates: readonly number[], srgb: boolean, maxDimension: number,
  label: string, usedAt: string, warnings: GltfWarning[], budget: LoadBudget,
): Promise<Ktx2SourceResult> {
  for (let i = 0; i < candidates.length; i++) {
    const source = candidates[i];
    const image = model.images[source];
    if (!isKtx2Image(image)) return { rest: candidates.slice(i) };
    const path = `images[${source}]`;
    try {
      const t = await transcodeKtx2OffThread(image.bytes, path, { features: device.features, srgb, maxDimension, budget });
      if (t.downscaledFrom) {
        warnings.push({
          path,
          message: `${t.downscaledFrom.width}×${t.downscaledFrom.height} exceeds the device's maxTextureDimension2D (${maxDimension}); drawn from its ${t.levels[0].width}×${t.levels[0].height} mip level`,
        });
      }
      const name = image.name ? ` "${image.name}"` : '';
      return { texture: createKtx2Texture(device, t, `${label} ${path}${name} (KTX2 ${t.format})`), source };
    } catch (e) {
      if (!(e instanceof GltfError)) throw e;
      if (i === candidates.length - 1) throw new GltfError(e.path, `${e.problem} (used by ${usedAt})`);
      warnings.push({ path: usedAt, message: `${e.message}; falling back to images[${candidates[i + 1]}]` });
    }
  }
  return { rest: [] };
}
