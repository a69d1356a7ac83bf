import { describe, expect, it } from 'vitest';
import { compilationErrors, compileShaderModule, throwOnCompilationErrors } from '../../../src/gpu/device/shader-module.ts';
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
