/**
 * `skinned-mesh-webgpu/vue` (types only): `<skinned-mesh-viewer>` and `<extra-model>` among
 * Vue 3's native elements (`IntrinsicElementAttributes` of `@vue/runtime-dom`, which Vue's TSX
 * and its template type checker, vue-tsc, read), with their attributes typed (jsx-attributes.ts)
 * beside Vue's own HTML attributes. A project opts in with
 * `import type {} from 'skinned-mesh-webgpu/vue';` once; the element itself still comes from
 * importing `skinned-mesh-webgpu/element`, and Vue's compiler must be told the tags are custom
 * elements (`compilerOptions.isCustomElement`).
 */
import type { HTMLAttributes } from '@vue/runtime-dom';
import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

export type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

/** Vue's attributes of an element, without the HTML ones an element's own attribute replaces. */
type ElementProps<Own> = Own & Omit<HTMLAttributes, keyof Own>;

declare module '@vue/runtime-dom' {
  interface IntrinsicElementAttributes {
    'skinned-mesh-viewer': ElementProps<SkinnedMeshViewerAttributes>;
    'extra-model': ElementProps<ExtraModelAttributes>;
  }
}
