/**
 * Which PBR material extensions change what a material looks like, and the upload of the
 * materials that have one (the PBR extensions path, pipelines/pbr-extensions-path.ts).
 *
 * An extension at values that change nothing is inert, and a material whose extensions are all
 * inert stays on the plain PBR path (tools write KHR_materials_ior 1.5 or a white
 * KHR_materials_specular on every material): a clearcoat, sheen, transmission, iridescence,
 * anisotropy or diffuse transmission of factor 0, a specular of factor 1 and white colour without
 * textures, an IOR of 1.5, a dispersion of 0, a volume without thickness or without a
 * transmission to hold it. An animated material keeps every extension it has: a clip may bring a
 * factor up from 0.
 *
 * Extension textures beyond what the device lets one pipeline sample are left out, with a warning
 * naming each (maxSampledTexturesPerShaderStage, 16 on every device and more on most).
 */
import { DEFAULT_IOR } from '../../gltf/extensions/khr-materials-ior.ts';
import type { Material } from '../../gltf/model.ts';
import type { PbrExtensions } from '../../gltf/pbr-extensions-model.ts';
import {
  EXTENDED_UNIFORMS_SIZE, EXTENSION_TEXTURE_COUNT, packAnimatedExtensionValues, EXTENSION_TEXTURE_SLOTS, EXTENSION_UNIFORMS_OFFSET, PBR_EXTENSION_UNIFORMS_SIZE, PbrExtensionBinding,
  PbrExtensionFeature, writePbrExtensionUniforms,
} from '../layouts/pbr-extension-uniforms.ts';
import { packMaterialUniforms } from '../layouts/material-uniforms.ts';
import type { MaterialTextures, MaterialUploadContext, MaterialUploader } from './material-upload.ts';
import { PBR_UPLOADER } from './pbr-material.ts';
import { fragmentTextureCount, frameLayoutEntries } from '../pipelines/mesh.ts';
import { pbrExtensionFeatures } from '../pipelines/pbr-extensions-path.ts';
import { PBR_PATH } from '../pipelines/pbr-path.ts';

const F = PbrExtensionFeature;

/** The PbrExtensionFeature bits of the extensions that change how `m` is drawn (see the module comment). */
export function activePbrExtensions(m: Material, animated: boolean): number {
  if ((m.shading ?? 'pbr') === 'unlit') return 0;
  const live = (present: boolean, changes: boolean) => present && (changes || animated);
  const specular = m.specular;
  let bits = 0;
  if (live(m.clearcoat !== undefined, (m.clearcoat?.factor ?? 0) > 0)) bits |= F.CLEARCOAT;
  if (live(specular !== undefined, specular !== undefined && (specular.factor !== 1 || specular.colorFactor.some((c) => c !== 1) || !!specular.texture || !!specular.colorTexture))) bits |= F.SPECULAR;
  if (live(m.ior !== undefined, m.ior !== DEFAULT_IOR)) bits |= F.IOR;
  if (live(m.sheen !== undefined, (m.sheen?.colorFactor ?? [0, 0, 0]).some((c) => c > 0))) bits |= F.SHEEN;
  if (live(m.transmission !== undefined, (m.transmission?.factor ?? 0) > 0)) bits |= F.TRANSMISSION;
  if (live(m.iridescence !== undefined, (m.iridescence?.factor ?? 0) > 0)) bits |= F.IRIDESCENCE;
  if (live(m.anisotropy !== undefined, (m.anisotropy?.strength ?? 0) > 0)) bits |= F.ANISOTROPY;
  if (live(m.diffuseTransmission !== undefined, (m.diffuseTransmission?.factor ?? 0) > 0)) bits |= F.DIFFUSE_TRANSMISSION;
  // A volume is the medium under a transmitting surface; dispersion spreads what it refracts.
  if ((bits & (F.TRANSMISSION | F.DIFFUSE_TRANSMISSION)) && live(m.volume !== undefined, (m.volume?.thicknessFactor ?? 0) > 0)) bits |= F.VOLUME;
  if ((bits & F.TRANSMISSION) && (bits & F.VOLUME) && live(m.dispersion !== undefined, (m.dispersion ?? 0) > 0)) bits |= F.DISPERSION;
  return bits;
}

/** The extension fields of Material, with the feature each one is drawn by. */
const EXTENSION_FIELDS: readonly (readonly [keyof PbrExtensions, number])[] = [
  ['clearcoat', F.CLEARCOAT], ['specular', F.SPECULAR], ['ior', F.IOR], ['sheen', F.SHEEN], ['transmission', F.TRANSMISSION],
  ['volume', F.VOLUME], ['iridescence', F.IRIDESCENCE], ['anisotropy', F.ANISOTROPY], ['dispersion', F.DISPERSION],
  ['diffuseTransmission', F.DIFFUSE_TRANSMISSION],
];

/** `m` with only the extensions of `features` (the rest are inert or not drawn). */
function withExtensions(m: Material, features: number): Material {
  const out: Record<string, unknown> = { ...m };
  for (const [field, feature] of EXTENSION_FIELDS) if (!(features & feature)) delete out[field];
  return out as unknown as Material;
}

/** ExtensionTexture bits of the slots `m` has a texture in, among the extensions it keeps. */
function presentTextures(m: Material): number {
  const features = activePbrExtensions(m, true);
  let bits = 0;
  EXTENSION_TEXTURE_SLOTS.forEach((slot, k) => {
    if ((features & slot.feature) && slot.texture(m)) bits |= 1 << k;
  });
  return bits;
}

/** `m` without its texture in slot k (the slot then reads its neutral value). */
function withoutTexture(m: Material, k: number): Material {
  const slot = EXTENSION_TEXTURE_SLOTS[k];
  const field = EXTENSION_FIELDS.find(([, feature]) => feature === slot.feature)![0];
  const ext = m[field] as unknown as Record<string, unknown>;
  const key = Object.keys(ext).find((name) => ext[name] === slot.texture(m))!;
  return { ...m, [field]: { ...ext, [key]: undefined } };
}

/**
 * How many extension textures one pipeline of `features` may sample on `device`: the device's
 * per-stage limit less group 0's textures, the PBR path's five, and the sheen table and the
 * transmitted scene where the features read them.
 */
export function extensionTextureBudget(device: GPUDevice, features: number): number {
  const fixed = fragmentTextureCount(frameLayoutEntries()) + fragmentTextureCount(PBR_PATH.layoutEntries())
    + (features & F.SHEEN ? 1 : 0) + (features & F.TRANSMISSION ? 1 : 0);
  return Math.max(0, device.limits.maxSampledTexturesPerShaderStage - fixed);
}

/** The material as drawn on the device: its live extensions, and only the textures the device's budget allows. */
function prepare(material: Material, ctx: MaterialUploadContext, path: string): Material {
  const features = activePbrExtensions(material, ctx.animated);
  let m = withExtensions(material, features);
  const budget = extensionTextureBudget(ctx.device, features);
  let present = presentTextures(m);
  // Over budget: the last slots go first (the diffuse transmission colour … the clearcoat last).
  for (let k = EXTENSION_TEXTURE_COUNT - 1; k >= 0 && bitCount(present) > budget; k--) {
    if (!(present & (1 << k))) continue;
    const slot = EXTENSION_TEXTURE_SLOTS[k];
    ctx.warn(`${path}.extensions.${slot.extension}.${slot.property}`, `one pipeline may sample ${ctx.device.limits.maxSampledTexturesPerShaderStage} textures on this device, which this material's others fill; drawn without it`);
    m = withoutTexture(m, k);
    present &= ~(1 << k);
  }
  return m;
}

function bitCount(bits: number): number {
  let n = 0;
  for (let b = bits; b !== 0; b &= b - 1) n++;
  return n;
}

function pack(material: Material): ArrayBuffer {
  const buffer = new ArrayBuffer(EXTENDED_UNIFORMS_SIZE);
  new Uint8Array(buffer).set(new Uint8Array(packMaterialUniforms(material)));
  writePbrExtensionUniforms(material, new Float32Array(buffer), new Uint32Array(buffer), EXTENSION_UNIFORMS_OFFSET / 4);
  return buffer;
}

async function textureEntries(m: Material, textures: MaterialTextures, path: string): Promise<GPUBindGroupEntry[]> {
  const entries = await PBR_UPLOADER.textureEntries(m, textures, path);
  const features = activePbrExtensions(m, true);
  const present = presentTextures(m);
  let sampler: GPUSampler | undefined;
  for (let k = 0; k < EXTENSION_TEXTURE_COUNT; k++) {
    if (!(present & (1 << k))) continue;
    const slot = EXTENSION_TEXTURE_SLOTS[k];
    const info = slot.texture(m);
    const usedAt = `${path}.extensions.${slot.extension}.${slot.property}`;
    entries.push({ binding: PbrExtensionBinding.TEXTURE_BASE + k, resource: await textures.view(info, slot.srgb, textures.defaults.whiteLinear, usedAt) });
    const own = textures.sampler(info);
    if (!sampler) sampler = own;
    else if (own !== sampler) textures.warn(usedAt, 'names another sampler than the material\'s first extension texture; sampled with that one\'s (filtering and wrapping)');
  }
  if (sampler) entries.push({ binding: PbrExtensionBinding.SAMPLER, resource: sampler });
  if (features & F.SHEEN) {
    // The table's builder (and its WGSL) is imported with the first sheen material, not with the page.
    const { sheenAlbedoTable } = await import('../environment/sheen-albedo.ts');
    entries.push({ binding: PbrExtensionBinding.SHEEN_ALBEDO, resource: (await sheenAlbedoTable(textures.device)).createView({ label: 'sheen albedo table' }) });
  }
  return entries;
}

export const PBR_EXTENSIONS_UPLOADER: MaterialUploader = {
  uniformsSize: EXTENDED_UNIFORMS_SIZE,
  uniformBlocks: [{ binding: PbrExtensionBinding.UNIFORMS, offset: EXTENSION_UNIFORMS_OFFSET, size: PBR_EXTENSION_UNIFORMS_SIZE }],
  prepare,
  pack,
  packAnimated(values: Float32Array, v: number, out: Float32Array, u: number): void {
    PBR_UPLOADER.packAnimated(values, v, out, u);
    packAnimatedExtensionValues(values, v, out, u + EXTENSION_UNIFORMS_OFFSET / 4);
  },
  features(m: Material): number {
    return pbrExtensionFeatures(PBR_UPLOADER.features(m), activePbrExtensions(m, true), presentTextures(m));
  },
  blending: (m) => PBR_UPLOADER.blending(m),
  textureEntries,
};
