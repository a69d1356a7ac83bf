import { describe, expect, it } from 'vitest';
import { GltfBuilder } from '../../src/gltf/builder.ts';
import { modelFromFiles, normalizePath, withOpenedModel, type DroppedFile } from '../../src/demo/files.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { readFileSync } from 'node:fs';
import { assetPath } from '../support/assets.ts';

const file = (path: string, bytes: Uint8Array): DroppedFile => ({ path, bytes: async () => bytes });

function externalGltf(binUri: string) {
  const b = new GltfBuilder();
  b.addScene({ nodes: [b.addNode({ mesh: b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 2, 3, 4, 5, 6), 'VEC3', { minMax: true }) } }] }) })] });
  const { json, bin } = b.toGltfWithExternalBuffer(binUri);
  return { gltf: new TextEncoder().encode(JSON.stringify(json)), bin };
}

describe('modelFromFiles', () => {
  it('refuses no model, or several models', async () => {
    await expect(modelFromFiles([file('a.bin', new Uint8Array(4))])).rejects.toThrow(/no .glb, .gltf, .vrm or .vrma among the 1 file/);
    const glb = readFileSync(assetPath('Fox'));
    await expect(modelFromFiles([file('a.glb', glb), file('b.glb', glb)])).rejects.toThrow(/several models given \(a.glb, b.glb\)/);
  });
  it('names a missing companion file', async () => {
    const { gltf } = externalGltf('data/mesh.bin');
    await expect(modelFromFiles([file('m.gltf', gltf)])).rejects.toThrow(/buffers\[0\]\.uri: could not load "data\/mesh.bin": .*drop it together with m.gltf/);
  });
  it('loads a .glb', async () => {
    const model = await modelFromFiles([file('Fox.glb', readFileSync(assetPath('Fox')))]);
    expect(model.name).toBe('Fox.glb');
    expect(model.animations).toHaveLength(3);
  });
  it('resolves a .gltf buffer by relative path in a dropped folder, or by bare name in a flat drop', async () => {
    const { gltf, bin } = externalGltf('data/mesh.bin');
    const inFolder = await modelFromFiles([file('pack/m.gltf', gltf), file('pack/data/mesh.bin', bin)]);
    expect(Array.from(inFolder.meshes[0].primitives[0].positions)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6]);
    const flat = await modelFromFiles([file('m.gltf', gltf), file('mesh.bin', bin)]);
    expect(flat.meshes[0].primitives[0].positions[4]).toBe(2);
  });
  it('normalises paths', () => {
    expect(normalizePath('a/./b/../c\\d.bin')).toBe('a/c/d.bin');
  });
});

describe('withOpenedModel', () => {
  it('plays a dropped .vrma on the shown VRM avatar, with its expression and look-at tracks', async () => {
    const avatar = await loadGltf(new Uint8Array(readFileSync('../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm')), { name: 'avatar.vrm' });
    const vrma = await modelFromFiles([file('dance.vrma', readFileSync('../shared/assets/vrm/test.vrma'))]);
    const { model, note } = withOpenedModel(avatar, vrma);
    expect(model.meshNodes).toBe(avatar.meshNodes);
    expect(model.animations).toHaveLength(avatar.animations.length + 1);
    const clip = model.animations.at(-1)!;
    expect(clip.expressionTracks?.map((t) => t.name)).toEqual(['happy']);
    expect(clip.lookAtTrack).toBeDefined();
    expect(note).toMatch(/^Added 1 clip\(s\) from dance\.vrma to avatar\.vrm/);
  });
});
