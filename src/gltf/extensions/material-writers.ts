/**
 * The material extensions that write a material back (a baked GLB's materials, bake/glb.ts), in
 * the order a baked file has always listed them (the registry's). A module of its own: bake
 * imports it statically, while the loader imports the readers' module (material-extensions.ts)
 * only for a file that uses one.
 */
import { KHR_MATERIALS_ANISOTROPY } from './khr-materials-anisotropy.ts';
import { KHR_MATERIALS_CLEARCOAT } from './khr-materials-clearcoat.ts';
import { KHR_MATERIALS_DIFFUSE_TRANSMISSION } from './khr-materials-diffuse-transmission.ts';
import { KHR_MATERIALS_DISPERSION } from './khr-materials-dispersion.ts';
import { KHR_MATERIALS_IOR } from './khr-materials-ior.ts';
import { KHR_MATERIALS_IRIDESCENCE } from './khr-materials-iridescence.ts';
import { KHR_MATERIALS_SHEEN } from './khr-materials-sheen.ts';
import { KHR_MATERIALS_SPECULAR } from './khr-materials-specular.ts';
import { KHR_MATERIALS_TRANSMISSION } from './khr-materials-transmission.ts';
import { KHR_MATERIALS_VOLUME } from './khr-materials-volume.ts';
import type { GltfExtension } from './types.ts';

export const MATERIAL_WRITERS: readonly GltfExtension[] = [
  KHR_MATERIALS_CLEARCOAT, KHR_MATERIALS_SPECULAR, KHR_MATERIALS_IOR, KHR_MATERIALS_SHEEN, KHR_MATERIALS_TRANSMISSION,
  KHR_MATERIALS_VOLUME, KHR_MATERIALS_IRIDESCENCE, KHR_MATERIALS_ANISOTROPY, KHR_MATERIALS_DISPERSION, KHR_MATERIALS_DIFFUSE_TRANSMISSION,
];
