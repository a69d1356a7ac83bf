/**
 * The split-sum BRDF table made on the CPU (src/gpu/environment/brdf-lut.ts): texel for texel
 * what the render pipeline that made it before gave (its fragment shader, kept here as the
 * reference, run on Dawn), and the environment's pipeline count, the compile a page's first
 * frame waited on.
 */
import { describe, expect, it } from 'vitest';
import { BRDF_LUT_SAMPLES, brdfLutHalves, brdfLutRows, brdfScaleBias, prepareBrdfLut } from '../../../src/gpu/environment/brdf-lut.ts';
import { ENVIRONMENT_PIPELINES, ENVIRONMENT_SHADER_SOURCE, acquireBrdfLut, brdfLutTexture, prefilterEnvironment, releaseBrdfLut } from '../../../src/gpu/environment/prefilter.ts';
import { neutralEnvironment } from '../../../src/gpu/environment/neutral.ts';
import { BRDF_LUT_SIZE } from '../../../src/gpu/environment/prefilter-params.ts';
import { fromHalf, readHalfTexels } from '../../support/half-float.ts';
import { onOwnDevice } from '../../support/webgpu.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';

const device = await testDevice('BRDF table test device');

/**
 * The table's fragment shader as shaders/environment.wgsl had it (with the prefilter's
 * hammersley and importanceSampleGgx, pbr.wgsl's visibilitySmithGgx): f32 on the GPU.
 */
const GPU_REFERENCE_WGSL = `${ENVIRONMENT_SHADER_SOURCE}
@fragment
fn fsBrdfLutReference(in: FullscreenOutput) -> @location(0) vec4f {
  let nDotV = max(in.uv.x, 1e-3);
  let roughness = max(in.uv.y, MIN_ROUGHNESS);
  let alpha = roughness * roughness;
  let v = vec3f(sqrt(1.0 - nDotV * nDotV), 0.0, nDotV);
  let n = vec3f(0.0, 0.0, 1.0);
  var a = 0.0;
  var b = 0.0;
  for (var i = 0u; i < ${BRDF_LUT_SAMPLES}u; i++) {
    let h = importanceSampleGgx(hammersley(i, ${BRDF_LUT_SAMPLES}u), n, alpha);
    let vDotH = dot(v, h);
    let l = 2.0 * vDotH * h - v;
    let nDotL = l.z;
    let nDotH = h.z;
    if (nDotL > 0.0 && vDotH > 0.0) {
      let g = visibilitySmithGgx(nDotL, nDotV, alpha) * 4.0 * nDotL * vDotH / nDotH;
      let fc = pow(1.0 - vDotH, 5.0);
      a += (1.0 - fc) * g;
      b += fc * g;
    }
  }
  return vec4f(a / ${BRDF_LUT_SAMPLES}.0, b / ${BRDF_LUT_SAMPLES}.0, 0.0, 1.0);
}`;

async function gpuReferenceTable(gpu: GPUDevice): Promise<Float32Array> {
  const module = gpu.createShaderModule({ label: 'BRDF table reference', code: GPU_REFERENCE_WGSL });
  const pipeline = await gpu.createRenderPipelineAsync({
    label: 'BRDF table reference', layout: 'auto',
    vertex: { module, entryPoint: 'vsFullscreen' },
    fragment: { module, entryPoint: 'fsBrdfLutReference', targets: [{ format: 'rg16float' }] },
  });
  const texture = gpu.createTexture({
    label: 'BRDF table reference', size: [BRDF_LUT_SIZE, BRDF_LUT_SIZE], format: 'rg16float',
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
  });
  const encoder = gpu.createCommandEncoder({ label: 'BRDF table reference' });
  const pass = encoder.beginRenderPass({ colorAttachments: [{ view: texture.createView(), loadOp: 'clear', storeOp: 'store' }] });
  pass.setPipeline(pipeline);
  pass.draw(3);
  pass.end();
  gpu.queue.submit([encoder.finish()]);
  const texels = await readHalfTexels(gpu, texture, 0, 0, 2);
  texture.destroy();
  return texels;
}

describe.skipIf(!device)('BRDF table on the CPU', () => {
  it('equals the render pipeline that made it before, texel for texel, to the last bits of a half float', async () => {
    const gpu = device!;
    const reference = await expectNoGpuErrors(gpu, () => gpuReferenceTable(gpu));
    const table = brdfLutHalves();
    expect(table.length).toBe(BRDF_LUT_SIZE * BRDF_LUT_SIZE * 2);
    let worst = 0;
    for (let i = 0; i < table.length; i++) {
      const cpu = fromHalf(table[i]), want = reference[i];
      // f32 sums on the GPU, f64 here: a rounding apart, never a different estimate.
      const slack = Math.abs(cpu - want) / Math.max(Math.abs(want) * 2 ** -10, 2 ** -20);
      worst = Math.max(worst, slack);
    }
    expect(worst).toBeLessThanOrEqual(2);
  });

  it('made in slices of rows (prepareBrdfLut, between other tasks) it is the table made in one pass', async () => {
    const texels = BRDF_LUT_SIZE * BRDF_LUT_SIZE * 2;
    const sliced = new Uint16Array(texels);
    for (const [from, to] of [[0, 5], [5, 13], [13, 40], [40, BRDF_LUT_SIZE]]) brdfLutRows(sliced, from, to);
    expect(sliced).toEqual(brdfLutRows(new Uint16Array(texels), 0, BRDF_LUT_SIZE));
    await prepareBrdfLut();
    expect(brdfLutHalves()).toEqual(sliced);
  });

  it('brdfScaleBias: smooth and head-on returns f0 whole; rough and grazing loses energy; A + B ≤ 1', () => {
    const ab = new Float64Array(2);
    brdfScaleBias(1, 0, ab);
    expect(ab[0]).toBeGreaterThan(0.95);
    expect(ab[1]).toBeLessThan(0.02);
    brdfScaleBias(0.1, 1, ab);
    expect(ab[0] + ab[1]).toBeLessThan(0.8);
    for (const nDotV of [0, 0.3, 0.7, 1]) for (const r of [0, 0.5, 1]) expect(brdfScaleBias(nDotV, r, ab)[0] + ab[1]).toBeLessThanOrEqual(1.005);
  });

  it(`a device prefilters its first environment with ${ENVIRONMENT_PIPELINES} render pipelines and no compute pipeline, its table with none`, () => onOwnDevice('environment pipeline count device', async (gpu) => {
    const created: string[] = [];
    for (const name of ['createRenderPipeline', 'createRenderPipelineAsync', 'createComputePipeline', 'createComputePipelineAsync'] as const) {
      const original = gpu[name].bind(gpu) as (d: never) => unknown;
      (gpu as unknown as Record<string, unknown>)[name] = (descriptor: { label?: string }) => {
        created.push(`${name} ${descriptor.label}`);
        return original(descriptor as never);
      };
    }
    const environment = await prefilterEnvironment(gpu, neutralEnvironment(64), 'count');
    acquireBrdfLut(gpu);
    expect(created).toHaveLength(ENVIRONMENT_PIPELINES);
    expect(created.every((c) => c.startsWith('createRenderPipelineAsync'))).toBe(true);
    expect(brdfLutTexture(gpu)).toBeDefined();
    // The next environment compiles nothing.
    const next = await prefilterEnvironment(gpu, neutralEnvironment(64), 'count again');
    expect(created).toHaveLength(ENVIRONMENT_PIPELINES);
    releaseBrdfLut(gpu);
    environment.destroy();
    next.destroy();
    await gpu.queue.onSubmittedWorkDone();
  }));
});
