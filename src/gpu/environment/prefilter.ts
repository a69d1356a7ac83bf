/**
 * Prefilters an equirect image on the GPU into an Environment (shaders/environment.wgsl):
 * 1. the image (downsampled to MAX_EQUIRECT_WIDTH, as rgba16float) → the radiance cube, a
 *    quarter of the image's width a side (128…512: `radianceCubeSize`);
 * 2. the radiance cube's mip chain, 2×2 averages;
 * 3. the GGX specular chain from it, SPECULAR_LEVELS levels of rising roughness, level 0 a
 *    quarter of the radiance cube's size;
 * and projects the image's diffuse irradiance on SH9 on the CPU meanwhile (sh9.ts), whose
 * band 1 gives the dominant direction (the ground shadow's light). The split-sum BRDF table is
 * computed on the CPU once per page (brdf-lut.ts) and uploaded once per device (`acquireBrdfLut`):
 * three render pipelines, all asked for at once (ENVIRONMENT_PIPELINES).
 * Everything runs within WebGPU's default limits (SwiftShader included).
 */
import environmentWgsl from '../../../shaders/environment.wgsl?raw';
import fullscreenWgsl from '../../../shaders/fullscreen.wgsl?raw';
import pbrWgsl from '../../../shaders/pbr.wgsl?raw';
import { mipLevelCount } from '../textures/mipmaps.ts';
import { perDevice } from '../device/per-device.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';
import { Environment } from './environment.ts';
import { downsampleEquirect, toHalfRgba, type EquirectImage } from './equirect.ts';
import {
  ENVIRONMENT_FORMAT, MAX_EQUIRECT_WIDTH, PREFILTER_PARAMS_SIZE, PrefilterBinding,
  PrefilterParamsOffset, radianceCubeSize, SPECULAR_LEVELS, SPECULAR_SAMPLES, SPECULAR_SIZE_RATIO,
} from './prefilter-params.ts';
import { prepareBrdfLut } from './brdf-lut.ts';
import { dominantDirection, irradianceSh9 } from './sh9.ts';
// The BRDF table's texture and the dominant direction lived here; kept importable from here.
export { acquireBrdfLut, brdfLutTexture, releaseBrdfLut } from './brdf-lut-texture.ts';
export { dominantDirection } from './sh9.ts';

export const ENVIRONMENT_SHADER_SOURCE = pipelineShader('environment prefilter', {
  'pbr.wgsl': pbrWgsl, 'fullscreen.wgsl': fullscreenWgsl, 'environment.wgsl': environmentWgsl,
});

/** Uniform slots are this far apart (the default minUniformBufferOffsetAlignment). */
const PARAMS_STRIDE = 256;

interface PrefilterPipelines {
  readonly module: GPUShaderModule;
  readonly sampler: GPUSampler;
  readonly equirectLayout: GPUBindGroupLayout;
  readonly cubeLayout: GPUBindGroupLayout;
  readonly equirectToCube: Promise<GPURenderPipeline>;
  readonly downsample: Promise<GPURenderPipeline>;
  readonly specular: Promise<GPURenderPipeline>;
}

/** Render pipelines a device creates to prefilter its first environment (each later one reuses them). */
export const ENVIRONMENT_PIPELINES = 3;

const prefilterPipelines = perDevice((device): PrefilterPipelines => {
  const module = device.createShaderModule({ label: 'environment prefilter', code: ENVIRONMENT_SHADER_SOURCE });
  const FRAGMENT = GPUShaderStage.FRAGMENT;
  const B = PrefilterBinding;
  const params: GPUBindGroupLayoutEntry = { binding: B.PARAMS, visibility: FRAGMENT, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: PREFILTER_PARAMS_SIZE } };
  const sampler: GPUBindGroupLayoutEntry = { binding: B.SAMPLER, visibility: FRAGMENT, sampler: { type: 'filtering' } };
  const equirectLayout = device.createBindGroupLayout({
    label: 'environment prefilter: equirect', entries: [params, sampler, { binding: B.EQUIRECT, visibility: FRAGMENT, texture: { sampleType: 'float' } }],
  });
  const cubeLayout = device.createBindGroupLayout({
    label: 'environment prefilter: cube', entries: [params, sampler, { binding: B.SOURCE_CUBE, visibility: FRAGMENT, texture: { sampleType: 'float', viewDimension: 'cube' } }],
  });
  const render = (name: string, entryPoint: string, layout: GPUBindGroupLayout, constants: Record<string, number> = {}) => device.createRenderPipelineAsync({
    label: `environment prefilter: ${name}`,
    layout: device.createPipelineLayout({ label: `environment prefilter: ${name}`, bindGroupLayouts: [layout] }),
    vertex: { module, entryPoint: 'vsFullscreen' },
    fragment: { module, entryPoint, constants, targets: [{ format: ENVIRONMENT_FORMAT }] },
    primitive: { topology: 'triangle-list' },
  });
  return {
    module,
    sampler: device.createSampler({
      label: 'environment prefilter sampler', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear',
      addressModeU: 'repeat', addressModeV: 'clamp-to-edge',
    }),
    equirectLayout, cubeLayout,
    equirectToCube: render('equirect to cube', 'fsEquirectToCube', equirectLayout),
    downsample: render('cube mip', 'fsDownsample', cubeLayout),
    specular: render('specular', 'fsSpecular', cubeLayout, { MIRROR_SOURCE_LEVEL: Math.log2(SPECULAR_SIZE_RATIO) }),
  };
});

/**
 * Starts compiling the prefilter's pipelines on `device` (once per device), before the image
 * to prefilter is made or fetched: `prefilterEnvironment` then finds them under way.
 */
export function requestPrefilterPipelines(device: GPUDevice): void {
  prefilterPipelines(device);
}

/** Prefilters `image` into an Environment (see the module comment). The caller owns the result. */
export async function prefilterEnvironment(device: GPUDevice, image: EquirectImage, label = 'environment'): Promise<Environment> {
  const p = prefilterPipelines(device);
  // While the pipelines compile (another process, in a browser): the BRDF table the first frame binds.
  await prepareBrdfLut();
  const [equirectToCube, downsample, specularPipeline] = await Promise.all([p.equirectToCube, p.downsample, p.specular]);
  const source = downsampleEquirect(image, MAX_EQUIRECT_WIDTH);
  const equirect = device.createTexture({
    label: `${label} equirect`, size: [source.width, source.height], format: ENVIRONMENT_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST,
  });
  device.queue.writeTexture({ texture: equirect }, toHalfRgba(source), { bytesPerRow: source.width * 8 }, [source.width, source.height]);
  const radianceSize = radianceCubeSize(source.width), specularSize = radianceSize / SPECULAR_SIZE_RATIO;
  const radianceLevels = mipLevelCount(radianceSize, radianceSize);
  const radiance = device.createTexture({
    label: `${label} radiance`, size: [radianceSize, radianceSize, 6], mipLevelCount: radianceLevels, format: ENVIRONMENT_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC, textureBindingViewDimension: 'cube',
  });
  const specular = device.createTexture({
    label: `${label} specular`, size: [specularSize, specularSize, 6], mipLevelCount: SPECULAR_LEVELS, format: ENVIRONMENT_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC, textureBindingViewDimension: 'cube',
  });

  // One uniform slot per pass: 6 faces × (1 + radiance levels − 1 + specular levels).
  const passes = 6 * (radianceLevels + SPECULAR_LEVELS);
  const paramsData = new ArrayBuffer(passes * PARAMS_STRIDE);
  const params = device.createBuffer({ label: `${label} prefilter params`, size: paramsData.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  let slot = 0;
  const nextSlot = (face: number, roughness: number): number => {
    const at = slot++ * PARAMS_STRIDE;
    const view = new DataView(paramsData, at, PREFILTER_PARAMS_SIZE);
    view.setUint32(PrefilterParamsOffset.FACE, face, true);
    view.setFloat32(PrefilterParamsOffset.ROUGHNESS, roughness, true);
    view.setUint32(PrefilterParamsOffset.SAMPLE_COUNT, SPECULAR_SAMPLES, true);
    view.setFloat32(PrefilterParamsOffset.SOURCE_TEXEL_SOLID_ANGLE, (4 * Math.PI) / (6 * radianceSize * radianceSize), true);
    return at;
  };
  const B = PrefilterBinding;
  const paramsEntry: GPUBindGroupEntry = { binding: B.PARAMS, resource: { buffer: params, size: PREFILTER_PARAMS_SIZE } };
  const samplerEntry: GPUBindGroupEntry = { binding: B.SAMPLER, resource: p.sampler };
  const cubeGroup = (view: GPUTextureView, name: string) => device.createBindGroup({
    label: `${label} prefilter: ${name}`, layout: p.cubeLayout, entries: [paramsEntry, samplerEntry, { binding: B.SOURCE_CUBE, resource: view }],
  });

  const encoder = device.createCommandEncoder({ label: `${label} prefilter` });
  const drawFace = (pipeline: GPURenderPipeline, group: GPUBindGroup, target: GPUTexture, level: number, face: number, roughness: number, name: string) => {
    const offset = nextSlot(face, roughness);
    const view = target.createView({ label: `${target.label} ${name} level ${level} face ${face}`, dimension: '2d', baseMipLevel: level, mipLevelCount: 1, baseArrayLayer: face, arrayLayerCount: 1 });
    const pass = encoder.beginRenderPass({ label: `${label} ${name} level ${level} face ${face}`, colorAttachments: [{ view, loadOp: 'clear', storeOp: 'store' }] });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group, [offset]);
    pass.draw(3);
    pass.end();
  };
  const equirectGroup = device.createBindGroup({
    label: `${label} prefilter: equirect`, layout: p.equirectLayout,
    entries: [paramsEntry, samplerEntry, { binding: B.EQUIRECT, resource: equirect.createView({ label: `${label} equirect view` }) }],
  });
  for (let face = 0; face < 6; face++) drawFace(equirectToCube, equirectGroup, radiance, 0, face, 0, 'radiance');
  for (let level = 1; level < radianceLevels; level++) {
    const above = radiance.createView({ label: `${label} radiance level ${level - 1}`, dimension: 'cube', baseMipLevel: level - 1, mipLevelCount: 1 });
    const group = cubeGroup(above, `radiance level ${level - 1}`);
    for (let face = 0; face < 6; face++) drawFace(downsample, group, radiance, level, face, 0, 'radiance');
  }
  const specularSource = cubeGroup(radiance.createView({ label: `${label} radiance cube`, dimension: 'cube' }), 'radiance cube');
  for (let level = 0; level < SPECULAR_LEVELS; level++) {
    for (let face = 0; face < 6; face++) drawFace(specularPipeline, specularSource, specular, level, face, level / (SPECULAR_LEVELS - 1), 'specular');
  }
  device.queue.writeBuffer(params, 0, paramsData);
  device.queue.submit([encoder.finish()]);

  params.destroy();
  equirect.destroy();
  // The passes run on the GPU while the CPU projects the irradiance; frames queue after them.
  const coefficients = irradianceSh9(image);
  return new Environment(radiance, specular, dominantDirection(coefficients), coefficients);
}
