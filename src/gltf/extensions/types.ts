/** What the loader's section readers ask of an extension (registry.ts lists the extensions). */
import type { AccessorSource } from '../accessors.ts';
import type { JsonObject } from '../json.ts';
import type { Material, TextureInfo } from '../model.ts';
import type { ReadContext } from '../read-context.ts';

/** A material while materials.ts builds it: extensions overwrite what they define. */
export type MaterialDraft = { -readonly [K in keyof Material]: Material[K] };
export type TextureInfoDraft = { -readonly [K in keyof TextureInfo]: TextureInfo[K] };

/** Writes a texture reference (undefined for none); `scaleKey` writes a normal texture's scale. */
export type TextureInfoWriter = (info: TextureInfo | undefined, scaleKey?: 'scale') => JsonObject | undefined;

/** What materials.ts lends a material extension, so its values get the core ones' checks. */
export interface MaterialReader {
  /**
   * A textureInfo at `obj[key]` (undefined when absent, or when its index names no texture:
   * then with a warning), its own extensions applied; `scaleKey` reads a normal texture's
   * `scale` (any number) or an occlusion texture's `strength` (0…1).
   */
  textureInfo(obj: JsonObject, key: string, path: string, scaleKey?: 'scale' | 'strength'): TextureInfo | undefined;
  /** `v` clamped to [min, max] with a warning; refused when it does not fit a 32-bit float. */
  inRange(v: number, path: string, min: number, max: number): number;
  /** The number at `obj[key]` (`fallback` when absent), clamped by `inRange`. */
  factor(obj: JsonObject, key: string, path: string, fallback: number, min: number, max: number): number;
  /** The numbers at `obj[key]` (as many as `fallback` has; a copy of it when absent), each clamped by `inRange`. */
  factors(obj: JsonObject, key: string, path: string, fallback: readonly number[], min: number, max: number): number[];
  warn(path: string, message: string): void;
}

export interface GltfExtension {
  /** The name as a file writes it in `extensionsUsed` and `extensionsRequired`. */
  readonly name: string;
  // What a section reader asks of an extension becomes an optional member here; the
  // reader calls it through `findExtension`.
  /**
   * Decodes the file's compressed primitives before the meshes section is read, recording
   * what they decode to in `ctx.substitutes` (load.ts; runs when the file lists the extension
   * in `extensionsUsed`).
   */
  readonly decodePrimitives?: (ctx: ReadContext, src: AccessorSource) => Promise<void>;
  /** A material extension: reads `materials[i].extensions[name]` (the JSON at `path`) into `material`. */
  readonly readMaterial?: (ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader) => void;
  /**
   * A material extension's JSON for a material the loader read (what a baked GLB writes back),
   * undefined when the material does not use it; `textureInfo` writes a texture reference.
   */
  readonly writeMaterial?: (material: Material, textureInfo: TextureInfoWriter) => JsonObject | undefined;
  /** A textureInfo extension: reads `….extensions[name]` (at `path`) into `info`. */
  readonly readTextureInfo?: (ext: JsonObject, path: string, info: TextureInfoDraft) => void;
  /** A texture-source extension: the image `textures[i].extensions[name]` names (at `path`). */
  readonly readTextureSource?: (ext: JsonObject, path: string, imageCount: number) => number;
}
