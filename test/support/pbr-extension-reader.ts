/**
 * The shared checks of a PBR material extension's reader (src/gltf/extensions/khr-materials-*.ts),
 * each test file giving its extension's facts: what an empty extension object reads as (the
 * schema's defaults, no warning), what a full one reads as, which out-of-range values are
 * clamped to what (with a warning naming the JSON path), its texture slots (an index past the
 * textures drops that texture with a warning; a good one is read with its transform), and a
 * value of the wrong type (refused, naming the path).
 */
import { expect, it } from 'vitest';
import { GltfError } from '../../src/gltf/errors.ts';
import type { Material, Model } from '../../src/gltf/model.ts';
import { loadMaterialFile } from './material-files.ts';

export interface PbrExtensionReaderCase {
  readonly name: string;
  /** What Material gets from `{}`. */
  read(m: Material): unknown;
  readonly defaults: unknown;
  readonly full: { readonly json: Record<string, unknown>; readonly expected: unknown };
  /** Out-of-range values: the property, the value given, and the value read. */
  readonly clamps: readonly (readonly [string, unknown, number | readonly number[]])[];
  /** The extension's textureInfo properties. */
  readonly textures: readonly string[];
  /** A property that must be a number. */
  readonly numeric: string;
}

const TEXTURE_COUNT = 2;

export function loadWithExtension(name: string, ext: Record<string, unknown>): Promise<Model> {
  return loadMaterialFile({
    extensionsUsed: [name],
    images: ['image/png'],
    textures: Array.from({ length: TEXTURE_COUNT }, () => ({ source: 0 })),
    materials: [{ extensions: { [name]: ext } }],
  });
}

export function pbrExtensionReaderTests(c: PbrExtensionReaderCase): void {
  const at = `materials[0].extensions.${c.name}`;

  it('an empty extension object reads as the schema\'s defaults, with no warning', async () => {
    const model = await loadWithExtension(c.name, {});
    expect(c.read(model.materials[0])).toEqual(c.defaults);
    expect(model.warnings).toEqual([]);
  });

  it('reads every property', async () => {
    const model = await loadWithExtension(c.name, c.full.json);
    expect(c.read(model.materials[0])).toEqual(c.full.expected);
    expect(model.warnings).toEqual([]);
  });

  it.each(c.clamps)('%s = %j is clamped to %j with a warning naming its JSON path', async (key, value, clamped) => {
    const model = await loadWithExtension(c.name, { [key]: value });
    expect(valuesOf(c.read(model.materials[0]))).toContainEqual(clamped);
    expect(model.warnings.length).toBeGreaterThan(0);
    for (const w of model.warnings) expect(w.path.startsWith(`${at}.${key}`), w.path).toBe(true);
  });

  it.each(c.textures)('%s: an index past the textures is dropped with a warning; a good one is read with its transform', async (key) => {
    const bad = await loadWithExtension(c.name, { [key]: { index: TEXTURE_COUNT + 3 } });
    expect(JSON.stringify(c.read(bad.materials[0]))).not.toContain('"index"');
    expect(bad.warnings).toEqual([{ path: `${at}.${key}.index`, message: `textures[${TEXTURE_COUNT + 3}] does not exist (the file has ${TEXTURE_COUNT}); the texture is ignored` }]);
    const negative = await loadWithExtension(c.name, { [key]: { index: -1 } });
    expect(negative.warnings.map((w) => w.path)).toEqual([`${at}.${key}.index`]);
    const transform = { offset: [0.5, 0], rotation: 0, scale: [2, 2] };
    const good = await loadWithExtension(c.name, { [key]: { index: 1, texCoord: 1, extensions: { KHR_texture_transform: transform } } });
    expect(good.warnings).toEqual([]);
    expect(valuesOf(c.read(good.materials[0]))).toContainEqual(expect.objectContaining({ index: 1, texCoord: 1, transform }));
  });

  it('a value of the wrong type is refused, naming its path', async () => {
    const error = await loadWithExtension(c.name, { [c.numeric]: '0.5' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(`${at}.${c.numeric}`);
  });
}

/** An extension's fields (a scalar extension, such as ior, is its one value). */
function valuesOf(read: unknown): unknown[] {
  return typeof read === 'object' && read !== null ? Object.values(read) : [read];
}
