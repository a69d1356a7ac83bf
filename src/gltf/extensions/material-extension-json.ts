/** Shared by the material extensions' `writeMaterial`s. */
import type { JsonObject } from '../json.ts';

/** `json` with each texture reference that is defined added under its key. */
export function withTextures(json: JsonObject, textures: Readonly<Record<string, JsonObject | undefined>>): JsonObject {
  for (const [key, info] of Object.entries(textures)) if (info !== undefined) json[key] = info;
  return json;
}
