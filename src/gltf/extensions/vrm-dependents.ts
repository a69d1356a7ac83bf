/**
 * Code of higher layers that a model with VRM parts needs before it can be used, fetched while
 * the file decodes: anim/instance.ts registers the VRM runtime's loader here (gltf may not import
 * anim), and `loadGltf` starts every registered loader as soon as the JSON shows a VRM part
 * (vrm-presence.ts) and resolves only once they have arrived. So a page that never loads a VRM
 * file never fetches that code, and `createModelInstance` stays synchronous for one that does.
 */

const loaders = new Set<() => Promise<unknown>>();

/** Registers `load` (idempotent, cached by the caller) to run for every file with a VRM part. */
export function loadWithVrmModels(load: () => Promise<unknown>): void {
  loaders.add(load);
}

/** Starts every registered loader; resolves when all have arrived, rejects with the first failure. */
export function loadVrmDependents(): Promise<unknown> {
  return Promise.all([...loaders].map((load) => load()));
}
