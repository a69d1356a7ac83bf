/**
 * `skinned-mesh-webgpu/react` (types only): `<skinned-mesh-viewer>` and `<extra-model>` in
 * React 19's JSX, with their attributes typed (jsx-attributes.ts) beside React's own HTML
 * attributes and a `ref` to the element's class. A project opts in with
 * `import type {} from 'skinned-mesh-webgpu/react';` once (it needs `@types/react`); the
 * element itself still comes from importing `skinned-mesh-webgpu/element`.
 *
 * TypeScript does not check JSX attribute names that contain a hyphen against the element's
 * type (as for `data-*`), so a misspelled `camera-control` passes the compiler; a misspelled
 * plain name (`scr`) and a value of the wrong type (`camera-controls="yes"`) are errors.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';
import type { ExtraModelElement } from './extra-model.ts';
import type { SkinnedMeshViewerElement } from './viewer.ts';

export type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

/** React's attributes of an element of class `E`, without the HTML ones an element's own attribute replaces. */
type ElementProps<E, Own> = Own & Omit<DetailedHTMLProps<HTMLAttributes<E>, E>, keyof Own>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'skinned-mesh-viewer': ElementProps<SkinnedMeshViewerElement, SkinnedMeshViewerAttributes>;
      'extra-model': ElementProps<ExtraModelElement, ExtraModelAttributes>;
    }
  }
}
