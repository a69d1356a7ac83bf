/**
 * The skybox (RenderSettings.skybox): the environment's radiance cube drawn behind
 * everything (shaders/environment-lighting.wgsl vsSkybox / fsSkybox), one triangle over the
 * viewport at the far plane, first in the lit pass, neither testing nor writing depth.
 */
import { deviceFrameDraw, type FrameDraw, type FrameDrawKind } from '../pipelines/frame-draw.ts';

const SKYBOX: FrameDrawKind = {
  name: 'skybox', vertexEntry: 'vsSkybox', fragmentEntry: 'fsSkybox', vertexCount: 3, blend: false, depthCompare: 'always',
};

export type Skybox = FrameDraw;

/** The device's skybox for `format` (for the transmission pass's target: `transmissionSource`), shared by every Renderer. */
export function deviceSkybox(device: GPUDevice, format: GPUTextureFormat, transmissionSource = false): Skybox {
  return deviceFrameDraw(device, SKYBOX, format, transmissionSource);
}
