/**
 * Material extensions the loader does not draw (KHR_materials_diffuse_roughness, proposed and
 * vendor ones…; the PBR extensions it draws each have a module of their own, khr-materials-*.ts):
 * when only used, the material is drawn without them, as three.js does for the ones it
 * lacks, and each name is listed once in the model's warnings. A file that *requires*
 * one is still refused by load.ts, by name.
 */
import type { GltfWarning } from '../errors.ts';

/** Collects the unsupported extension names materials use, each with the first material using it. */
export class UnsupportedMaterialExtensions {
  private readonly firstUse = new Map<string, string>();
  private readonly uses = new Map<string, number>();

  note(name: string, path: string): void {
    if (!this.firstUse.has(name)) this.firstUse.set(name, path);
    this.uses.set(name, (this.uses.get(name) ?? 0) + 1);
  }

  /** One warning per name, at the first material that uses it. */
  warnings(): GltfWarning[] {
    return [...this.firstUse].map(([name, path]) => {
      const n = this.uses.get(name)!;
      return { path, message: `${name} is not supported; ignored (used by ${n} material${n === 1 ? '' : 's'})` };
    });
  }
}
