/**
 * What each pipeline's shader module is made of, in one table: the files of shaders/ in the
 * order they are joined, and where the pipeline's builder adds declarations it generates from TS
 * (shared f32 constants, a table size, a material variant's bindings). A builder asks
 * `pipelineShader` for its source and hands over the texts of the parts by name; the order and
 * the list are read here, and a builder handing over a part its pipeline does not list, or
 * missing one, is refused. The builders import the files they hand over themselves, so a
 * pipeline's WGSL still travels with its code (a lazily loaded crowd's shader stays in its chunk).
 * test/gpu/layouts/pipeline-shaders.test.ts holds the table to shaders/ and to those imports.
 */

/** A file of shaders/, by its path there. */
export type WgslFile = `${string}.wgsl`;

/**
 * One part of a pipeline's module: a file of shaders/, or `{ generated }`: declarations the
 * pipeline's builder makes from TS and passes to `pipelineShader` under that name.
 */
export type ShaderPart = WgslFile | { readonly generated: string };

/**
 * Every mesh pipeline's parts before its material path's: the shared skinning functions, the PBR
 * lighting pieces, the draw record, centres of rotation, morph targets, the mesh stages, the
 * ground disc's and the debug variants' stages (frame draws and debug pipelines compile the same
 * module), SH9 and the environment lighting.
 */
const MESH_PARTS = [
  'skinning.wgsl', 'pbr.wgsl', 'draw-record.wgsl', 'center-of-rotation.wgsl', 'morph.wgsl', 'mesh.wgsl', 'ground.wgsl', 'mesh-debug.wgsl',
  'sh9.wgsl', 'environment-lighting.wgsl',
] as const satisfies readonly ShaderPart[];

/** The PBR material path's mesh pipelines: the mesh parts, then its group 2 and fragment stages. */
const MESH_PBR_PARTS = [...MESH_PARTS, 'pbr-material.wgsl'] as const satisfies readonly ShaderPart[];

/** Shared f32 tolerances and thresholds, declared from their TS constants (wgslF32Constants). */
const F32_CONSTANTS = { generated: 'f32 constants' } as const;

/** Each pipeline (by the name its builder asks with) and its parts, in order. */
export const PIPELINE_SHADERS = {
  'mesh (pbr)': MESH_PBR_PARTS,
  // A variant's group 2 bindings and stand-ins for the lobes its features leave out (MaterialPathVariant.parts).
  'mesh (pbr-extensions)': [
    ...MESH_PBR_PARTS, 'pbr-extensions/lobes.wgsl', 'pbr-extensions/iridescence.wgsl', 'pbr-extensions/pbr-extensions.wgsl', { generated: 'variant' },
  ],
  'mesh (mtoon)': [...MESH_PARTS, 'mtoon.wgsl'],
  // The PBR mesh module's structs, bindings, vertex inputs and skinning, then the overlays.
  'debug overlays': [...MESH_PBR_PARTS, 'debug.wgsl'],
  'preskin': ['skinning.wgsl', 'draw-record.wgsl', 'center-of-rotation.wgsl', 'morph.wgsl', 'preskin.wgsl'],
  'cull': ['draw-record.wgsl', F32_CONSTANTS, 'cull.wgsl'],
  'records': ['draw-record.wgsl', F32_CONSTANTS, 'records.wgsl'],
  'crowd-eval': [F32_CONSTANTS, 'crowd-eval.wgsl'],
  'dq-palette': ['dq-palette.wgsl'],
  'environment prefilter': ['pbr.wgsl', 'fullscreen.wgsl', 'environment.wgsl'],
  // The table's size, then the PBR and sheen lobe functions it integrates.
  'sheen albedo table': [{ generated: 'table size' }, 'pbr.wgsl', 'pbr-extensions/lobes.wgsl', 'sheen-albedo.wgsl'],
  'mipmap': ['fullscreen.wgsl', 'mipmap.wgsl'],
} as const satisfies Readonly<Record<string, readonly ShaderPart[]>>;

export type PipelineShaderName = keyof typeof PIPELINE_SHADERS;

/** The name a builder hands a part's text over by: the file's path, or the generated part's name. */
export function partName(part: ShaderPart): string {
  return typeof part === 'string' ? part : part.generated;
}

/**
 * The WGSL source of pipeline `name`: its parts in the table's order, each taken from `texts` by
 * its name (partName), joined by newlines. Throws when a listed part is missing from `texts` or
 * `texts` holds one the pipeline does not list. Load time (allocates).
 */
export function pipelineShader(name: PipelineShaderName, texts: Readonly<Record<string, string>>): string {
  const parts: readonly ShaderPart[] = PIPELINE_SHADERS[name];
  const names = parts.map(partName);
  const missing = names.filter((n) => texts[n] === undefined);
  if (missing.length > 0) throw new Error(`pipelineShader: the '${name}' pipeline is made of ${missing.map((n) => `'${n}'`).join(', ')} too`);
  const extra = Object.keys(texts).filter((n) => !names.includes(n));
  if (extra.length > 0) throw new Error(`pipelineShader: the '${name}' pipeline lists no ${extra.map((n) => `'${n}'`).join(', ')}`);
  return names.map((n) => texts[n]).join('\n');
}
