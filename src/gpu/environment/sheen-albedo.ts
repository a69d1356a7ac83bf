/**
 * The device's sheen albedo table (shaders/sheen-albedo.wgsl): KHR_materials_sheen's directional
 * albedo E(n·v, roughness), rendered once per device by the first material with sheen and shared
 * by every later one (a 32×32 r16float texture, 2 KiB). Materials bind it in group 2
 * (PbrExtensionBinding.SHEEN_ALBEDO); it lives as long as the device.
 */
import pbrWgsl from '../../../shaders/pbr.wgsl?raw';
import lobesWgsl from '../../../shaders/pbr-extensions/lobes.wgsl?raw';
import sheenAlbedoWgsl from '../../../shaders/sheen-albedo.wgsl?raw';
import { perDevice } from '../device/per-device.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';

/** Texels per side: n·v across, roughness down. */
export const SHEEN_ALBEDO_SIZE = 32;
export const SHEEN_ALBEDO_FORMAT: GPUTextureFormat = 'r16float';

/** The table's WGSL: the PBR and sheen lobe functions it integrates, then its own stages. */
export const SHEEN_ALBEDO_WGSL = pipelineShader('sheen albedo table', {
  'table size': `const SHEEN_ALBEDO_SIZE: u32 = ${SHEEN_ALBEDO_SIZE}u;`, 'pbr.wgsl': pbrWgsl, 'pbr-extensions/lobes.wgsl': lobesWgsl, 'sheen-albedo.wgsl': sheenAlbedoWgsl,
});

/** The table on `device`, rendered on first use (its pipeline built asynchronously, as uploads are). */
export const sheenAlbedoTable = perDevice(async (device): Promise<GPUTexture> => {
  const module = device.createShaderModule({ label: 'sheen albedo table', code: SHEEN_ALBEDO_WGSL });
  const pipeline = await device.createRenderPipelineAsync({
    label: 'sheen albedo table',
    layout: device.createPipelineLayout({ label: 'sheen albedo table', bindGroupLayouts: [] }),
    vertex: { module, entryPoint: 'vsSheenAlbedo' },
    fragment: { module, entryPoint: 'fsSheenAlbedo', targets: [{ format: SHEEN_ALBEDO_FORMAT }] },
    primitive: { topology: 'triangle-list' },
  });
  const texture = device.createTexture({
    label: 'sheen albedo table', size: [SHEEN_ALBEDO_SIZE, SHEEN_ALBEDO_SIZE], format: SHEEN_ALBEDO_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
  });
  const encoder = device.createCommandEncoder({ label: 'sheen albedo table' });
  const pass = encoder.beginRenderPass({
    label: 'sheen albedo table', colorAttachments: [{ view: texture.createView({ label: 'sheen albedo table' }), loadOp: 'clear', storeOp: 'store' }],
  });
  pass.setPipeline(pipeline);
  pass.draw(3);
  pass.end();
  device.queue.submit([encoder.finish()]);
  return texture;
});
