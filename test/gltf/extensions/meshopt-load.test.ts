import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { EXT_MESHOPT_COMPRESSION, KHR_MESHOPT_COMPRESSION } from '../../../src/gltf/extensions/meshopt.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { compressGlb } from '../../support/compressed.ts';

/**
 * EXT_meshopt_compression / KHR_meshopt_compression in the loader (resources.ts with
 * meshopt.ts): compressed views are decoded before any accessor reads them, the fallback
 * buffer is never fetched, and what goes wrong is a GltfError naming the JSON path.
 */

type Json = Record<string, any>;

const original = buildBuiltinGlb('character');
const meshoptGlb = await compressGlb(original, 'meshopt');
const quantizedGlb = await compressGlb(original, 'quantized');

function edit(glb: Uint8Array, change: (json: Json) => void): Uint8Array {
  const { json, bin } = parseGlb(glb);
  const copy = structuredClone(json) as Json;
  change(copy);
  return encodeGlb(copy, bin);
}

const fallbackIndex = (json: Json): number => json.buffers.findIndex((b: Json) => b.extensions?.[EXT_MESHOPT_COMPRESSION]?.fallback);

/** Every primitive's float attributes and every sampler's values, for comparing two loads. */
function geometryOf(model: Model): number[][] {
  const out: number[][] = [];
  for (const mesh of model.meshes) for (const p of mesh.primitives) {
    out.push(Array.from(p.positions), Array.from(p.normals ?? []), Array.from(p.indices ?? []), Array.from(p.joints ?? []), Array.from(p.weights ?? []));
  }
  for (const clip of model.animations) for (const ch of clip.channels) out.push(Array.from(ch.sampler.times), Array.from(ch.sampler.values));
  return out;
}

describe('meshopt-compressed files in the loader', () => {
  it('loads the meshopt variant: requires both extensions, and the fallback buffer has no data', async () => {
    const { json } = parseGlb(meshoptGlb) as { json: Json };
    expect([...json.extensionsRequired].sort()).toEqual([EXT_MESHOPT_COMPRESSION, 'KHR_mesh_quantization']);
    expect(fallbackIndex(json)).toBeGreaterThan(0);
    expect(json.buffers[fallbackIndex(json)].uri).toBeUndefined();
    const model = await loadGltf(meshoptGlb);
    expect(model.meshes.length).toBeGreaterThan(0);
    expect(model.animations.length).toBeGreaterThan(0);
    expect(model.meshes.some((m) => m.primitives.some((p) => p.quantized?.POSITION))).toBe(true);
  });

  it('never fetches a fallback buffer that has a uri', async () => {
    const withUri = edit(meshoptGlb, (json) => { json.buffers[fallbackIndex(json)].uri = 'fallback.bin'; });
    const asked: string[] = [];
    const model = await loadGltf(withUri, { resolveUri: async (uri) => { asked.push(uri); throw new Error('not here'); } });
    expect(asked).toEqual([]);
    expect(geometryOf(model)).toEqual(geometryOf(await loadGltf(meshoptGlb)));
  });

  it('reads the KHR name as the EXT one (the same bitstreams), on views and on the fallback buffer', async () => {
    const khr = edit(meshoptGlb, (json) => {
      const rename = (o: Json | undefined) => {
        if (o?.extensions?.[EXT_MESHOPT_COMPRESSION] === undefined) return;
        o.extensions[KHR_MESHOPT_COMPRESSION] = o.extensions[EXT_MESHOPT_COMPRESSION];
        delete o.extensions[EXT_MESHOPT_COMPRESSION];
      };
      json.buffers.forEach(rename);
      json.bufferViews.forEach(rename);
      json.extensionsUsed = json.extensionsUsed.map((e: string) => (e === EXT_MESHOPT_COMPRESSION ? KHR_MESHOPT_COMPRESSION : e));
      json.extensionsRequired = json.extensionsRequired.map((e: string) => (e === EXT_MESHOPT_COMPRESSION ? KHR_MESHOPT_COMPRESSION : e));
    });
    expect(geometryOf(await loadGltf(khr))).toEqual(geometryOf(await loadGltf(meshoptGlb)));
  });

  it('decodes key times exactly as the uncompressed quantized file stores them', async () => {
    // meshopt() also reorders and merges vertices and filters the key values, so the lossless
    // part both files share is the clips' key times (the shared-asset tests compare the rest).
    const [a, b] = await Promise.all([loadGltf(meshoptGlb), loadGltf(quantizedGlb)]);
    const times = (m: Model) => m.animations.map((c) => c.channels.map((ch) => Array.from(ch.sampler.times)));
    expect(times(a)).toEqual(times(b));
  });

  it('refuses a plain bufferView that points into the unfetched fallback buffer, naming it', async () => {
    const broken = edit(meshoptGlb, (json) => {
      const v = json.bufferViews.findIndex((view: Json) => view.extensions?.[EXT_MESHOPT_COMPRESSION]?.mode === 'ATTRIBUTES');
      delete json.bufferViews[v].extensions;
    });
    await expect(loadGltf(broken)).rejects.toThrow(/bufferViews\[\d+\].*exceeds buffers\[\d+\] \(0 bytes\)/);
  });

  it('refuses compressed data that points into the fallback buffer, naming the extension', async () => {
    const broken = edit(meshoptGlb, (json) => {
      const view = json.bufferViews.find((v: Json) => v.extensions?.[EXT_MESHOPT_COMPRESSION]);
      view.extensions[EXT_MESHOPT_COMPRESSION].buffer = fallbackIndex(json);
    });
    await expect(loadGltf(broken)).rejects.toThrow(GltfError);
    await expect(loadGltf(broken)).rejects.toThrow(/extensions\.EXT_meshopt_compression\.buffer/);
  });

  it('charges decoded bytes to the load budget', async () => {
    const error = await loadGltf(meshoptGlb, { maxBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toMatch(/^bufferViews\[\d+\]\.extensions\.EXT_meshopt_compression$/);
  });

  it('refuses a fallback flag that is not a boolean', async () => {
    const broken = edit(meshoptGlb, (json) => { json.buffers[fallbackIndex(json)].extensions[EXT_MESHOPT_COMPRESSION].fallback = 'yes'; });
    await expect(loadGltf(broken)).rejects.toThrow(/buffers\[\d+\]\.extensions\.EXT_meshopt_compression\.fallback/);
  });
});
