/**
 * `skinned-mesh-webgpu/preact` (types only): `<skinned-mesh-viewer>` and `<extra-model>` in
 * Preact's JSX, with their attributes typed (jsx-attributes.ts) beside Preact's own HTML
 * attributes. A project opts in with `import type {} from 'skinned-mesh-webgpu/preact';` once;
 * the element itself still comes from importing `skinned-mesh-webgpu/element`. As in React
 * (react.ts), a misspelled hyphenated attribute name is not a type error.
 */
import type { JSX } from 'preact';
import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';
import type { ExtraModelElement } from './extra-model.ts';
import type { SkinnedMeshViewerElement } from './viewer.ts';

export type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

/** Preact's attributes of an element of class `E`, without the HTML ones an element's own attribute replaces. */
type ElementProps<E extends EventTarget, Own> = Own & Omit<JSX.HTMLAttributes<E>, keyof Own>;

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'skinned-mesh-viewer': ElementProps<SkinnedMeshViewerElement, SkinnedMeshViewerAttributes>;
      'extra-model': ElementProps<ExtraModelElement, ExtraModelAttributes>;
    }
  }
}
