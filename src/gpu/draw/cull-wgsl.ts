/** The GPU culling pass's WGSL (culling-pass.ts), its own module so that it is fetched only when a crowd is first culled on the GPU. */
import drawRecordWgsl from '../../../shaders/draw-record.wgsl?raw';
import cullWgsl from '../../../shaders/cull.wgsl?raw';
import { WEIGHT_SUM_MARGIN } from '../../anim/skinned-bounds.ts';
import { wgslF32Constants } from '../device/shader-module.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';

export const CULL_WGSL = pipelineShader('cull', { 'draw-record.wgsl': drawRecordWgsl, 'f32 constants': wgslF32Constants({ WEIGHT_SUM_MARGIN }), 'cull.wgsl': cullWgsl });
