/**
 * The real-world shapes of files using the PBR material extensions, made at test time from the
 * shared assets with glTF-Transform (as the tools people run write them; nothing is written to
 * the repo):
 * - 'clearcoat-specular': every material given a clearcoat layer and a specular colour, as a
 *   VRoid export rewritten by glTF-Transform carries them;
 * - 'ior-specular': an index of refraction and specular strength, as gltfjsx writes Mixamo files;
 * - 'every-extension': all ten extensions on every material, the textures the material already
 *   has reused in the extensions' slots.
 */
import {
  KHRMaterialsAnisotropy, KHRMaterialsClearcoat, KHRMaterialsDiffuseTransmission, KHRMaterialsDispersion, KHRMaterialsIOR,
  KHRMaterialsIridescence, KHRMaterialsSheen, KHRMaterialsSpecular, KHRMaterialsTransmission, KHRMaterialsVolume,
} from '@gltf-transform/extensions';
import type { Document, Material, Texture } from '@gltf-transform/core';
import { unpartition } from '@gltf-transform/functions';
import { compressionIO } from './compressed.ts';
import { readFileSync } from 'node:fs';

export type MaterialCorpusVariant = 'clearcoat-specular' | 'ior-specular' | 'every-extension';
export const MATERIAL_CORPUS_VARIANTS: readonly MaterialCorpusVariant[] = ['clearcoat-specular', 'ior-specular', 'every-extension'];

function clearcoatSpecular(doc: Document, m: Material): void {
  m.setExtension('KHR_materials_clearcoat', doc.createExtension(KHRMaterialsClearcoat).createClearcoat().setClearcoatFactor(1).setClearcoatRoughnessFactor(0.08));
  m.setExtension('KHR_materials_specular', doc.createExtension(KHRMaterialsSpecular).createSpecular().setSpecularFactor(0.5).setSpecularColorFactor([1, 0.95, 0.9]));
}

function iorSpecular(doc: Document, m: Material): void {
  m.setExtension('KHR_materials_ior', doc.createExtension(KHRMaterialsIOR).createIOR().setIOR(1.45));
  m.setExtension('KHR_materials_specular', doc.createExtension(KHRMaterialsSpecular).createSpecular().setSpecularFactor(0.5));
}

function everyExtension(doc: Document, m: Material): void {
  const tex: Texture | null = m.getBaseColorTexture() ?? m.getMetallicRoughnessTexture();
  const coat = doc.createExtension(KHRMaterialsClearcoat).createClearcoat().setClearcoatFactor(0.5).setClearcoatRoughnessFactor(0.2);
  const spec = doc.createExtension(KHRMaterialsSpecular).createSpecular().setSpecularFactor(0.8).setSpecularColorFactor([1, 1, 1]);
  const sheen = doc.createExtension(KHRMaterialsSheen).createSheen().setSheenColorFactor([0.5, 0.5, 0.5]).setSheenRoughnessFactor(0.5);
  const transmission = doc.createExtension(KHRMaterialsTransmission).createTransmission().setTransmissionFactor(0.3);
  const volume = doc.createExtension(KHRMaterialsVolume).createVolume().setThicknessFactor(0.1).setAttenuationDistance(2).setAttenuationColor([1, 0.9, 0.8]);
  const irid = doc.createExtension(KHRMaterialsIridescence).createIridescence().setIridescenceFactor(0.5).setIridescenceIOR(1.3);
  const aniso = doc.createExtension(KHRMaterialsAnisotropy).createAnisotropy().setAnisotropyStrength(0.5).setAnisotropyRotation(0.3);
  const diffuse = doc.createExtension(KHRMaterialsDiffuseTransmission).createDiffuseTransmission().setDiffuseTransmissionFactor(0.2);
  if (tex) {
    coat.setClearcoatTexture(tex);
    spec.setSpecularColorTexture(tex);
    sheen.setSheenColorTexture(tex);
    transmission.setTransmissionTexture(tex);
    irid.setIridescenceThicknessTexture(tex);
    aniso.setAnisotropyTexture(tex);
    diffuse.setDiffuseTransmissionColorTexture(tex);
  }
  m.setExtension('KHR_materials_clearcoat', coat);
  m.setExtension('KHR_materials_specular', spec);
  m.setExtension('KHR_materials_ior', doc.createExtension(KHRMaterialsIOR).createIOR().setIOR(1.5));
  m.setExtension('KHR_materials_sheen', sheen);
  m.setExtension('KHR_materials_transmission', transmission);
  m.setExtension('KHR_materials_volume', volume);
  m.setExtension('KHR_materials_iridescence', irid);
  m.setExtension('KHR_materials_anisotropy', aniso);
  m.setExtension('KHR_materials_dispersion', doc.createExtension(KHRMaterialsDispersion).createDispersion().setDispersion(0.2));
  m.setExtension('KHR_materials_diffuse_transmission', diffuse);
}

const APPLY: Readonly<Record<MaterialCorpusVariant, (doc: Document, m: Material) => void>> = {
  'clearcoat-specular': clearcoatSpecular,
  'ior-specular': iorSpecular,
  'every-extension': everyExtension,
};

/** The variant of a shared asset (.glb or .gltf with its resources), as GLB bytes. */
export async function materialCorpusFile(path: string, variant: MaterialCorpusVariant): Promise<Uint8Array> {
  const io = await compressionIO();
  const doc = path.toLowerCase().endsWith('.glb') ? await io.readBinary(new Uint8Array(readFileSync(path))) : await io.read(path);
  for (const m of doc.getRoot().listMaterials()) APPLY[variant](doc, m);
  // A GLB holds one buffer; a .gltf may have several.
  await doc.transform(unpartition());
  return io.writeBinary(doc);
}
