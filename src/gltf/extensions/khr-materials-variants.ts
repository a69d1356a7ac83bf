/**
 * KHR_materials_variants: the file names material variants at the root
 * (`extensions.KHR_materials_variants.variants[i].name`), and each primitive maps some of
 * them to one of its materials (`….primitives[j].extensions.KHR_materials_variants.mappings[k]`:
 * `{ material, variants: [i, …] }`). Selecting variant i draws each primitive with the
 * material its mappings give i, and with its own `material` where they give none (the
 * extension's rule, as the Khronos sample viewer does). Read here into `Model.variants` and
 * `Primitive.variantMaterials`; the renderer switches materials (Renderer.setVariant).
 */
import { GltfError } from '../errors.ts';
import { asObject, checkIndex, describe, optArray, optObject, reqIndex, type JsonObject } from '../json.ts';
import type { Primitive } from '../model.ts';
import type { ReadContext } from '../read-context.ts';

export const KHR_MATERIALS_VARIANTS = 'KHR_materials_variants';

function rootExtension(ctx: ReadContext): JsonObject | undefined {
  const root = ctx.root.extensions === undefined ? undefined : asObject(ctx.root.extensions, 'extensions');
  return root && optObject(root, KHR_MATERIALS_VARIANTS, 'extensions');
}

/** How many variants the file declares (their names are read by `readVariantNames`). */
export function variantCount(ctx: ReadContext): number {
  const ext = rootExtension(ctx);
  return ext ? optArray(ext, 'variants', `extensions.${KHR_MATERIALS_VARIANTS}`).length : 0;
}

/** The variant names the file declares, in index order (empty when it has none). */
export function readVariantNames(ctx: ReadContext): string[] {
  const ext = rootExtension(ctx);
  if (!ext) return [];
  const path = `extensions.${KHR_MATERIALS_VARIANTS}`;
  const seen = new Map<string, number>();
  return optArray(ext, 'variants', path).map((v, i) => {
    const vpath = `${path}.variants[${i}]`;
    const name = asObject(v, vpath).name;
    if (typeof name !== 'string') throw new GltfError(`${vpath}.name`, `must be a string, got ${describe(name)}`);
    const first = seen.get(name);
    // A name selects the first variant of that name (the element selects by name).
    if (first !== undefined) ctx.warn(`${vpath}.name`, `"${name}" is also the name of variants[${first}]; selecting it by name picks variants[${first}]`);
    else seen.set(name, i);
    return name;
  });
}

/**
 * `{ variantMaterials }` for a primitive with mappings: per variant, the material it draws
 * with (its own `material`, possibly -1 for the default one, where unmapped). Nothing (the
 * property stays absent) for a primitive without the extension.
 */
export function readVariantMappings(
  ctx: ReadContext, prim: JsonObject, path: string, variantCount: number, materialCount: number, ownMaterial: number,
): Pick<Primitive, 'variantMaterials'> {
  const exts = prim.extensions === undefined ? undefined : asObject(prim.extensions, `${path}.extensions`);
  const epath = `${path}.extensions.${KHR_MATERIALS_VARIANTS}`;
  const ext = exts && optObject(exts, KHR_MATERIALS_VARIANTS, `${path}.extensions`);
  if (!ext) return {};
  ctx.budget.charge(variantCount * 8, epath);
  const variantMaterials = new Int32Array(variantCount).fill(ownMaterial);
  // The mapping (index) that set each variant, for the duplicate check.
  const mappedBy = new Int32Array(variantCount).fill(-1);
  optArray(ext, 'mappings', epath).forEach((m, k) => {
    const mpath = `${epath}.mappings[${k}]`;
    const mapping = asObject(m, mpath);
    const material = reqIndex(mapping, 'material', mpath, materialCount, 'materials');
    const variants = optArray(mapping, 'variants', mpath);
    if (variants.length === 0) throw new GltfError(`${mpath}.variants`, 'must list at least one variant');
    variants.forEach((v, j) => {
      const vpath = `${mpath}.variants[${j}]`;
      const variant = checkIndex(v, vpath, variantCount, `${KHR_MATERIALS_VARIANTS}.variants`);
      // The extension: a variant index appears in at most one mapping of a primitive. Which
      // material was meant cannot be told, so the file is refused rather than guessed at.
      if (mappedBy[variant] >= 0) {
        throw new GltfError(vpath, `variant ${variant} is already mapped by mappings[${mappedBy[variant]}] of this primitive`);
      }
      mappedBy[variant] = k;
      variantMaterials[variant] = material;
    });
  });
  return { variantMaterials };
}

/**
 * A primitive's `variantMaterials` as the extension's `mappings` (for a writer such as bake):
 * one mapping per material some variant draws instead of `ownMaterial`, materials renumbered
 * by `materialMap`. Empty when every variant draws the primitive's own material.
 */
export function variantMappingsJson(variantMaterials: Int32Array, ownMaterial: number, materialMap: readonly number[]): { material: number; variants: number[] }[] {
  const byMaterial = new Map<number, number[]>();
  variantMaterials.forEach((material, variant) => {
    if (material === ownMaterial) return;
    let list = byMaterial.get(material);
    if (!list) byMaterial.set(material, (list = []));
    list.push(variant);
  });
  return [...byMaterial].map(([material, variants]) => ({ material: materialMap[material], variants }));
}
