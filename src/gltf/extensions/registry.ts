import type { AccessorSource } from '../accessors.ts';
import type { ReadContext } from '../read-context.ts';
import { KHR_DRACO_MESH_COMPRESSION } from './draco.ts';
import { decodeDracoPrimitives } from './khr-draco-mesh-compression.ts';

/**
 * The glTF extensions the loader understands. Each one gets a module of its own in this
 * folder, named after it (`khr-mesh-quantization.ts` for KHR_mesh_quantization), and an
 * entry in `EXTENSIONS`. Every other extension a file lists in `extensionsRequired` is
 * refused (load.ts), and the others are ignored, as glTF allows for optional extensions.
 */
export interface GltfExtension {
  /** The name as a file writes it in `extensionsUsed` and `extensionsRequired`. */
  readonly name: string;
  // What a section reader asks of an extension (a primitive decoder, a texture source,
  // a material's extra factors…) becomes an optional member here when the first
  // extension that needs it is added, and that reader calls it through `findExtension`.
  /**
   * Decodes the file's compressed primitives before the meshes section is read, recording
   * what they decode to in `ctx.substitutes` (load.ts; runs when the file lists the extension
   * in `extensionsUsed`).
   */
  readonly decodePrimitives?: (ctx: ReadContext, src: AccessorSource) => Promise<void>;
}

const EXTENSIONS: readonly GltfExtension[] = [
  { name: KHR_DRACO_MESH_COMPRESSION, decodePrimitives: decodeDracoPrimitives },
];

const BY_NAME: ReadonlyMap<string, GltfExtension> = new Map(EXTENSIONS.map((e) => [e.name, e]));

/** The registered extension of that name, if the loader supports it. */
export function findExtension(name: string): GltfExtension | undefined {
  return BY_NAME.get(name);
}
