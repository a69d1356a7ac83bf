/**
 * Material paths: each kind of material the mesh pipelines draw (glTF PBR, VRM's MToon) is a
 * path with its own WGSL (its group 2 bindings and shaded fragment entry points after the shared
 * mesh parts: its `mesh (name)` entry in layouts/pipeline-shaders.ts), its own group 2 layout,
 * and its own feature bits, which say what a material uses and become override constants, so a
 * pipeline compiles in only that. Two materials of one path with equal features share pipelines;
 * the pipeline key holds both (src/gpu/pipelines/mesh.ts). A new path is a module of its own exporting a MaterialPath, a
 * line in pipelines/mesh.ts's table and its shader's line in layouts/pipeline-shaders.ts.
 */

import type { WgslFile } from '../layouts/pipeline-shaders.ts';

export type MaterialPathName = 'pbr' | 'pbr-extensions' | 'mtoon';

/**
 * Where a path's WGSL and group 2 layout depend on the features too (not only its override
 * constants): what features `MaterialPath.variant` gives. Pipelines of equal variant keys share
 * one shader module and one group 2 layout; the features still go into the pipeline key.
 */
export interface MaterialPathVariant {
  readonly key: string;
  /** Generated WGSL after the path's own files (its shader's `variant` part: for instance the bindings only these features have). */
  readonly parts: readonly string[];
  /** Group 2 entries after the path's `layoutEntries()`. */
  layoutEntries(): GPUBindGroupLayoutEntry[];
  /** The layout of a group 3 these pipelines read (made once per device by the caller's function); undefined: none. */
  readonly group3?: (device: GPUDevice) => GPUBindGroupLayout;
}

/** WGSL files by their path under shaders/, as a path hands them to its shader (`files`). */
export type WgslFiles = Readonly<Record<WgslFile, string>>;

/**
 * WGSL files a path imports the first time a model uses it (loadMaterialPaths in
 * pipelines/mesh.ts), so that a page whose models never draw with the path does not fetch them
 * (its first load).
 */
export class DeferredWgsl {
  private files: WgslFiles | undefined;
  private loading: Promise<void> | undefined;

  constructor(private readonly path: MaterialPathName, private readonly importFiles: () => Promise<WgslFiles>) {}

  /** Imports the files (once; a failed import is tried again by the next call). */
  load(): Promise<void> {
    this.loading ??= this.importFiles().then(
      (files) => { this.files = files; },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** The files, once loaded; before, an error naming the path (its pipelines were asked for before loadMaterialPaths). */
  get loaded(): WgslFiles {
    if (!this.files) throw new Error(`material path '${this.path}': its WGSL is not loaded yet (loadMaterialPaths before building its pipelines)`);
    return this.files;
  }
}

export interface MaterialPath {
  readonly name: MaterialPathName;
  /** The path's own WGSL files by their path under shaders/ (its `mesh (name)` shader's order: layouts/pipeline-shaders.ts): group 2, `materialVertexOffset`, its fragment entry points. */
  readonly files: WgslFiles;
  /** Its files imported when a model first uses the path (DeferredWgsl), after `files` in the shader; undefined: all are in `files`. */
  readonly deferredFiles?: DeferredWgsl;
  /** Group 2's layout entries (every GPU object gets its label from the caller). */
  layoutEntries(): GPUBindGroupLayoutEntry[];
  /**
   * The override constants of a shaded pipeline for feature bits `features` (the path's own
   * meaning), per stage. Every path also takes the shared ENCODE_SRGB, ALPHA_TEST and SHADOWS.
   */
  constants(features: number): { readonly vertex: Record<string, number>; readonly fragment: Record<string, number> };
  /** The features of pipelines that shade nothing of the material (debug variants): what an unspecialised pipeline has. */
  readonly allFeatures: number;
  readonly fragmentEntry: string;
  /** The fragment entry point for lean primitives (MeshPipelineDesc.leanVertexLayouts); undefined: the path draws them with the full entry points. */
  readonly leanFragmentEntry: string | undefined;
  /**
   * Whether a material of these features is also drawn as an outline: a second pipeline
   * (MeshVariant 'outline') with the path's `OUTLINE` override on in both stages, front faces culled.
   */
  outlines(features: number): boolean;
  /**
   * For a path whose WGSL and group 2 layout vary with the features: the variant `features`
   * select. Debug variants of its pipelines keep the material's features (their group 2 must be
   * the material's). Undefined: one module and layout for every feature set.
   */
  variant?(features: number): MaterialPathVariant;
}
