/**
 * Whether a file's materials use an extension whose reader is in material-extensions.ts, so that
 * load.ts imports it only then. Decided by what each material's `extensions` holds (what
 * materials.ts reads), not by `extensionsUsed`, so a file that forgets to list them reads as before.
 */
import { isObject, type JsonObject } from '../json.ts';
import { LAZY_MATERIAL_EXTENSIONS } from './names.ts';

const LAZY = new Set(LAZY_MATERIAL_EXTENSIONS);

/** True when a material of the file at `root` has an extension whose reader is loaded lazily. */
export function usesLazyMaterialExtensions(root: JsonObject): boolean {
  const materials = root.materials;
  if (!Array.isArray(materials)) return false;
  return materials.some((m) => isObject(m) && isObject(m.extensions) && Object.keys(m.extensions).some((name) => LAZY.has(name)));
}
