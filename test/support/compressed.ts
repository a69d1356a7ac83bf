import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Logger, NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { draco, meshopt, quantize, unpartition } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { cachedFixture, makerHash } from './fixture-cache.ts';

/**
 * Compressed and quantized variants of a model, made in memory at test time with
 * glTF-Transform and the same packages' encoders (nothing is written to the repo). Each
 * variant is what a user gets from the common tools: `gltf-transform draco`, `meshopt`
 * (gltfpack's defaults: quantized, reordered, filtered) and `quantize`.
 */
export type CompressedVariant = 'draco' | 'meshopt' | 'quantized';

export const COMPRESSED_VARIANTS: readonly CompressedVariant[] = ['draco', 'meshopt', 'quantized'];

/** What each variant adds to `extensionsRequired` (sorted). */
export const VARIANT_REQUIRES: Readonly<Record<CompressedVariant, readonly string[]>> = {
  draco: ['KHR_draco_mesh_compression'],
  meshopt: ['EXT_meshopt_compression', 'KHR_mesh_quantization'],
  quantized: ['KHR_mesh_quantization'],
};

let ioPromise: Promise<NodeIO> | undefined;

/** One glTF-Transform I/O for every test file, with every extension and both codecs' encoders and decoders. */
export function compressionIO(): Promise<NodeIO> {
  ioPromise ??= (async () => {
    const [encoder, decoder] = await Promise.all([draco3d.createEncoderModule({}), draco3d.createDecoderModule({})]);
    await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
    return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'draco3d.encoder': encoder,
      'draco3d.decoder': decoder,
      'meshopt.encoder': MeshoptEncoder,
      'meshopt.decoder': MeshoptDecoder,
    });
  })();
  return ioPromise;
}

async function applyVariant(doc: Document, variant: CompressedVariant): Promise<void> {
  // The transforms report what they pruned; tests want only warnings.
  doc.setLogger(new Logger(Logger.Verbosity.WARN));
  // A GLB holds one buffer; a .gltf may have several.
  await doc.transform(unpartition());
  switch (variant) {
    case 'draco':
      // Edgebreaker (the default) reorders vertices; glTF-Transform falls back to sequential
      // for primitives with morph targets so their uncompressed deltas stay valid.
      await doc.transform(draco());
      break;
    case 'meshopt':
      // 'high' adds the octahedral/quaternion/exponential filters on top of quantization.
      await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'high' }));
      break;
    case 'quantized':
      await doc.transform(quantize());
      break;
  }
}

/**
 * What makes a variant (fixture-cache.ts): this module's code and the versions of glTF-Transform
 * and the encoders. A variant of a shared asset costs up to several seconds of CPU (meshopt on
 * RecursiveSkeletons), and the node, gpu and browser tests ask for the same ones.
 */
const variantMaker = makerHash([import.meta.filename], ['@gltf-transform/core', '@gltf-transform/extensions', '@gltf-transform/functions', 'draco3dgltf', 'meshoptimizer']);

/** The variant of a GLB, as GLB bytes (made once for the same bytes: node_modules/.cache/compressed-glb). */
export function compressGlb(glb: Uint8Array, variant: CompressedVariant): Promise<Uint8Array> {
  return cachedFixture('compressed-glb', [variantMaker, variant, glb], async () => {
    const io = await compressionIO();
    const doc = await io.readBinary(glb);
    await applyVariant(doc, variant);
    return io.writeBinary(doc);
  });
}

/**
 * The variant of a model file on disk (.glb, or .gltf with embedded or relative buffers), as GLB
 * bytes; kept by the bytes of the file and of every file its buffers and images name.
 */
export async function compressFile(path: string, variant: CompressedVariant): Promise<Uint8Array> {
  const bytes = new Uint8Array(readFileSync(path));
  if (path.toLowerCase().endsWith('.glb')) return compressGlb(bytes, variant);
  const json = JSON.parse(new TextDecoder().decode(bytes)) as { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
  const external = [...(json.buffers ?? []), ...(json.images ?? [])]
    .flatMap((r) => (r.uri === undefined || r.uri.startsWith('data:') ? [] : [new Uint8Array(readFileSync(join(dirname(path), decodeURIComponent(r.uri))))]));
  return cachedFixture('compressed-glb', [variantMaker, variant, bytes, ...external], async () => {
    const io = await compressionIO();
    const doc = await io.read(path);
    await applyVariant(doc, variant);
    return io.writeBinary(doc);
  });
}

/** Reads any GLB back with glTF-Transform (decoding Draco and meshopt with the packages' own decoders). */
export async function readBack(glb: Uint8Array): Promise<Document> {
  return (await compressionIO()).readBinary(glb);
}
