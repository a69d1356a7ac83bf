/**
 * The glTF extensions the loader understands. Each one gets a module of its own in this
 * folder, named after it (`khr-mesh-quantization.ts` for KHR_mesh_quantization), and an
 * entry in `EXTENSIONS`. An extension a file lists in `extensionsRequired` that is not
 * here is refused (load.ts); others not here are ignored, as glTF allows for optional
 * extensions.
 */
import { EXT_MESH_GPU_INSTANCING } from './ext-mesh-gpu-instancing.ts';

export interface GltfExtension {
  /** The name as a file writes it in `extensionsUsed` and `extensionsRequired`. */
  readonly name: string;
  // What a section reader asks of an extension (a primitive decoder, a texture source,
  // a material's extra factors…) becomes an optional member here when the first
  // extension that needs it is added, and that reader calls it through `findExtension`.
}

const EXTENSIONS: readonly GltfExtension[] = [
  { name: EXT_MESH_GPU_INSTANCING },
];

const BY_NAME: ReadonlyMap<string, GltfExtension> = new Map(EXTENSIONS.map((e) => [e.name, e]));

/** The registered extension of that name, if the loader supports it. */
export function findExtension(name: string): GltfExtension | undefined {
  return BY_NAME.get(name);
}
