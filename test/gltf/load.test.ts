import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GltfBuilder } from '../../src/gltf/builder.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { ComponentType } from '../../src/gltf/constants.ts';
import { assetPath, sharedAssets } from '../support/assets.ts';
import { buildChain } from '../support/fixtures.ts';

describe('loadGltf on every shared asset', () => {
  for (const asset of sharedAssets()) {
    it(`${asset.name} loads with a parent-first hierarchy and in-range data`, async () => {
      const model = await loadGltfFile(asset.path);
      const h = model.hierarchy;
      expect(h.count).toBe(model.nodes.length);
      for (let slot = 0; slot < h.count; slot++) {
        expect(h.parentSlot[slot]).toBeLessThan(slot);
        expect(h.slotOf[h.order[slot]]).toBe(slot);
        const parent = model.nodes[h.order[slot]].parent;
        expect(h.parentSlot[slot]).toBe(parent < 0 ? -1 : h.slotOf[parent]);
      }
      for (const mn of model.meshNodes) {
        if (mn.skin < 0) continue;
        for (const p of model.meshes[mn.mesh].primitives) {
          if (!p.weights) continue;
          expect(p.maxJoint).toBeLessThan(model.skins[mn.skin].joints.length);
          for (let v = 0; v < p.vertexCount; v++) {
            let sum = 0;
            for (let i = 0; i < p.influences; i++) sum += p.weights[v * p.influences + i];
            expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
          }
        }
      }
    });
  }

  it('reports the vertex counts and structure the asset index lists', async () => {
    const count = async (name: string) => {
      const m = await loadGltfFile(assetPath(name));
      return {
        skins: m.skins.length,
        joints: m.skins.reduce((n, s) => n + s.joints.length, 0),
        clips: m.animations.length,
        vertices: m.meshes.reduce((n, mesh) => n + mesh.primitives.reduce((k, p) => k + p.vertexCount, 0), 0),
      };
    };
    expect(await count('SimpleSkin')).toEqual({ skins: 1, joints: 2, clips: 1, vertices: 10 });
    expect(await count('Fox')).toEqual({ skins: 1, joints: 24, clips: 3, vertices: 1728 });
    expect(await count('RecursiveSkeletons')).toMatchObject({ skins: 84, joints: 840, clips: 1 });
    expect(await count('CesiumMan')).toMatchObject({ skins: 1, joints: 19, clips: 1, vertices: 3273 });
  });

  it('RobotExpressive: unnormalised weights are renormalised with a warning', async () => {
    const model = await loadGltfFile(assetPath('RobotExpressive'));
    const warning = model.warnings.find((w) => /WEIGHTS_0/.test(w.path));
    expect(warning?.message).toMatch(/renormalised/);
    // The CPU weights are renormalised; the GPU keeps the file's and divides by their sum.
    const prim = model.meshes[12].primitives[0];
    let sum = 0, fileSum = 0;
    for (let i = 0; i < 4; i++) { sum += prim.weights![i]; fileSum += prim.weightSets[0].array[i]; }
    expect(sum).toBeCloseTo(1, 6);
    expect(prim.weightSets[0].array).toBeInstanceOf(Float32Array);
    expect(fileSum).toBeGreaterThan(0);
  });

  it('RecursiveSkeletons: u8 joints are kept native and one mesh serves 84 skinned nodes', async () => {
    const model = await loadGltfFile(assetPath('RecursiveSkeletons'));
    expect(model.meshes[0].primitives[0].jointSets[0].componentType).toBe(ComponentType.UNSIGNED_BYTE);
    const skinned = model.meshNodes.filter((m) => m.skin >= 0);
    expect(skinned).toHaveLength(84);
    expect(new Set(skinned.map((m) => m.mesh)).size).toBe(1);
    expect(new Set(skinned.map((m) => m.skin)).size).toBe(84);
  });

  it('RiggedSimple: matrix nodes keep their exact matrix', async () => {
    const model = await loadGltfFile(assetPath('RiggedSimple'));
    expect(Array.from(model.hierarchy.useMatrix).filter(Boolean).length).toBeGreaterThan(0);
  });

  it('InterpolationTest: reads STEP, LINEAR and CUBICSPLINE samplers', async () => {
    const model = await loadGltfFile(assetPath('InterpolationTest'));
    const kinds = new Set(model.animations.flatMap((a) => a.channels.map((c) => c.sampler.interpolation)));
    expect(kinds.size).toBe(3);
  });

  it('SimpleMorph: keeps morph targets and weights', async () => {
    const model = await loadGltfFile(assetPath('SimpleMorph'));
    expect(model.meshes[0].primitives[0].targets).toHaveLength(2);
    expect(model.animations[0].channels[0].path).toBe(3);
  });
});

describe('loadGltf buffer sources', () => {
  it('reads .gltf with an external .bin beside it, and a GLB of the same data identically', async () => {
    const glb = await loadGltf(buildChain({ tangents: true }), { name: 'a.glb' });
    const b = new GltfBuilder();
    b.addScene({ nodes: [b.addNode({ mesh: b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(glb.meshes[0].primitives[0].positions, 'VEC3', { minMax: true }) } }] }) })] });
    const { json, bin } = b.toGltfWithExternalBuffer('data/chain.bin');
    const dir = mkdtempSync(join(tmpdir(), 'gltf-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'chain.bin'), bin);
    writeFileSync(join(dir, 'chain.gltf'), JSON.stringify(json));
    const external = await loadGltfFile(join(dir, 'chain.gltf'));
    expect(Array.from(external.meshes[0].primitives[0].positions)).toEqual(Array.from(glb.meshes[0].primitives[0].positions));
    // A data: URI version of the same file.
    const embedded = await loadGltf(new TextEncoder().encode(JSON.stringify(b.toGltf().json)));
    expect(Array.from(embedded.meshes[0].primitives[0].positions)).toEqual(Array.from(glb.meshes[0].primitives[0].positions));
  });

  it('refuses external URIs that leave the model folder', async () => {
    const b = new GltfBuilder();
    b.addScene({ nodes: [b.addNode({ mesh: b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(Float32Array.of(0, 0, 0), 'VEC3', { minMax: true }) } }] }) })] });
    const dir = mkdtempSync(join(tmpdir(), 'gltf-'));
    for (const uri of ['../secret.bin', '/etc/passwd', 'file:///etc/passwd', 'http://example.com/x.bin']) {
      const { json } = b.toGltfWithExternalBuffer(uri);
      writeFileSync(join(dir, 'm.gltf'), JSON.stringify(json));
      await expect(loadGltfFile(join(dir, 'm.gltf'))).rejects.toThrow(/buffers\[0\]\.uri: could not load/);
    }
  });

  it('an accessor without bufferView reads as zeros, with sparse values on top', async () => {
    const b = new GltfBuilder();
    const pos = b.addSparseAccessor(null, 'VEC3', { indices: Uint8Array.of(1), values: Float32Array.of(1, 2, 3) }, { count: 3, minMax: true });
    b.addScene({ nodes: [b.addNode({ mesh: b.addMesh({ primitives: [{ attributes: { POSITION: pos } }] }) })] });
    const model = await loadGltf(b.toGlb());
    expect(Array.from(model.meshes[0].primitives[0].positions)).toEqual([0, 0, 0, 1, 2, 3, 0, 0, 0]);
  });

  it('all-zero weights bind the vertex to its first joint, with a warning', async () => {
    const b = new GltfBuilder();
    const joint = b.addNode({ translation: [0, 1, 0] });
    const attributes = {
      POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 0, 0), 'VEC3', { minMax: true }),
      JOINTS_0: b.addAccessor(Uint16Array.of(0, 0, 0, 0, 0, 0, 0, 0), 'VEC4'),
      WEIGHTS_0: b.addAccessor(Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0), 'VEC4'),
    };
    const mesh = b.addMesh({ primitives: [{ attributes, mode: 0 }] });
    b.addScene({ nodes: [joint, b.addNode({ mesh, skin: b.addSkin({ joints: [joint] }) })] });
    const model = await loadGltf(b.toGlb());
    expect(Array.from(model.meshes[0].primitives[0].weights!)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(model.warnings.map((w) => w.message).join()).toMatch(/1 all zero/);
  });
});

describe('the loaded model', () => {
  it('is frozen at the top level', async () => {
    const model = await loadGltf(buildChain());
    expect(Object.isFrozen(model)).toBe(true);
  });
});
