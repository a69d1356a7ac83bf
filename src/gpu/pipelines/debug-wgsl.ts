/** The debug overlays' WGSL (debug.ts), its own module so that it is fetched only when a debug view is first drawn. */
import debugWgsl from '../../../shaders/debug.wgsl?raw';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';
import { PBR_PATH } from './pbr-path.ts';
import { MESH_WGSL } from './mesh.ts';

/** The mesh shader (structs, bindings, vertex inputs, skinning) followed by the overlays. */
export const DEBUG_SHADER_SOURCE = pipelineShader('debug overlays', { ...MESH_WGSL, ...PBR_PATH.files, 'debug.wgsl': debugWgsl });
