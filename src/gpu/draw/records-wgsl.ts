/** The GPU record pass's WGSL (records-pass.ts), its own module so that it is fetched only when a crowd first writes its records on the GPU. */
import drawRecordWgsl from '../../../shaders/draw-record.wgsl?raw';
import recordsWgsl from '../../../shaders/records.wgsl?raw';
import { wgslF32Constants } from '../device/shader-module.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';
import { NORMAL_DETERMINANT_EPSILON, UNIFORM_SCALE_TOLERANCE } from './skin-normals.ts';

export const RECORDS_WGSL = pipelineShader('records', {
  'draw-record.wgsl': drawRecordWgsl, 'f32 constants': wgslF32Constants({ NORMAL_DETERMINANT_EPSILON, UNIFORM_SCALE_TOLERANCE }), 'records.wgsl': recordsWgsl,
});
