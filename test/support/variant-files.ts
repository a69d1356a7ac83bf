/**
 * KHR_materials_variants test files: one mesh of two quads side by side (left and right
 * primitives), each a solid-colour unlit material, with variants mapping them to others.
 * Built with the project's GltfBuilder; `edit` may damage the JSON before it is written.
 */
import { GltfBuilder, type GltfJson } from '../../src/gltf/builder.ts';

export const VARIANTS_EXT = 'KHR_materials_variants';

/** Material colours by index: 0 red, 1 green, 2 blue, 3 yellow. */
export const VARIANT_COLOURS: readonly (readonly number[])[] = [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 0, 1]];

export interface VariantFile {
  /** Variant names (root). */
  names: string[];
  /** Mappings of the left and right primitives (undefined: no extension on that primitive). */
  left?: { material: number; variants: number[] }[];
  right?: { material: number; variants: number[] }[];
  edit?: (json: GltfJson) => void;
}

function quad(b: GltfBuilder, cx: number): Record<string, number> {
  const h = 0.45;
  return {
    POSITION: b.addAccessor(Float32Array.of(cx - h, -h, 0, cx + h, -h, 0, cx + h, h, 0, cx - h, h, 0), 'VEC3', { minMax: true }),
    NORMAL: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1), 'VEC3'),
  };
}

export function variantFileBytes(f: VariantFile): Uint8Array {
  const b = new GltfBuilder('variants test');
  for (const c of VARIANT_COLOURS) {
    b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [...c] }, extensions: { KHR_materials_unlit: {} } });
  }
  const indices = b.addAccessor(Uint16Array.of(0, 1, 2, 0, 2, 3), 'SCALAR');
  const ext = (mappings: VariantFile['left']) => (mappings ? { extensions: { [VARIANTS_EXT]: { mappings } } } : {});
  const mesh = b.addMesh({
    primitives: [
      { attributes: quad(b, -0.5), indices, material: 0, ...ext(f.left) },
      { attributes: quad(b, 0.5), indices, material: 1, ...ext(f.right) },
    ],
  });
  b.addScene({ nodes: [b.addNode({ mesh })] });
  b.json.extensionsUsed.push(VARIANTS_EXT, 'KHR_materials_unlit');
  b.json.extensions = { [VARIANTS_EXT]: { variants: f.names.map((name) => ({ name })) } };
  f.edit?.(b.json);
  return b.toGlb();
}

/** Left red, right green by default; "blue" turns the left quad blue; "yellow" turns both yellow. */
export const COLOUR_VARIANTS: VariantFile = {
  names: ['blue', 'yellow'],
  left: [{ material: 2, variants: [0] }, { material: 3, variants: [1] }],
  right: [{ material: 3, variants: [1] }],
};
