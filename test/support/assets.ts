import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The shared third-party test models, read in place (never copied into the repo). */
export const ASSETS_DIR = resolve(import.meta.dirname, '../../../shared/assets');

export interface AssetFile {
  readonly name: string;
  readonly path: string;
}

/** Every model file under ../shared/assets, one per folder. Fails loudly when the folder is missing. */
export function sharedAssets(): AssetFile[] {
  if (!existsSync(ASSETS_DIR)) throw new Error(`shared test assets not found at ${ASSETS_DIR}`);
  const out: AssetFile[] = [];
  for (const dir of readdirSync(ASSETS_DIR, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const file = readdirSync(join(ASSETS_DIR, dir.name)).find((f) => /\.(glb|gltf)$/i.test(f));
    if (file) out.push({ name: dir.name, path: join(ASSETS_DIR, dir.name, file) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function assetPath(name: string): string {
  const found = sharedAssets().find((a) => a.name === name);
  if (!found) throw new Error(`no shared asset named ${name}`);
  return found.path;
}

export function assetJson(name: string): Record<string, any> {
  return JSON.parse(readFileSync(assetPath(name), 'utf8'));
}
