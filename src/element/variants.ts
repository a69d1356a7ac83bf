/**
 * `variant-name` on <skinned-mesh-viewer>: which KHR_materials_variants variant of the
 * shown model to draw, with <model-viewer>'s semantics — absent (null): the file's own
 * materials; a name the model has: that variant (the first of that name); any other name:
 * nothing changes (the materials shown stay, as model-viewer leaves them), with a warning.
 */
import type { Model } from '../gltf/model.ts';

/** The variant index `name` selects in `model` (-1: its own materials); undefined for a name it lacks. */
export function variantIndex(model: Model, name: string | null, warn: (message: string) => void): number | undefined {
  if (name === null) return -1;
  const names = model.variants ?? [];
  const index = names.indexOf(name);
  if (index >= 0) return index;
  warn(`variant-name="${name}" is not a variant of ${model.name} (${names.length > 0 ? names.join(', ') : 'it has none'}); the materials shown stay`);
  return undefined;
}
