/**
 * The material extensions whose readers a plain PBR file does not need, in registry order: one
 * module that registry.ts imports when a file's materials use one of them (load.ts asks,
 * material-presence.ts decides), so a built page carries them in a chunk of its own. Their names
 * are in names.ts (LAZY_MATERIAL_EXTENSIONS), which a test holds equal to this list.
 */
import { KHR_MATERIALS_ANISOTROPY } from './khr-materials-anisotropy.ts';
import { KHR_MATERIALS_CLEARCOAT } from './khr-materials-clearcoat.ts';
import { KHR_MATERIALS_DIFFUSE_TRANSMISSION } from './khr-materials-diffuse-transmission.ts';
import { KHR_MATERIALS_DISPERSION } from './khr-materials-dispersion.ts';
import { KHR_MATERIALS_IRIDESCENCE } from './khr-materials-iridescence.ts';
import { KHR_MATERIALS_PBR_SPECULAR_GLOSSINESS } from './khr-materials-pbr-specular-glossiness.ts';
import { KHR_MATERIALS_SHEEN } from './khr-materials-sheen.ts';
import { KHR_MATERIALS_SPECULAR } from './khr-materials-specular.ts';
import { KHR_MATERIALS_TRANSMISSION } from './khr-materials-transmission.ts';
import { KHR_MATERIALS_VOLUME } from './khr-materials-volume.ts';
import type { GltfExtension } from './types.ts';
import { VRMC_MATERIALS_MTOON_EXTENSION } from './vrmc-materials-mtoon.ts';

export const MATERIAL_EXTENSIONS: readonly GltfExtension[] = [
  KHR_MATERIALS_PBR_SPECULAR_GLOSSINESS,
  VRMC_MATERIALS_MTOON_EXTENSION,
  // The PBR material extensions (Material.clearcoat…, drawn by shaders/pbr-extensions.wgsl).
  KHR_MATERIALS_CLEARCOAT,
  KHR_MATERIALS_SPECULAR,
  KHR_MATERIALS_SHEEN,
  KHR_MATERIALS_TRANSMISSION,
  KHR_MATERIALS_VOLUME,
  KHR_MATERIALS_IRIDESCENCE,
  KHR_MATERIALS_ANISOTROPY,
  KHR_MATERIALS_DISPERSION,
  KHR_MATERIALS_DIFFUSE_TRANSMISSION,
];

