import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isGlb, parseGlb } from '../../src/gltf/glb.ts';

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

/** The VRM sample files under ../shared/assets/vrm (GLB containers), named `vrm/<file>`; sharedAssets() skips them. */
export function sharedVrmFiles(): AssetFile[] {
  const dir = join(ASSETS_DIR, 'vrm');
  if (!existsSync(dir)) throw new Error(`shared VRM test files not found at ${dir}`);
  return readdirSync(dir).filter((f) => /\.vrm$/i.test(f)).sort().map((f) => ({ name: `vrm/${f}`, path: join(dir, f) }));
}

/** sharedAssets() and the .vrm files: what "every shared asset" covers in the skinning methods' checks. */
export function everySharedModelFile(): AssetFile[] {
  return [...sharedAssets(), ...sharedVrmFiles()];
}

/** The primitives of the meshes a GLB or .gltf file's JSON puts under a skin (each mesh once): counted without our loader. */
export function skinnedPrimitivesInJson(path: string): number {
  const bytes = new Uint8Array(readFileSync(path));
  const json = (isGlb(bytes) ? parseGlb(bytes).json : JSON.parse(new TextDecoder().decode(bytes))) as {
    nodes?: { skin?: number; mesh?: number }[];
    meshes?: { primitives: unknown[] }[];
  };
  const meshes = new Set<number>();
  for (const node of json.nodes ?? []) if (node.skin !== undefined && node.mesh !== undefined) meshes.add(node.mesh);
  let count = 0;
  for (const mesh of meshes) count += json.meshes![mesh].primitives.length;
  return count;
}

export function assetPath(name: string): string {
  const found = sharedAssets().find((a) => a.name === name);
  if (!found) throw new Error(`no shared asset named ${name}`);
  return found.path;
}

export function assetJson(name: string): Record<string, any> {
  return JSON.parse(readFileSync(assetPath(name), 'utf8'));
}
