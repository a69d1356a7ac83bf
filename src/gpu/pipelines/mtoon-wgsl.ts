/** The MToon path's WGSL (mtoon-path.ts), its own module so it is fetched only when a model draws MToon. */
import mtoonWgsl from '../../../shaders/mtoon.wgsl?raw';
import type { WgslFiles } from './material-path.ts';

export const MTOON_WGSL: WgslFiles = { 'mtoon.wgsl': mtoonWgsl };
