/** The GPU dual-quaternion palette pass's WGSL (dq-palette-pass.ts), its own module so that it is fetched only when a crowd first skins by dual quaternions on the GPU. */
import dqPaletteWgsl from '../../../shaders/dq-palette.wgsl?raw';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';

export const DQ_PALETTE_WGSL = pipelineShader('dq-palette', { 'dq-palette.wgsl': dqPaletteWgsl });
