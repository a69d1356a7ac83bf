/**
 * `skinned-mesh-webgpu/solid` (types only): `<skinned-mesh-viewer>` and `<extra-model>` in
 * Solid's JSX, with their attributes typed (jsx-attributes.ts) beside Solid's own HTML
 * attributes. A project opts in with `import type {} from 'skinned-mesh-webgpu/solid';` once;
 * the element itself still comes from importing `skinned-mesh-webgpu/element`. As in React
 * (react.ts), a misspelled hyphenated attribute name is not a type error.
 */
import type { JSX } from 'solid-js';
import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';
import type { ExtraModelElement } from './extra-model.ts';
import type { SkinnedMeshViewerElement } from './viewer.ts';

export type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

/** Solid's attributes of an element of class `E`, without the HTML ones an element's own attribute replaces. */
type ElementProps<E, Own> = Own & Omit<JSX.HTMLAttributes<E>, keyof Own>;

declare module 'solid-js' {
  namespace JSX {
    interface IntrinsicElements {
      'skinned-mesh-viewer': ElementProps<SkinnedMeshViewerElement, SkinnedMeshViewerAttributes>;
      'extra-model': ElementProps<ExtraModelElement, ExtraModelAttributes>;
    }
  }
}
