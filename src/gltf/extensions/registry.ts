/**
 * The glTF extensions the loader understands. Each one gets a module of its own in this
 * folder, named after it (`khr-mesh-quantization.ts` for KHR_mesh_quantization), and an
 * entry in `EXTENSIONS`. A file that lists any other name in `extensionsRequired` is
 * refused (load.ts); other extensions are ignored, as glTF allows for optional ones
 * (material extensions with a warning: unsupported-material-extensions.ts).
 */
import { EXT_TEXTURE_AVIF } from './ext-texture-avif.ts';
import { EXT_TEXTURE_WEBP } from './ext-texture-webp.ts';
import { KHR_ANIMATION_POINTER } from './khr-animation-pointer.ts';
import { KHR_MATERIALS_IOR } from './khr-materials-ior.ts';
import { KHR_MATERIALS_EMISSIVE_STRENGTH } from './khr-materials-emissive-strength.ts';
import { KHR_MATERIALS_UNLIT } from './khr-materials-unlit.ts';
import { KHR_MATERIALS_VARIANTS } from './khr-materials-variants.ts';
import { KHR_MESH_QUANTIZATION } from './khr-mesh-quantization.ts';
import { KHR_TEXTURE_BASISU } from './khr-texture-basisu.ts';
import { KHR_TEXTURE_TRANSFORM } from './khr-texture-transform.ts';
import { EXT_MESHOPT_COMPRESSION, KHR_MESHOPT_COMPRESSION } from './meshopt.ts';
import type { GltfExtension } from './types.ts';
import { EXT_MESH_GPU_INSTANCING, KHR_DRACO_MESH_COMPRESSION, LAZY_MATERIAL_EXTENSIONS, VRM0, VRMC_NODE_CONSTRAINT, VRMC_SPRING_BONE, VRMC_SPRING_BONE_EXTENDED_COLLIDER, VRMC_VRM, VRMC_VRM_ANIMATION } from './names.ts';

export type { GltfExtension } from './types.ts';

const EXTENSIONS: readonly GltfExtension[] = [
  // Geometry: decoded by the resource and mesh readers before any accessor is read.
  { name: EXT_MESHOPT_COMPRESSION },
  { name: KHR_MESHOPT_COMPRESSION },
  { name: KHR_MESH_QUANTIZATION },
  // The decoding (and the worker that decodes) is imported by the first file that uses Draco.
  {
    name: KHR_DRACO_MESH_COMPRESSION,
    decodePrimitives: async (ctx, src) => (await import('./khr-draco-mesh-compression.ts')).decodeDracoPrimitives(ctx, src),
  },
  // Nodes: per-instance transforms on MeshNode.instances (nodes.ts).
  { name: EXT_MESH_GPU_INSTANCING },
  // Textures and materials: read through the hooks in types.ts.
  KHR_TEXTURE_TRANSFORM,
  EXT_TEXTURE_WEBP,
  EXT_TEXTURE_AVIF,
  KHR_TEXTURE_BASISU,
  KHR_MATERIALS_EMISSIVE_STRENGTH,
  KHR_MATERIALS_UNLIT,
  KHR_MATERIALS_IOR,
  // The other material extensions' readers are imported by a file whose materials use one
  // (material-extensions.ts; `loadMaterialExtensions`): named here until then.
  ...LAZY_MATERIAL_EXTENSIONS.map((name) => ({ name })),
  // Animation: pointer channels read by animations.ts.
  KHR_ANIMATION_POINTER,
  // Read by meshes.ts and load.ts (khr-materials-variants.ts); switched by the renderer.
  { name: KHR_MATERIALS_VARIANTS },
  // VRM avatars (vrm.ts reads them into Model.vrm; src/anim/vrm runs them).
  { name: VRMC_VRM },
  { name: VRMC_SPRING_BONE },
  { name: VRMC_SPRING_BONE_EXTENDED_COLLIDER },
  { name: VRMC_NODE_CONSTRAINT },
  { name: VRM0 },
  { name: VRMC_VRM_ANIMATION },
];

const BY_NAME = new Map<string, GltfExtension>(EXTENSIONS.map((e) => [e.name, e]));
let materialExtensions: Promise<void> | undefined;
let materialExtensionsReady = false;

/** The registered extension of that name, if the loader supports it (a lazy material extension's reader once loaded). */
export function findExtension(name: string): GltfExtension | undefined {
  return BY_NAME.get(name);
}

/** Whether the lazily loaded material extensions' readers are in the registry (loadMaterialExtensions has resolved). */
export function materialExtensionsLoaded(): boolean {
  return materialExtensionsReady;
}

/**
 * Imports the lazily loaded material extensions' readers (once; a failed import is tried again
 * by the next call) and puts them in the registry. load.ts awaits it before reading the
 * materials of a file that uses one.
 */
export function loadMaterialExtensions(): Promise<void> {
  materialExtensions ??= import('./material-extensions.ts').then(({ MATERIAL_EXTENSIONS }) => {
    for (const extension of MATERIAL_EXTENSIONS) BY_NAME.set(extension.name, extension);
    materialExtensionsReady = true;
  }, (error: unknown) => {
    materialExtensions = undefined;
    throw error;
  });
  return materialExtensions;
}
