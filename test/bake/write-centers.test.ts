import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCentersGlb } from '../../src/bake/write-centers.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { readBesideFile } from '../../src/cli/load-file.ts';
import { encodeGlb } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { centersOf, centersOfRotationCounters, modelCentersHere, readyCenters } from '../../src/skin/centers-of-rotation/centers.ts';
import { sharedAssets } from '../support/assets.ts';

/** Every primitive's arrays the copy must keep as they were. */
function sameMeshes(a: Model, b: Model): void {
  expect(b.meshes.length).toBe(a.meshes.length);
  a.meshes.forEach((mesh, m) => mesh.primitives.forEach((p, i) => {
    const q = b.meshes[m].primitives[i];
    expect(q.positions).toEqual(p.positions);
    expect(q.normals).toEqual(p.normals);
    expect(q.indices).toEqual(p.indices);
    expect(q.joints).toEqual(p.joints);
    expect(q.weights).toEqual(p.weights);
    expect(q.texcoords0).toEqual(p.texcoords0);
  }));
  expect(b.images.map((image) => Uint8Array.from(image.bytes))).toEqual(a.images.map((image) => Uint8Array.from(image.bytes)));
  expect(b.animations.map((clip) => clip.duration)).toEqual(a.animations.map((clip) => clip.duration));
  expect(b.skins.map((skin) => skin.inverseBindMatrices)).toEqual(a.skins.map((skin) => skin.inverseBindMatrices));
}

describe('writeCentersGlb: a copy with every skinned primitive\'s centres as _CENTER_OF_ROTATION', () => {
  it('the built-in twist-cylinder: the copy loads with the very centres the precomputation gives, and skips it (counted)', async () => {
    const bytes = buildBuiltinGlb('twist-cylinder');
    const original = await loadGltf(bytes, { name: 'twist-cylinder' });
    const written = await writeCentersGlb(bytes, original);
    expect(written).toMatchObject({ written: 1, kept: 0, skipped: 0, warnings: [] });
    const before = centersOfRotationCounters.precomputed;
    const copy = await loadGltf(written.glb, { name: 'copy' });
    expect(copy.warnings).toEqual(original.warnings);
    const prim = copy.meshes[0].primitives[0];
    expect(prim.centersOfRotation).toEqual(centersOf(original.meshes[0].primitives[0]).centers);
    expect(centersOf(prim).source).toBe('file');
    modelCentersHere(copy, () => { throw new Error('no warning expected'); });
    expect(centersOfRotationCounters.precomputed).toBe(before);
    sameMeshes(original, copy);
    // Written again from the copy: the attribute is kept, not recomputed.
    const again = await writeCentersGlb(written.glb, copy);
    expect(again).toMatchObject({ written: 0, kept: 1 });
    expect(centersOfRotationCounters.precomputed).toBe(before);
  });

  it('the built-in character: every skinned primitive of the copy carries exactly the centres a fresh load computes', async () => {
    const bytes = buildBuiltinGlb('character');
    const original = await loadGltf(bytes, { name: 'character' });
    const copy = await loadGltf((await writeCentersGlb(bytes, original)).glb, { name: 'copy' });
    const fresh = await loadGltf(bytes, { name: 'character' });
    let compared = 0;
    copy.meshes.forEach((mesh, m) => mesh.primitives.forEach((p, i) => {
      if (p.influences === 0) return;
      expect(p.centersOfRotation).toEqual(centersOf(fresh.meshes[m].primitives[i]).centers);
      compared++;
    }));
    expect(compared).toBeGreaterThanOrEqual(4);
  });

  it('every shared asset: the copy loads with the attribute on every skinned primitive and the same meshes, images, clips and skins', async () => {
    for (const asset of sharedAssets()) {
      const { bytes, options } = await readBesideFile(asset.path);
      const original = await loadGltf(bytes, options);
      const written = await writeCentersGlb(bytes, original, options);
      const copy = await loadGltf(written.glb, { name: asset.name });
      expect(copy.warnings.filter((w) => w.path.includes('_CENTER_OF_ROTATION')), asset.name).toEqual([]);
      sameMeshes(original, copy);
      const skinned = copy.meshes.flatMap((mesh) => mesh.primitives).filter((p) => p.influences > 0);
      for (const p of skinned) expect(p.centersOfRotation, asset.name).toBeDefined();
      expect(written.written + written.kept, asset.name).toBe(new Set(original.meshes.flatMap((mesh) => mesh.primitives).filter((p) => p.influences > 0)).size);
    }
  }, 60_000);

  it('a .gltf with its buffer and image in files beside it becomes one GLB that stands alone', async () => {
    const { json, bin } = parseGlb(buildBuiltinGlb('twist-cylinder'));
    const dir = mkdtempSync(join(tmpdir(), 'write-centers-'));
    const gltf = structuredClone(json) as Record<string, any>;
    gltf.buffers[0].uri = 'data file.bin';
    gltf.images = [{ uri: 'pixel.png' }];
    gltf.textures = [{ source: 0 }];
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    writeFileSync(join(dir, 'data file.bin'), bin!);
    writeFileSync(join(dir, 'pixel.png'), png);
    writeFileSync(join(dir, 'model.gltf'), JSON.stringify(gltf));
    const { bytes, options } = await readBesideFile(join(dir, 'model.gltf'));
    const written = await writeCentersGlb(bytes, await loadGltf(bytes, options), options);
    const out = parseGlb(written.glb).json as Record<string, any>;
    expect(out.buffers).toEqual([{ byteLength: parseGlb(written.glb).bin!.byteLength }]);
    expect(out.images).toEqual([{ mimeType: 'image/png', bufferView: expect.any(Number) }]);
    const copy = await loadGltf(written.glb, { name: 'copy' });
    expect(copy.images[0].bytes).toEqual(png);
    expect(copy.meshes[0].primitives[0].centersOfRotation).toBeDefined();
  });

  it('a primitive over the budget gets no attribute and a warning naming it', async () => {
    const bytes = buildBuiltinGlb('twist-cylinder');
    const model = await loadGltf(bytes, { name: 'twist-cylinder' });
    const warnings: string[] = [];
    modelCentersHere(model, (w) => warnings.push(`${w.path}: ${w.message}`), { maxTerms: 10 });
    expect(warnings).toEqual([expect.stringMatching(/^meshes\[0\]\.primitives\[0\]: no centres of rotation \(over the budget: the integral needs more than 10 similarity terms/)]);
    expect(readyCenters(model.meshes[0].primitives[0])?.source).toBe('linear');
    const written = await writeCentersGlb(bytes, model);
    expect(written).toMatchObject({ written: 0, skipped: 1 });
    expect((parseGlb(written.glb).json as any).meshes[0].primitives[0].attributes._CENTER_OF_ROTATION).toBeUndefined();
  });

  it('rejects what encodeGlb would (the copy is a plain GLB): sanity of the container', async () => {
    const bytes = buildBuiltinGlb('limb');
    const written = await writeCentersGlb(bytes, await loadGltf(bytes, { name: 'limb' }));
    const { json, bin } = parseGlb(written.glb);
    expect(encodeGlb(json, bin)).toEqual(written.glb);
  });
});
