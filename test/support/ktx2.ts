/**
 * KTX2 (Basis Universal) fixtures encoded at test time with the `ktx2-encoder` package
 * (Binomial's basis_encoder.wasm): ETC1S or UASTC, with a generated mip chain.
 */
import { encodeToKTX2 } from 'ktx2-encoder';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import type { GltfBuilder } from '../../src/gltf/builder.ts';
import { buildMaterialQuad } from '../gpu/fixtures.ts';
import { compressionIO } from './compressed.ts';
import { decodeImageBytes } from './png.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedFixture, makerHash } from './fixture-cache.ts';

export interface Rgba8Image {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export interface Ktx2EncodeOptions {
  readonly uastc: boolean;
  /** Encode as colour (sRGB transfer function, perceptual metrics); false for data textures. */
  readonly srgb?: boolean;
  readonly mipmaps?: boolean;
  /**
   * UASTC's "faster" pack level (Basis Universal's cPackUASTCLevelFaster) instead of its default:
   * a fifth of the CPU for nearly the same blocks (CesiumMan's texture: mean error 0.25 against
   * 0.24 levels of 255). At the fastest level (a fifteenth) the KTX2 CesiumMan drawn small in
   * Chromium went past compressed-assets-render.test.ts's colour limit (3.7 % of its pixels off
   * by more than 24 levels, against 1.4 % at the default level; the limit is 3 %).
   */
  readonly faster?: boolean;
}

/** Basis Universal's cPackUASTCLevelFaster (ktx2-encoder's uastcLDRQualityLevel). */
const UASTC_LEVEL_FASTER = 1;

/** `image` encoded as a KTX2 file. */
export async function encodeKtx2(image: Rgba8Image, options: Ktx2EncodeOptions): Promise<Uint8Array> {
  const srgb = options.srgb ?? true;
  // The encoder prints progress on stdout; keep test output readable.
  const log = console.log;
  console.log = () => {};
  try {
    return await encodeToKTX2(image.data, {
      isUASTC: options.uastc,
      isKTX2File: true,
      generateMipmap: options.mipmaps ?? true,
      isPerceptual: srgb,
      isSetKTX2SRGBTransferFunc: srgb,
      qualityLevel: 255,
      ...(options.faster ? { uastcLDRQualityLevel: UASTC_LEVEL_FASTER } : {}),
      imageDecoder: async () => ({ width: image.width, height: image.height, data: image.data }),
    });
  } finally {
    console.log = log;
  }
}

/** A smooth opaque test pattern (block compression keeps smooth gradients close). */
export function gradientImage(width: number, height: number): Rgba8Image {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.round((x / (width - 1)) * 255);
      data[i + 1] = Math.round((y / (height - 1)) * 255);
      data[i + 2] = 160;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/** An unlit quad drawing `ktx2` (KHR_texture_basisu) with `png` as the plain source, or none. */
export function ktx2Quad(ktx2: Uint8Array, png: Uint8Array | undefined): Uint8Array {
  return buildMaterialQuad((texture, b: GltfBuilder) => {
    const ktxImage = b.addImage(ktx2, 'image/ktx2');
    const extensions = { KHR_texture_basisu: { source: ktxImage } };
    const index = png ? texture(png, { extensions }) : b.addTexture({ extensions });
    b.json.extensionsUsed.push('KHR_texture_basisu');
    if (!png) b.json.extensionsRequired.push('KHR_texture_basisu');
    return { pbrMetallicRoughness: { baseColorTexture: { index } }, extensions: { KHR_materials_unlit: {} } };
  });
}
/** The same unlit quad drawing `png`. */
export const pngQuad = (png: Uint8Array) => buildMaterialQuad((texture) => ({
  pbrMetallicRoughness: { baseColorTexture: { index: texture(png) } }, extensions: { KHR_materials_unlit: {} },
}));


/**
 * ktx2Glb's files are kept (fixture-cache.ts) by what makes them: the input's bytes, this module's
 * and compressed.ts's code (the encoder's options and the glTF writer) and the encoder's and
 * glTF-Transform's versions. Four test files ask for CesiumMan's (two browser lanes and the gpu
 * lane), and compressed-assets-render.test.ts for the Fox's and InterpolationTest's too.
 */
const ktx2GlbMaker = makerHash([import.meta.filename, join(import.meta.dirname, 'compressed.ts')], ['ktx2-encoder', '@gltf-transform/core', '@gltf-transform/extensions']);

/**
 * `glb` with every texture re-encoded as UASTC KTX2 (KHR_texture_basisu, required, no plain
 * source left), at its full size with a generated mip chain, at UASTC's "faster" pack level
 * (Ktx2EncodeOptions.faster: CesiumMan's 1024² costs ~1 s of CPU there against ~5–7 s at the
 * default level, which every CI run paid with its cold cache). Colour textures (base colour,
 * emissive) are encoded as sRGB, the others as linear data. Geometry is untouched. Encoded once
 * for the same input (node_modules/.cache/ktx2-glb), and again whenever the encoding could differ.
 */
export function ktx2Glb(glb: Uint8Array): Promise<Uint8Array> {
  return cachedFixture('ktx2-glb', [ktx2GlbMaker, glb], () => encodeKtx2Glb(glb));
}

/** The MIME types of the images ktx2Glb re-encodes (those decodeImageBytes reads). */
const ENCODED_MIME_TYPES = new Set(['image/png', 'image/jpeg']);

async function encodeKtx2Glb(glb: Uint8Array): Promise<Uint8Array> {
  const io = await compressionIO();
  const doc = await io.readBinary(glb);
  const root = doc.getRoot();
  const colour = new Set(root.listMaterials().flatMap((m) => [m.getBaseColorTexture(), m.getEmissiveTexture()]));
  let encoded = 0;
  // One at a time: the encoder is one WebAssembly instance, and the textures are few.
  for (const texture of root.listTextures()) {
    const bytes = texture.getImage();
    if (!bytes || !ENCODED_MIME_TYPES.has(texture.getMimeType())) continue;
    const decoded = decodeImageBytes(bytes);
    const image = { width: decoded.width, height: decoded.height, data: new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength) };
    texture.setImage(await encodeKtx2(image, { uastc: true, srgb: colour.has(texture), faster: true })).setMimeType('image/ktx2');
    encoded++;
  }
  if (encoded > 0) doc.createExtension(KHRTextureBasisu).setRequired(true);
  return io.writeBinary(doc);
}

/** Whether the model file at `path` (.glb or .gltf) has images: the shared assets that get a KTX2 variant. */
export function fileHasImages(path: string): boolean {
  const bytes = readFileSync(path);
  const text = path.toLowerCase().endsWith('.glb') ? bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8') : bytes.toString('utf8');
  return (JSON.parse(text).images ?? []).length > 0;
}
