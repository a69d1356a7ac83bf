import type { Model } from '../../gltf/model.ts';
import { fileNameOf } from './source.ts';

/**
 * `animation-src="walk.glb dance.glb"`: clip libraries whose clips are retargeted onto the
 * element's model once, when it loads, and appended to its animations (a clashing name gets
 * its file's name in front: `dance.glb/Idle`). URLs resolve like `src`. A file that cannot be
 * fetched, parsed or mapped is skipped with a warning naming it; the model still shows.
 * Knows neither the DOM nor WebGPU, so it runs (and is tested) in Node with an injected fetch.
 */

export interface AnimationSourcesOptions {
  readonly baseUrl: string;
  readonly signal?: AbortSignal;
  readonly fetch?: typeof fetch;
  /** Each problem, naming the file (the element warns once per message). */
  readonly warn: (message: string) => void;
}

/** The URLs of an `animation-src` value (whitespace-separated; empty for null or blank). */
export function parseAnimationSources(value: string | null): string[] {
  return value === null ? [] : value.split(/\s+/).filter((s) => s.length > 0);
}

/** `model` with the clips of every `animation-src` file retargeted onto it and appended, in order. */
export async function addAnimationSources(model: Model, value: string | null, options: AnimationSourcesOptions): Promise<Model> {
  const urls = parseAnimationSources(value);
  if (urls.length === 0) return model;
  // Retargeting is imported only for a page that sets animation-src (first load).
  const [{ addClips }, { retargetClips }, { loadAnimationLibrary }] = await Promise.all([
    import('../../anim/retarget/add-clips.ts'), import('../../anim/retarget/retarget.ts'), import('../../anim/retarget/animation-library.ts'),
  ]);
  // Fetched in parallel, added in attribute order.
  const libraries = await Promise.all(urls.map(async (url) => {
    try {
      return await loadAnimationLibrary(url, { baseUrl: options.baseUrl, signal: options.signal, fetch: options.fetch });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      options.warn(`animation-src "${url}" was skipped: ${(error as Error).message}`);
      return undefined;
    }
  }));
  let out = model;
  libraries.forEach((library, i) => {
    if (!library) return;
    const file = fileNameOf(new URL(urls[i], options.baseUrl));
    try {
      const result = retargetClips(library.clips, library, model);
      for (const w of result.warnings) options.warn(`animation-src "${urls[i]}": ${w}`);
      if (result.unmapped.length > 0) options.warn(`animation-src "${urls[i]}": ${result.unmapped.length} joint(s) of ${model.name} have no source joint and keep their rest pose: ${result.unmapped.slice(0, 12).join(', ')}${result.unmapped.length > 12 ? ', …' : ''}`);
      out = addClips(out, result.clips, file);
    } catch (error) {
      options.warn(`animation-src "${urls[i]}" was skipped: ${(error as Error).message}`);
    }
  });
  return out;
}
