/**
 * The architecture of src/ holds by itself: imports point down the layers
 * (math < gltf < anim, builtin < skin < gpu < crowd < bake < element < index.ts < cli, demo;
 * test/support/architecture.ts says why each sits where it does), no cycle between files or
 * between folders, no file in src/ or shaders/ over 700 lines, and each WGSL struct declared in
 * one shader file. The checker is shown
 * failing on small trees that break each rule, naming the file and the import, and on the
 * real tree with one bad import added.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkArchitecture, importsOf, LAYERS, MAX_LINES, reachableFrom, readSourceTree, specifiersOf, type Rule } from './support/architecture.ts';

const ROOT = resolve(import.meta.dirname, '..');

const tree = (files: Record<string, string>) => new Map(Object.entries(files));
const messages = (files: Record<string, string>, rule?: Rule) =>
  checkArchitecture(tree(files)).filter((f) => rule === undefined || f.rule === rule).map((f) => f.message);
const lines = (n: number) => 'export const x = 1;\n'.repeat(n);

describe('the architecture of src/', () => {
  it('holds on this checkout', () => {
    const sources = readSourceTree(ROOT);
    // The walk saw the tree: every layer, the shaders, the worker entries.
    for (const row of LAYERS) for (const name of row) expect([...sources.keys()].some((p) => p.startsWith(`src/${name}`)), name).toBe(true);
    expect(sources.has('shaders/skinning.wgsl')).toBe(true);
    expect(checkArchitecture(sources).map((f) => `${f.rule}: ${f.message}`)).toEqual([]);
  });

  it('a CPU crowd loads no GPU code: nothing src/anim/crowd.ts reaches imports WGSL or lies in gpu/', () => {
    const sources = readSourceTree(ROOT);
    const loaded = reachableFrom(sources, 'src/anim/crowd.ts');
    expect(loaded).toContain('src/anim/batch.ts');
    expect(loaded.filter((path) => !/^src\/(math|gltf|anim)\//.test(path))).toEqual([]);
    const shaders = loaded.flatMap((path) => specifiersOf(path, sources.get(path)!).map((s) => s.specifier).filter((s) => s.includes('.wgsl')));
    expect(shaders).toEqual([]);
    // The GPU crowd does load them: the check sees WGSL where there is some.
    const gpuShaders = reachableFrom(sources, 'src/crowd/gpu-crowd.ts')
      .flatMap((path) => specifiersOf(path, sources.get(path)!).map((s) => s.specifier).filter((s) => s.includes('.wgsl')));
    expect(gpuShaders).toContain('../../../shaders/crowd-eval.wgsl?raw');
  });

  it('fails on this checkout with one import against the layers added, naming the file and the import', () => {
    const sources = readSourceTree(ROOT);
    const file = 'src/math/trs.ts';
    sources.set(file, `import type { Model } from '../gltf/model.ts';\nexport type Held = Model;\n${sources.get(file)}`);
    const found = checkArchitecture(sources);
    expect(found.map((f) => f.message)).toContain(
      `${file}:1 imports '../gltf/model.ts' (src/gltf/model.ts): math may not import gltf, a higher layer`,
    );
    // gltf imports math, so the bad import also closes a folder cycle.
    expect(found.filter((f) => f.rule === 'folder-cycle').map((f) => f.message)).toEqual([
      expect.stringMatching(/^folder cycle: src\/gltf\/ → src\/math\/ \(.*\), src\/math\/ → src\/gltf\/ \(src\/math\/trs\.ts:1 imports '\.\.\/gltf\/model\.ts'\)$/),
    ]);
  });
});

describe('the architecture checker', () => {
  it('reads every kind of import, and no comment or string', () => {
    const text = [
      "import { a } from '../math/a.ts';",
      "import type { B } from './b.ts';",
      "import shader from '../../shaders/x.wgsl?raw';",
      "import { matrix } from 'wgpu-matrix';",
      "export { c } from './c.ts';",
      "export * from './d.ts';",
      "export type { E } from './sub/e.ts';",
      'const lazy = () => import(\'../gpu/f.ts\');',
      "type G = typeof import('./g.ts');",
      "const worker = new Worker(new URL('./h-worker.ts', import.meta.url), { type: 'module' });",
      "// import { no } from '../element/comment.ts';",
      "/* export * from '../cli/block.ts'; */",
      "const text = \"import { no } from '../demo/string.ts'\";",
      "const url = new URL('./not-a-module.png', 'https://example.com/');",
      "import '../gltf/side-effect.ts';",
      "import * as api from 'skinned-mesh-webgpu';",
    ].join('\n');
    expect(importsOf('src/anim/z.ts', text).map((i) => `${i.line} ${i.specifier} → ${i.to}`)).toEqual([
      '1 ../math/a.ts → src/math/a.ts',
      '2 ./b.ts → src/anim/b.ts',
      '5 ./c.ts → src/anim/c.ts',
      '6 ./d.ts → src/anim/d.ts',
      '7 ./sub/e.ts → src/anim/sub/e.ts',
      '8 ../gpu/f.ts → src/gpu/f.ts',
      '9 ./g.ts → src/anim/g.ts',
      '10 ./h-worker.ts → src/anim/h-worker.ts',
      '15 ../gltf/side-effect.ts → src/gltf/side-effect.ts',
      '16 skinned-mesh-webgpu → src/index.ts',
    ]);
  });

  it('accepts imports down the layers and inside a layer', () => {
    expect(messages({
      'src/math/a.ts': 'export const a = 1;',
      'src/gltf/b.ts': "import { a } from '../math/a.ts';\nexport const b = a;",
      'src/gltf/extensions/c.ts': "import { b } from '../b.ts';\nexport const c = b;",
      'src/gltf/load.ts': "import { c } from './extensions/c.ts';\nexport const load = c;",
      'src/crowd/crowd.ts': "import { b } from '../gltf/b.ts';\nexport const crowd = b;",
      'src/index.ts': "export * from './crowd/crowd.ts';",
      'src/demo/main.ts': "import { crowd } from 'skinned-mesh-webgpu';\nexport const main = crowd;",
    })).toEqual([]);
  });

  it('fails on an import up the layers, naming the file, the line and the import', () => {
    expect(messages({
      'src/anim/crowd.ts': "import { a } from '../math/a.ts';\nimport { GpuPoseEvaluator } from '../gpu/evaluator.ts';\nexport const c = [a, GpuPoseEvaluator];",
      'src/math/a.ts': 'export const a = 1;',
      'src/gpu/evaluator.ts': 'export const GpuPoseEvaluator = 1;',
    }, 'layer')).toEqual([
      "src/anim/crowd.ts:2 imports '../gpu/evaluator.ts' (src/gpu/evaluator.ts): anim may not import gpu, a higher layer",
    ]);
  });

  it('fails on a type-only, dynamic or worker import up the layers just the same', () => {
    expect(messages({
      'src/gltf/a.ts': "import type { T } from '../anim/t.ts';\nexport type A = T;",
      'src/skin/b.ts': "export const b = () => import('../gpu/g.ts');",
      'src/gpu/c.ts': "export const w = new Worker(new URL('../bake/w.ts', import.meta.url));",
      'src/anim/t.ts': 'export type T = 1;',
      'src/gpu/g.ts': 'export const g = 1;',
      'src/bake/w.ts': 'export {};',
    }, 'layer')).toEqual([
      "src/gltf/a.ts:1 imports '../anim/t.ts' (src/anim/t.ts): gltf may not import anim, a higher layer",
      "src/gpu/c.ts:1 imports '../bake/w.ts' (src/bake/w.ts): gpu may not import bake, a higher layer",
      "src/skin/b.ts:1 imports '../gpu/g.ts' (src/gpu/g.ts): skin may not import gpu, a higher layer",
    ]);
  });

  it('fails on an import between sibling layers, from the entry into the demo, and on a folder in no layer', () => {
    expect(messages({
      'src/anim/a.ts': "import { character } from '../builtin/character.ts';\nexport const a = character;",
      'src/builtin/character.ts': 'export const character = 1;',
      'src/index.ts': "export * from './demo/main.ts';",
      'src/demo/main.ts': 'export const main = 1;',
      'src/misc/m.ts': 'export const m = 1;',
    })).toEqual([
      'src/misc is in no layer: give it a place in LAYERS (test/support/architecture.ts)',
      "src/anim/a.ts:1 imports '../builtin/character.ts' (src/builtin/character.ts): anim and builtin are sibling layers, neither may import the other",
      "src/index.ts:1 imports './demo/main.ts' (src/demo/main.ts): index.ts may not import demo, a higher layer",
    ]);
  });

  it('fails on a cycle between files, naming each import in it', () => {
    expect(messages({
      'src/gltf/accessors.ts': "import type { WarnFn } from './validate.ts';\nexport type A = WarnFn;",
      'src/gltf/validate.ts': "import type { Hierarchy } from './model.ts';\nexport type WarnFn = (h: Hierarchy) => void;",
      'src/gltf/model.ts': "\nimport type { A } from './accessors.ts';\nexport type Hierarchy = A;",
      'src/gltf/other.ts': "import type { A } from './accessors.ts';\nexport type O = A;",
    })).toEqual([
      'file cycle: src/gltf/accessors.ts → src/gltf/validate.ts (src/gltf/accessors.ts:1 imports \'./validate.ts\'), '
      + 'src/gltf/validate.ts → src/gltf/model.ts (src/gltf/validate.ts:1 imports \'./model.ts\'), '
      + 'src/gltf/model.ts → src/gltf/accessors.ts (src/gltf/model.ts:2 imports \'./accessors.ts\') '
      + '[tangled: src/gltf/accessors.ts, src/gltf/model.ts, src/gltf/validate.ts]',
    ]);
  });

  it('fails on a worker that imports the file that starts it', () => {
    expect(messages({
      'src/gpu/offthread.ts': "export const start = () => new Worker(new URL('./worker.ts', import.meta.url));\nexport interface Job { n: number }",
      'src/gpu/worker.ts': "import type { Job } from './offthread.ts';\nexport const run = (job: Job) => job.n;",
    }, 'file-cycle')).toEqual([
      "file cycle: src/gpu/offthread.ts → src/gpu/worker.ts (src/gpu/offthread.ts:1 imports './worker.ts'), "
      + "src/gpu/worker.ts → src/gpu/offthread.ts (src/gpu/worker.ts:1 imports './offthread.ts')",
    ]);
  });

  it('fails on a cycle between folders that no two files close, and counts a folder with its sub-folders', () => {
    const found = messages({
      // gpu/environment/ uses gpu/frame/, which uses a gpu/ file that uses gpu/environment/: no file cycle.
      'src/gpu/environment/skybox.ts': "import { draw } from '../frame/draw.ts';\nexport const skybox = draw;",
      'src/gpu/frame/draw.ts': "import { table } from '../pipelines.ts';\nexport const draw = table;",
      'src/gpu/pipelines.ts': "import { environment } from './environment/environment.ts';\nexport const table = environment;",
      'src/gpu/environment/environment.ts': 'export const environment = 1;',
    });
    expect(found).toEqual([
      "folder cycle: src/gpu/environment/ → src/gpu/frame/ (src/gpu/environment/skybox.ts:1 imports '../frame/draw.ts'), "
      + "src/gpu/frame/ → src/gpu/pipelines.ts (src/gpu/frame/draw.ts:1 imports '../pipelines.ts'), "
      + "src/gpu/pipelines.ts → src/gpu/environment/ (src/gpu/pipelines.ts:1 imports './environment/environment.ts') "
      + '[tangled: src/gpu/environment/, src/gpu/frame/, src/gpu/pipelines.ts]',
    ]);
    // A top-level cycle through sub-folders is named by the top-level folders.
    expect(messages({
      'src/gltf/library.ts': "import type { Map } from '../anim/retarget/map.ts';\nexport type L = Map;",
      'src/anim/retarget/map.ts': "import type { Model } from '../../gltf/model.ts';\nexport type Map = Model;",
      'src/gltf/model.ts': 'export type Model = 1;',
    }, 'folder-cycle')).toEqual([
      "folder cycle: src/anim/ → src/gltf/ (src/anim/retarget/map.ts:1 imports '../../gltf/model.ts'), "
      + "src/gltf/ → src/anim/ (src/gltf/library.ts:1 imports '../anim/retarget/map.ts')",
    ]);
  });

  it('fails on a WGSL struct declared in two shader files (pipelines include the one that holds it)', () => {
    expect(messages({
      'shaders/mipmap.wgsl': 'struct FullscreenOutput {\n  uv: vec2f,\n}\n',
      'shaders/environment.wgsl': '// struct FullscreenOutput in a comment is not a declaration\nstruct FullscreenOutput {\n  uv: vec2f,\n}\n',
      'shaders/fullscreen.wgsl': 'struct Other {\n  uv: vec2f,\n}\n',
    }, 'wgsl-struct')).toEqual(['struct FullscreenOutput is declared in shaders/environment.wgsl and again in shaders/mipmap.wgsl']);
  });

  it(`fails on a file over ${MAX_LINES} lines, in src/ or shaders/, and not on one of ${MAX_LINES}`, () => {
    expect(messages({
      'src/gpu/renderer.ts': lines(MAX_LINES + 1),
      'src/gpu/camera.ts': lines(MAX_LINES),
      'shaders/mesh.wgsl': 'fn f() {}\n'.repeat(MAX_LINES + 1),
      'shaders/pbr.wgsl': 'fn f() {}\n'.repeat(MAX_LINES),
    })).toEqual([
      `shaders/mesh.wgsl has ${MAX_LINES + 1} lines, over the limit of ${MAX_LINES}`,
      `src/gpu/renderer.ts has ${MAX_LINES + 1} lines, over the limit of ${MAX_LINES}`,
    ]);
  });
});
