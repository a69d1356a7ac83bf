/**
 * The VRM runtime (vrm-runtime.ts: look-at, expressions, constraints, spring bones) on first use:
 * its code is a chunk of its own in a built page, so one that shows no VRM model never fetches it.
 * `loadGltf` starts `loadVrmRuntime` when a file has a VRM part (anim/instance.ts registers it
 * there), so a model it returns with `vrm` can be given its runtime synchronously.
 */
import type { VrmRuntime } from './vrm-runtime.ts';

let runtime: typeof VrmRuntime | undefined;
let loading: Promise<typeof VrmRuntime> | undefined;

/** Imports the VRM runtime once (later calls share the import); `loadedVrmRuntime` returns it after. */
export function loadVrmRuntime(): Promise<typeof VrmRuntime> {
  loading ??= import('./vrm-runtime.ts').then((module) => (runtime = module.VrmRuntime), (error: unknown) => {
    loading = undefined; // a failed fetch (a page gone offline) is tried again by the next VRM file
    throw error;
  });
  return loading;
}

/** The VRM runtime's class once `loadVrmRuntime` has resolved, else undefined. */
export function loadedVrmRuntime(): typeof VrmRuntime | undefined {
  return runtime;
}
