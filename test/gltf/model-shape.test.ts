/**
 * The model's shape from its JSON alone (src/gltf/model-shape.ts): what it reads, that it is
 * handed over before any buffer is read, and that hostile JSON gives no shape or a bounded one,
 * never an error, a hang or a failed load. (That the shapes forecast the draws' own pipelines is
 * test/gpu/draw/pipeline-forecast.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { GltfBuilder } from '../../src/gltf/builder.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { readModelShape, type ModelShape } from '../../src/gltf/model-shape.ts';
import { assetPath } from '../support/assets.ts';

describe('readModelShape', () => {
  it('reads the Fox: one skinned draw of its one primitive, its attributes as declared, its material', () => {
    let shape: ModelShape | undefined;
    void loadGltf(readFileSync(assetPath('Fox')), { onShape: (s) => { shape = s; } });
    // Handed over synchronously, before loadGltf's first await (its buffers are read after).
    expect(shape).toBeDefined();
    expect(shape!.draws).toHaveLength(1);
    const [draw] = shape!.draws;
    expect(draw.skinned).toBe(true);
    expect(draw.mirrored).toBe(false);
    expect(Object.keys(draw.primitive.attributes).sort()).toEqual(['JOINTS_0', 'POSITION', 'TEXCOORD_0', 'WEIGHTS_0']);
    expect(draw.primitive.attributes.POSITION).toEqual({ componentType: 5126, normalized: false, components: 3 });
    expect(shape!.materials).toHaveLength(1);
    expect(shape!.materials[0].baseColorTexture).toBeDefined();
  });

  it('is not asked for unless a caller wants it, and a load without onShape is unchanged', async () => {
    const model = await loadGltf(readFileSync(assetPath('Fox')));
    expect(model.meshNodes).toHaveLength(1);
  });

  /** A one-triangle mesh, drawn by `nodes` (the scene's roots are those without a parent). */
  function withNodes(nodes: Record<string, unknown>[], extra: (b: GltfBuilder) => void = () => {}): Record<string, unknown> {
    const b = new GltfBuilder();
    b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), 'VEC3', { minMax: true }) } }] });
    for (const n of nodes) b.addNode(n as never);
    extra(b);
    return JSON.parse(JSON.stringify(b.json)) as Record<string, unknown>;
  }

  it('mirroring multiplies down the hierarchy: a mirrored parent and a mirrored child draw unmirrored', () => {
    const json = withNodes([
      { mesh: 0, scale: [1, 1, -1] },
      { matrix: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], children: [2] },
      { mesh: 0, scale: [-1, 1, 1] },
    ]);
    const shape = readModelShape(json)!;
    expect(shape.draws.map((d) => d.mirrored).sort()).toEqual([false, true]);
  });

  it('hostile JSON: cycles end, 10,000 nodes of one mesh give one draw, garbage gives no shape or leaves the primitive out', () => {
    const cyclic = withNodes([{ mesh: 0, children: [1] }, { mesh: 0, children: [0] }], (b) => b.addScene({ nodes: [0] }));
    expect(readModelShape(cyclic)!.draws).toHaveLength(1);
    const many = withNodes(Array.from({ length: 10_000 }, () => ({ mesh: 0 })));
    expect(readModelShape(many)!.draws).toHaveLength(1);
    const badAccessor = withNodes([{ mesh: 0 }]);
    (badAccessor.accessors as Record<string, unknown>[])[0].componentType = 'float';
    expect(readModelShape(badAccessor)!.draws).toHaveLength(0);
    for (const garbage of [{ nodes: 7 }, { meshes: [null], nodes: [{ mesh: 0 }] }, { nodes: [{ mesh: 99 }] }, { scenes: [{ nodes: [5] }], scene: 3 }]) {
      expect(readModelShape({ asset: { version: '2.0' }, ...garbage })?.draws ?? []).toEqual([]);
    }
    // A material the loader would refuse: no shape (the load itself reports it).
    const badMaterial = withNodes([{ mesh: 0 }], (b) => b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [1e40, 0, 0, 1] } }));
    expect(readModelShape(badMaterial)).toBeUndefined();
  });

  it('VRM 0.x (materials converted after reading) and Draco primitives (decoded storage) are not forecast', () => {
    const vrm0 = withNodes([{ mesh: 0 }]);
    vrm0.extensions = { VRM: {} };
    expect(readModelShape(vrm0)).toBeUndefined();
    const draco = withNodes([{ mesh: 0 }]);
    ((draco.meshes as Record<string, unknown[]>[])[0].primitives[0] as Record<string, unknown>).extensions = { KHR_draco_mesh_compression: { bufferView: 0, attributes: {} } };
    expect(readModelShape(draco)!.draws).toHaveLength(0);
  });
});
