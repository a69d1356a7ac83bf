/**
 * Compiling WGSL so that its errors reach the caller. A broken module is still a
 * GPUShaderModule: WebGPU reports its errors only through getCompilationInfo() (and an
 * uncaptured validation error), and a pipeline built from it fails later with a message
 * that names no line of the source. Code that builds pipelines from its own WGSL compiles
 * through here and gets every error, with line and column, in one exception.
 */

/** Every error message of `module` as `line:column message`; warnings and info are left out. */
export async function compilationErrors(module: GPUShaderModule): Promise<string[]> {
  const info = await module.getCompilationInfo();
  return info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
}

/** Throws every WGSL error of `module` in one message naming it `name`; warnings pass. */
export async function throwOnCompilationErrors(module: GPUShaderModule, name: string): Promise<void> {
  const errors = await compilationErrors(module);
  if (errors.length > 0) throw new Error(`${name} does not compile: ${errors.join('; ')}`);
}

/** A labelled module of `code`, once it has compiled; rejects with its WGSL errors otherwise. */
export async function compileShaderModule(device: GPUDevice, label: string, code: string): Promise<GPUShaderModule> {
  const module = device.createShaderModule({ label, code });
  await throwOnCompilationErrors(module, label);
  return module;
}

/**
 * WGSL `const` declarations of f32 values a shader shares with TS code (tolerances, margins,
 * thresholds): the TS constant is the one source, prepended to the shader's source instead of a
 * copy kept in step by a comment. Each value is written as its float32 rounding, which WGSL reads
 * back as that same f32.
 */
export function wgslF32Constants(values: Readonly<Record<string, number>>): string {
  return Object.entries(values).map(([name, value]) => {
    if (!Number.isFinite(value)) throw new RangeError(`wgslF32Constants: ${name} is ${value}, not a finite number`);
    return `const ${name}: f32 = ${Math.fround(value)};`;
  }).join('\n');
}
