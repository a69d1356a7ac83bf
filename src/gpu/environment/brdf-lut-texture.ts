/**
 * The device's split-sum BRDF table as a texture (the values: brdf-lut.ts, on the CPU), shared by
 * every renderer on the device: what the mesh pipelines' frame group binds with any environment.
 */
import { brdfLutHalves } from './brdf-lut.ts';
import { BRDF_LUT_SIZE } from './prefilter-params.ts';

const LUT_FORMAT: GPUTextureFormat = 'rg16float';
/** Two half floats. */
const LUT_TEXEL_BYTES = 4;

interface LutHolder { readonly texture: GPUTexture; readonly view: GPUTextureView; users: number }
const brdfLuts = new WeakMap<GPUDevice, LutHolder>();

/**
 * The device's split-sum BRDF table (BRDF_LUT_SIZE², rg16float: f0 scale and bias by n·v
 * across and roughness down; brdf-lut.ts): uploaded by the first user, shared by every later
 * one, freed when the last calls `releaseBrdfLut` (a page without viewers holds no GPU memory).
 */
export function acquireBrdfLut(device: GPUDevice): GPUTextureView {
  let lut = brdfLuts.get(device);
  if (!lut) {
    const texture = device.createTexture({
      label: 'BRDF lookup table', size: [BRDF_LUT_SIZE, BRDF_LUT_SIZE], format: LUT_FORMAT,
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC,
    });
    const view = texture.createView({ label: 'BRDF lookup table' });
    device.queue.writeTexture({ texture }, brdfLutHalves(), { bytesPerRow: BRDF_LUT_SIZE * LUT_TEXEL_BYTES }, [BRDF_LUT_SIZE, BRDF_LUT_SIZE]);
    lut = { texture, view, users: 0 };
    brdfLuts.set(device, lut);
  }
  lut.users++;
  return lut.view;
}

/** The texture behind the device's table while it is held (for tests to read back). */
export function brdfLutTexture(device: GPUDevice): GPUTexture | undefined {
  return brdfLuts.get(device)?.texture;
}

/** One user of `acquireBrdfLut` is done with it. */
export function releaseBrdfLut(device: GPUDevice): void {
  const lut = brdfLuts.get(device);
  if (!lut || --lut.users > 0) return;
  brdfLuts.delete(device);
  lut.texture.destroy();
}
