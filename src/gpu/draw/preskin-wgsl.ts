/** The compute pre-skinning pass's WGSL (preskin.ts), its own module so that it is fetched only when a model is first skinned by compute. */
import centerOfRotationWgsl from '../../../shaders/center-of-rotation.wgsl?raw';
import drawRecordWgsl from '../../../shaders/draw-record.wgsl?raw';
import morphWgsl from '../../../shaders/morph.wgsl?raw';
import preskinWgsl from '../../../shaders/preskin.wgsl?raw';
import skinningWgsl from '../../../shaders/skinning.wgsl?raw';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';

export const PRESKIN_WGSL = pipelineShader('preskin', {
  'skinning.wgsl': skinningWgsl, 'draw-record.wgsl': drawRecordWgsl, 'center-of-rotation.wgsl': centerOfRotationWgsl, 'morph.wgsl': morphWgsl, 'preskin.wgsl': preskinWgsl,
});
