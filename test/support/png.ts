/**
 * Image files in Node tests: PNG encoding of rendered frames for test-artifacts/, and
 * the PNG/JPEG decoder the GPU upload uses in Node instead of the browser's
 * createImageBitmap (pure-JS devDependencies: pngjs, jpeg-js).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Image } from '../../src/gltf/model.ts';
import type { DecodedPixels, ImageDecoder } from '../../src/gpu/textures/textures.ts';

/** Rendered images for people to look at; git-ignored. */
export const ARTIFACTS_DIR = resolve(import.meta.dirname, '../../test-artifacts');

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return signature.every((b, i) => bytes[i] === b);
}

/** RGBA8 (straight alpha, top row first) → PNG file bytes. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const png = new PNG({ width, height });
  png.data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  return new Uint8Array(PNG.sync.write(png));
}

/** Writes an RGBA8 image as `test-artifacts/<name>.png`; returns the path. */
export function writeArtifactPng(name: string, width: number, height: number, rgba: Uint8Array): string {
  const path = resolve(ARTIFACTS_DIR, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, encodePng(width, height, rgba));
  return path;
}

/** Decodes PNG or JPEG bytes (by signature, whatever the mimeType says) to RGBA8. */
export function decodeImageBytes(bytes: Uint8Array): DecodedPixels {
  if (startsWith(bytes, PNG_SIGNATURE)) {
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength) };
  }
  if (startsWith(bytes, JPEG_SIGNATURE)) {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
    return { width: img.width, height: img.height, data: img.data };
  }
  throw new Error('not a PNG or JPEG file');
}

/**
 * Decoded images by the SHA-1 of their file bytes: the GPU tests upload the same few textures
 * (CesiumMan's 1024² JPEG, the Fox's 1024² PNG) dozens of times a run, each decode a few
 * hundred milliseconds of pure-JS jpeg-js/pngjs; the Renderer only reads what it is given.
 * Bounded (least recently used out first); a failed decode is not kept, so it fails every time.
 */
const decodedByHash = new Map<string, DecodedPixels>();
const DECODED_CACHE_ENTRIES = 12;

/** `decodeImageBytes`, once per distinct file for the worker; each call gets its own copy of the pixels. */
export function decodeImageBytesCached(bytes: Uint8Array): DecodedPixels {
  const key = createHash('sha1').update(bytes).digest('hex');
  let decoded = decodedByHash.get(key);
  if (decoded) decodedByHash.delete(key);
  else decoded = decodeImageBytes(bytes);
  decodedByHash.set(key, decoded);
  if (decodedByHash.size > DECODED_CACHE_ENTRIES) decodedByHash.delete(decodedByHash.keys().next().value!);
  return { width: decoded.width, height: decoded.height, data: decoded.data.slice() };
}

/** The ImageDecoder for Node tests. */
export const nodeImageDecoder: ImageDecoder = async (image: Image) => decodeImageBytesCached(image.bytes);

/** The fraction of an RGBA8 image's pixels that differ from its top-left (background) pixel by more than 24 in R+G+B. */
export function coverage(image: { data: Uint8Array | Uint8ClampedArray }): number {
  const d = image.data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) n++;
  return n / (d.length / 4);
}
