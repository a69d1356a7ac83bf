import { describe, expect, it } from 'vitest';
import crowdEvalWgsl from '../../../shaders/crowd-eval.wgsl?raw';
import cullWgsl from '../../../shaders/cull.wgsl?raw';
import recordsWgsl from '../../../shaders/records.wgsl?raw';
import { WEIGHT_SUM_MARGIN } from '../../../src/anim/skinned-bounds.ts';
import { CROWD_EVAL_WGSL } from '../../../src/gpu/crowd/evaluator.ts';
import { compilationErrors, compileShaderModule, throwOnCompilationErrors, wgslF32Constants } from '../../../src/gpu/device/shader-module.ts';
import { CULL_WGSL } from '../../../src/gpu/draw/cull-wgsl.ts';
import { RECORDS_WGSL } from '../../../src/gpu/draw/records-wgsl.ts';
import { NORMAL_DETERMINANT_EPSILON, UNIFORM_SCALE_TOLERANCE } from '../../../src/gpu/draw/skin-normals.ts';
import { SLERP_LERP_COS } from '../../../src/math/quat.ts';
import { useTestDevice } from '../../support/webgpu.ts';

const gpu = useTestDevice('shader-module tests');

const GOOD = '@compute @workgroup_size(1) fn main() {}\n';
// Two errors, on lines 2 and 3: an unknown type and an unknown identifier.
const BROKEN = '@compute @workgroup_size(1) fn main() {\n  let a: vec5f = vec4f(0.0);\n  let b = missing;\n}\n';

/** Runs `make` inside a validation scope: Dawn also raises a validation error for a broken module, which is expected here. */
async function inValidationScope<T>(device: GPUDevice, make: () => T): Promise<T> {
  device.pushErrorScope('validation');
  const made = make();
  await device.popErrorScope();
  return made;
}

describe('compiling WGSL with its errors surfaced', () => {
  it('a module that compiles resolves, labelled, and has no errors', async (ctx) => {
    const device = gpu.device(ctx);
    const module = await compileShaderModule(device, 'good module', GOOD);
    expect(module.label).toBe('good module');
    expect(await compilationErrors(module)).toEqual([]);
    await expect(throwOnCompilationErrors(module, 'good module')).resolves.toBeUndefined();
  });

  it('a broken module rejects with every error, each with line:column, under its name', async (ctx) => {
    const device = gpu.device(ctx);
    const module = await inValidationScope(device, () => device.createShaderModule({ label: 'broken module', code: BROKEN }));
    const errors = await compilationErrors(module);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    for (const e of errors) expect(e).toMatch(/^\d+:\d+ \S/);
    expect(errors.join('\n')).toMatch(/^[23]:/m);
    await expect(throwOnCompilationErrors(module, 'broken module')).rejects.toThrow(/^broken module does not compile: \d+:\d+ /);

    // Wrapped, so that awaiting the scope does not await the compilation too.
    const { compiled } = await inValidationScope(device, () => ({ compiled: compileShaderModule(device, 'broken, compiled', BROKEN) }));
    await expect(compiled).rejects.toThrow(`broken, compiled does not compile: ${errors.join('; ')}`);
  });
});

describe('f32 constants WGSL shares with TS (wgslF32Constants)', () => {
  it('declares each value as its float32 rounding, which reads back as the same f32; refuses a non-finite one', () => {
    const text = wgslF32Constants({ A: 2 ** -18, B: 1e-4, C: 1e-30, D: -0.9999, E: 3 });
    const declared = [...text.matchAll(/^const (\w+): f32 = ([^;]+);$/gm)];
    expect(declared.map((m) => m[1])).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(declared.map((m) => Math.fround(Number(m[2])))).toEqual([2 ** -18, 1e-4, 1e-30, -0.9999, 3].map(Math.fround));
    expect(() => wgslF32Constants({ X: Number.NaN })).toThrow(/X is NaN/);
  });

  it('the culling, record and crowd shaders take theirs from the TS constants, declared once, nowhere in the .wgsl files', () => {
    const shared: [string, string, Record<string, number>][] = [
      [CULL_WGSL, cullWgsl, { WEIGHT_SUM_MARGIN }],
      [RECORDS_WGSL, recordsWgsl, { NORMAL_DETERMINANT_EPSILON, UNIFORM_SCALE_TOLERANCE }],
      [CROWD_EVAL_WGSL, crowdEvalWgsl, { SLERP_LERP_COS }],
    ];
    for (const [source, file, values] of shared) {
      for (const [name, value] of Object.entries(values)) {
        const declarations = [...source.matchAll(new RegExp(`const ${name}: f32 = ([^;]+);`, 'g'))];
        expect(declarations.length, name).toBe(1);
        expect(Math.fround(Number(declarations[0][1])), name).toBe(Math.fround(value));
        expect(file, name).not.toMatch(new RegExp(`const ${name}\\b`));
      }
    }
  });
});
