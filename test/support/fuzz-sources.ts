/**
 * What the loader fuzzer (test/gltf/fuzz.test.ts) mutates, in case-index order: every shared
 * asset as it is, then variants made at test time. `npm run bench -- --hostile-loads` times
 * the same cases.
 */
import { assetPath, sharedAssets } from './assets.ts';
import { compressFile } from './compressed.ts';
import { fuzzSourceOf, loadFuzzSources, type FuzzSource } from './fuzz.ts';
import { encodeKtx2, gradientImage, ktx2Quad } from './ktx2.ts';
import { encodePng } from './png.ts';
import { COLOUR_VARIANTS, variantFileBytes } from './variant-files.ts';

/** A source whose loaded models also have their KTX2 images transcoded, as an upload would. */
export type FuzzSourceWithKtx2 = FuzzSource & { readonly ktx2?: boolean };

export async function fuzzSources(): Promise<FuzzSourceWithKtx2[]> {
  /**
   * Besides the assets as they are, one meshopt-compressed and quantized variant (made with
   * glTF-Transform, as compressed.ts does for every test): its byte mutations land in
   * compressed streams (ATTRIBUTES with the OCTAHEDRAL, QUATERNION and EXPONENTIAL filters,
   * TRIANGLES), its JSON mutations in the extension objects and the fallback buffer.
   */
  const meshopt = fuzzSourceOf('RiggedFigure (meshopt)', await compressFile(assetPath('RiggedFigure'), 'meshopt'));
  // And the Fox as glTF-Transform's `draco()` writes it: bit flips land in its Draco stream.
  const draco = fuzzSourceOf('Fox (Draco)', await compressFile(assetPath('Fox'), 'draco'));
  // Two quads with KHR_materials_variants: JSON mutations land in the variant names and mappings.
  const variants = fuzzSourceOf('variants quads', variantFileBytes(COLOUR_VARIANTS));
  /**
   * KHR_texture_basisu: a quad whose base colour is a KTX2 image, ETC1S (BasisLZ) alone and
   * UASTC with a PNG fallback; bit flips land in the KTX2 streams.
   */
  const image = gradientImage(32, 32);
  const ktx2 = [
    { ...fuzzSourceOf('KTX2 quad (ETC1S)', ktx2Quad(await encodeKtx2(image, { uastc: false }), undefined)), ktx2: true },
    { ...fuzzSourceOf('KTX2 quad (UASTC + PNG)', ktx2Quad(await encodeKtx2(image, { uastc: true }), encodePng(32, 32, image.data))), ktx2: true },
  ];
  return [...loadFuzzSources(sharedAssets()), meshopt, draco, variants, ...ktx2];
}
