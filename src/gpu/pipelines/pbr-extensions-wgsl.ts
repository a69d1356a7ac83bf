/** The PBR extensions path's WGSL (pbr-extensions-path.ts), its own module so it is fetched only when a model's materials need it. */
import lobesWgsl from '../../../shaders/pbr-extensions/lobes.wgsl?raw';
import iridescenceWgsl from '../../../shaders/pbr-extensions/iridescence.wgsl?raw';
import pbrExtensionsWgsl from '../../../shaders/pbr-extensions/pbr-extensions.wgsl?raw';
import type { WgslFiles } from './material-path.ts';

export const PBR_EXTENSIONS_WGSL: WgslFiles = {
  'pbr-extensions/lobes.wgsl': lobesWgsl, 'pbr-extensions/iridescence.wgsl': iridescenceWgsl, 'pbr-extensions/pbr-extensions.wgsl': pbrExtensionsWgsl,
};
