/**
 * `skinned-mesh-webgpu/svelte` (types only): `<skinned-mesh-viewer>` and `<extra-model>` in
 * Svelte 5's element typings (`svelte/elements`, which svelte-check and the editor read), with
 * their attributes typed (jsx-attributes.ts) beside Svelte's own HTML attributes. A project opts
 * in with `import type {} from 'skinned-mesh-webgpu/svelte';` once (in a `.d.ts` or a module of
 * its own); the element itself still comes from importing `skinned-mesh-webgpu/element`.
 */
import type { HTMLAttributes } from 'svelte/elements';
import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';
import type { ExtraModelElement } from './extra-model.ts';
import type { SkinnedMeshViewerElement } from './viewer.ts';

export type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from './jsx-attributes.ts';

/** Svelte's attributes of an element of class `E`, without the HTML ones an element's own attribute replaces. */
type ElementProps<E extends EventTarget, Own> = Own & Omit<HTMLAttributes<E>, keyof Own>;

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'skinned-mesh-viewer': ElementProps<SkinnedMeshViewerElement, SkinnedMeshViewerAttributes>;
    'extra-model': ElementProps<ExtraModelElement, ExtraModelAttributes>;
  }
}
