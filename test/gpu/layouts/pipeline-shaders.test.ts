/**
 * The table of what each pipeline's shader module is made of (src/gpu/layouts/pipeline-shaders.ts):
 * every file of shaders/ is a part of some pipeline and every listed file exists; every WGSL file a
 * src module imports is one the table lists, handed to `pipelineShader` under its own name; the
 * builders' sources are their table's files, read from disk, in the table's order (generated parts
 * in their places); and `pipelineShader` refuses a part missing or one the pipeline does not list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CROWD_EVAL_WGSL } from '../../../src/gpu/crowd/evaluator.ts';
import { CULL_WGSL } from '../../../src/gpu/draw/cull-wgsl.ts';
import { PRESKIN_WGSL } from '../../../src/gpu/draw/preskin-wgsl.ts';
import { RECORDS_WGSL } from '../../../src/gpu/draw/records-wgsl.ts';
import { ENVIRONMENT_SHADER_SOURCE } from '../../../src/gpu/environment/prefilter.ts';
import { SHEEN_ALBEDO_WGSL } from '../../../src/gpu/environment/sheen-albedo.ts';
import { partName, PIPELINE_SHADERS, pipelineShader, type PipelineShaderName, type ShaderPart } from '../../../src/gpu/layouts/pipeline-shaders.ts';
import { DEBUG_SHADER_SOURCE } from '../../../src/gpu/pipelines/debug-wgsl.ts';
import { loadMaterialPaths, MATERIAL_PATHS, meshShaderSource } from '../../../src/gpu/pipelines/mesh.ts';
import { MIPMAP_WGSL } from '../../../src/gpu/textures/mipmaps.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SHADERS = join(ROOT, 'shaders');

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => relative(dir, join(e.parentPath, e.name)).replaceAll('\\', '/'))
    .sort();
}

const listedFiles = new Set<string>(Object.values(PIPELINE_SHADERS).flatMap((parts: readonly ShaderPart[]) => parts.filter((p) => typeof p === 'string')));

/**
 * Whether `source` is pipeline `name`'s files from disk, in order, joined by newlines, with
 * anything (but no newline-joined file) where a generated part goes.
 */
function madeOf(name: PipelineShaderName, source: string): boolean {
  const parts: readonly ShaderPart[] = PIPELINE_SHADERS[name];
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const joint = i === parts.length - 1 ? '' : '\n';
    if (typeof part === 'string') {
      const text = readFileSync(join(SHADERS, part), 'utf8') + joint;
      if (!source.startsWith(text, at)) return false;
      at += text.length;
    } else {
      // A generated part runs up to the next file's text (or to the end).
      const next = parts[i + 1];
      const end = next === undefined ? source.length : source.indexOf(`\n${readFileSync(join(SHADERS, next as string), 'utf8')}`, at);
      if (end < 0) return false;
      at = end + joint.length;
    }
  }
  return at === source.length;
}

describe('the pipelines\' shader parts', () => {
  it('every file of shaders/ is a part of some pipeline, and every part listed is a file there', () => {
    const files = filesUnder(SHADERS, '.wgsl');
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !listedFiles.has(f))).toEqual([]);
    expect([...listedFiles].filter((f) => !files.includes(f))).toEqual([]);
  });

  it('every WGSL file a src module imports is listed, and handed to pipelineShader under its own name', () => {
    const src = join(ROOT, 'src');
    let imports = 0, handed = 0;
    for (const file of filesUnder(src, '.ts')) {
      const text = readFileSync(join(src, file), 'utf8');
      const fileOf = new Map<string, string>();
      for (const m of text.matchAll(/import\s+(\w+)\s+from\s+'([^']*\/shaders\/([^']+\.wgsl))\?raw'/g)) {
        imports++;
        expect(listedFiles.has(m[3]), `src/${file} imports ${m[2]}`).toBe(true);
        fileOf.set(m[1], m[3]);
      }
      for (const m of text.matchAll(/'([\w/-]+\.wgsl)':\s*(\w+)/g)) {
        handed++;
        expect(fileOf.get(m[2]), `src/${file} hands over '${m[1]}' as ${m[2]}`).toBe(m[1]);
      }
    }
    expect(imports).toBeGreaterThanOrEqual(listedFiles.size);
    expect(handed).toBeGreaterThanOrEqual(imports);
  });

  it('each builder\'s source is its pipeline\'s files, in the table\'s order', async () => {
    // MToon's and the PBR extensions' files arrive with their path (pipelines/material-path.ts DeferredWgsl).
    await loadMaterialPaths(Object.keys(MATERIAL_PATHS) as (keyof typeof MATERIAL_PATHS)[]);
    const sources: [PipelineShaderName, string][] = [
      ['cull', CULL_WGSL], ['records', RECORDS_WGSL], ['preskin', PRESKIN_WGSL], ['crowd-eval', CROWD_EVAL_WGSL],
      ['environment prefilter', ENVIRONMENT_SHADER_SOURCE], ['sheen albedo table', SHEEN_ALBEDO_WGSL], ['debug overlays', DEBUG_SHADER_SOURCE],
    ];
    for (const path of Object.keys(MATERIAL_PATHS) as (keyof typeof MATERIAL_PATHS)[]) sources.push([`mesh (${path})`, meshShaderSource(path)]);
    sources.push(['mipmap', MIPMAP_WGSL]);
    for (const [name, source] of sources) expect(madeOf(name, source), name).toBe(true);
    // A file out of order, or one too many, is seen.
    const file = (f: string) => readFileSync(join(SHADERS, f), 'utf8');
    expect(madeOf('mipmap', `${file('mipmap.wgsl')}\n${file('fullscreen.wgsl')}`)).toBe(false);
    expect(madeOf('mipmap', `${file('fullscreen.wgsl')}\n${file('mipmap.wgsl')}\n${file('sh9.wgsl')}`)).toBe(false);
    expect(madeOf('cull', CULL_WGSL.replace(file('cull.wgsl'), file('records.wgsl')))).toBe(false);
  });

  it('pipelineShader joins the parts in the table\'s order and refuses one missing or one not listed, naming the pipeline', () => {
    expect(pipelineShader('mipmap', { 'mipmap.wgsl': 'B', 'fullscreen.wgsl': 'A' })).toBe('A\nB');
    expect(pipelineShader('crowd-eval', { 'crowd-eval.wgsl': 'B', 'f32 constants': 'A' })).toBe('A\nB');
    expect(() => pipelineShader('cull', { 'draw-record.wgsl': '', 'cull.wgsl': '' })).toThrow(`the 'cull' pipeline is made of 'f32 constants' too`);
    expect(() => pipelineShader('mipmap', { 'fullscreen.wgsl': '', 'mipmap.wgsl': '', 'sh9.wgsl': '' })).toThrow(`the 'mipmap' pipeline lists no 'sh9.wgsl'`);
    expect(PIPELINE_SHADERS['cull'].map(partName)).toEqual(['draw-record.wgsl', 'f32 constants', 'cull.wgsl']);
  });
});
