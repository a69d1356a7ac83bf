import type { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { readAccessor, type AccessorSource } from '../../../src/gltf/accessors.ts';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { decodeDracoPrimitive, readDracoPrimitive } from '../../../src/gltf/extensions/draco.ts';
import { decodeMeshoptBufferView } from '../../../src/gltf/extensions/meshopt.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';
import { sharedAssets } from '../../support/assets.ts';
import { COMPRESSED_VARIANTS, compressFile, readBack, VARIANT_REQUIRES, type CompressedVariant } from '../../support/compressed.ts';
import { expectArraysEqual } from '../../support/expect-arrays.ts';

/**
 * The fixture maker's variants of every shared asset: each requires exactly the extensions it
 * should, glTF-Transform reads it back, and our decoders (meshopt.ts, draco.ts) give exactly
 * the data glTF-Transform's own decoding of the same file gives.
 */

const ASSETS = sharedAssets();

interface Glb {
  readonly json: JsonObject;
  readonly bin: Uint8Array;
}

function parse(glb: Uint8Array): Glb {
  const { json, bin } = parseGlb(glb);
  return { json: json as JsonObject, bin: bin ?? new Uint8Array(0) };
}

const list = (json: JsonObject, key: string): JsonObject[] => (json[key] as JsonObject[] | undefined) ?? [];

/** Every primitive attribute of the file (by JSON path) with glTF-Transform's decoded array for it. */
function expectedAttributes(json: JsonObject, doc: Document): { accessor: number; path: string; array: ArrayLike<number> }[] {
  const out: { accessor: number; path: string; array: ArrayLike<number> }[] = [];
  const meshes = doc.getRoot().listMeshes();
  list(json, 'meshes').forEach((mesh, m) => {
    list(mesh, 'primitives').forEach((prim, p) => {
      const docPrim = meshes[m].listPrimitives()[p];
      for (const [semantic, accessor] of Object.entries(prim.attributes as Record<string, number>)) {
        out.push({ accessor, path: `meshes[${m}].primitives[${p}].attributes.${semantic}`, array: docPrim.getAttribute(semantic)!.getArray()! });
      }
      if (prim.indices !== undefined) {
        out.push({ accessor: prim.indices as number, path: `meshes[${m}].primitives[${p}].indices`, array: docPrim.getIndices()!.getArray()! });
      }
    });
  });
  return out;
}

const variantCache = new Map<string, Promise<Uint8Array>>();
function variantOf(path: string, variant: CompressedVariant): Promise<Uint8Array> {
  const key = `${path}:${variant}`;
  if (!variantCache.has(key)) variantCache.set(key, compressFile(path, variant));
  return variantCache.get(key)!;
}

/** glTF-Transform's reading of a variant, made once for the tests that read it (none changes the document). */
const readBackCache = new Map<string, Promise<Document>>();
function readBackOf(path: string, variant: CompressedVariant): Promise<Document> {
  const key = `${path}:${variant}`;
  if (!readBackCache.has(key)) readBackCache.set(key, variantOf(path, variant).then(readBack));
  return readBackCache.get(key)!;
}

describe('compressed fixtures of the shared assets', () => {
  it('finds the shared assets', () => {
    expect(ASSETS.map((a) => a.name)).toContain('Fox');
  });

  it('the meshopt variants, together, use the TRIANGLES mode and the OCTAHEDRAL, QUATERNION and EXPONENTIAL filters', async () => {
    // So the comparisons below exercise every filter glTF-Transform writes on real data
    // (INDICES mode and the KHR-only COLOR filter are covered by meshopt.test.ts).
    const seen = new Set<string>();
    for (const asset of ASSETS) {
      const { json } = parse(await variantOf(asset.path, 'meshopt'));
      for (const view of list(json, 'bufferViews')) {
        const ext = (view.extensions as JsonObject | undefined)?.EXT_meshopt_compression as JsonObject | undefined;
        if (ext) seen.add(String(ext.filter ?? ext.mode));
      }
    }
    expect([...seen]).toEqual(expect.arrayContaining(['TRIANGLES', 'ATTRIBUTES', 'OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL']));
  });

  for (const asset of ASSETS) {
    for (const variant of COMPRESSED_VARIANTS) {
      it(`${asset.name}, ${variant}: requires ${VARIANT_REQUIRES[variant].join(' + ')} and reads back`, async () => {
        const glb = await variantOf(asset.path, variant);
        const { json } = parse(glb);
        expect([...((json.extensionsRequired as string[] | undefined) ?? [])].sort()).toEqual(VARIANT_REQUIRES[variant]);
        expect(json.extensionsUsed).toEqual(expect.arrayContaining([...VARIANT_REQUIRES[variant]]));
        const doc = await readBackOf(asset.path, variant);
        expect(doc.getRoot().listMeshes().length).toBe(list(json, 'meshes').length);
        expect(doc.getRoot().listAnimations().length).toBe(list(json, 'animations').length);
      });
    }

    it(`${asset.name}, meshopt: every compressed bufferView decodes, and accessors read through it equal glTF-Transform's`, async () => {
      const { json, bin } = parse(await variantOf(asset.path, 'meshopt'));
      const doc = await readBackOf(asset.path, 'meshopt');
      // Buffer 0 is the GLB chunk; later buffers are fallbacks, never fetched. Each decoded
      // view becomes a buffer of its own, as the loader will do.
      const fetched: (Uint8Array | undefined)[] = list(json, 'buffers').map((_, i) => (i === 0 ? bin : undefined));
      const buffers: Uint8Array[] = fetched.map((b) => b ?? new Uint8Array(0));
      const budget = new LoadBudget(1 << 30, 0);
      let compressed = 0;
      const bufferViews = await Promise.all(list(json, 'bufferViews').map(async (view, i) => {
        const decoded = await decodeMeshoptBufferView(view, `bufferViews[${i}]`, fetched, budget);
        if (!decoded) return view;
        compressed++;
        buffers.push(decoded);
        return { buffer: buffers.length - 1, byteLength: decoded.byteLength, ...(view.byteStride ? { byteStride: view.byteStride } : {}) };
      }));
      expect(compressed).toBeGreaterThan(0);
      const src: AccessorSource = { accessors: list(json, 'accessors'), bufferViews, buffers, budget };
      for (const { accessor, path, array } of expectedAttributes(json, doc)) {
        expectArraysEqual(Array.from(readAccessor(src, accessor, path).array), Array.from(array), path);
      }
      const animations = doc.getRoot().listAnimations();
      list(json, 'animations').forEach((anim, a) => {
        list(anim, 'samplers').forEach((sampler, s) => {
          const docSampler = animations[a].listSamplers()[s];
          const at = `animations[${a}].samplers[${s}]`;
          expectArraysEqual(Array.from(readAccessor(src, sampler.input as number, `${at}.input`).array), Array.from(docSampler.getInput()!.getArray()!));
          expectArraysEqual(Array.from(readAccessor(src, sampler.output as number, `${at}.output`).array), Array.from(docSampler.getOutput()!.getArray()!));
        });
      });
    });

    it(`${asset.name}, draco: every compressed primitive decodes to glTF-Transform's data, joints as integers`, async () => {
      const { json, bin } = parse(await variantOf(asset.path, 'draco'));
      const doc = await readBackOf(asset.path, 'draco');
      const source = { accessors: list(json, 'accessors'), bufferViews: list(json, 'bufferViews'), buffers: [bin] };
      const budget = new LoadBudget(1 << 30, 0);
      const expected = new Map(expectedAttributes(json, doc).map((e) => [e.path, e.array]));
      let primitives = 0;
      for (const [m, mesh] of list(json, 'meshes').entries()) {
        for (const [p, prim] of list(mesh, 'primitives').entries()) {
          const path = `meshes[${m}].primitives[${p}]`;
          const request = readDracoPrimitive(prim, path, source);
          if (!request) continue;
          primitives++;
          const decoded = await decodeDracoPrimitive(request, budget);
          for (const [semantic, data] of decoded.attributes) {
            const want = expected.get(`${path}.attributes.${semantic}`)!;
            expect(data.array.constructor, `${path} ${semantic}`).toBe(want.constructor);
            expectArraysEqual(Array.from(data.array), Array.from(want), `${path} ${semantic}`);
            if (semantic.startsWith('JOINTS_')) expect(data.array).toSatisfy((a) => a instanceof Uint8Array || a instanceof Uint16Array);
          }
          expectArraysEqual(Array.from(decoded.indices.array), Array.from(expected.get(`${path}.indices`)!));
          // Morph targets stay uncompressed accessors (the extension has no place for them):
          // they only apply if the encoder kept one vertex per target element.
          for (const target of list(prim, 'targets')) {
            for (const accessor of Object.values(target as Record<string, number>)) {
              expect(list(json, 'accessors')[accessor].count).toBe(decoded.vertexCount);
            }
          }
        }
      }
      expect(primitives).toBeGreaterThan(0);
    });
  }
});
