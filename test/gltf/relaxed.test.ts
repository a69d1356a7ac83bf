import { describe, expect, it } from 'vitest';
import { GltfError } from '../../src/gltf/errors.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { bakeModel, morphForBake, poseForBake } from '../../src/bake/bake.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetJson } from '../support/assets.ts';

/**
 * Files glTF-Validator calls invalid but three.js r187 draws without guessing: we draw them
 * too, with a defined behaviour and a warning naming the JSON path (validate.test.ts keeps
 * what is still refused). SimpleSkin: nodes[0] the skinned mesh node, nodes[1] → nodes[2] the joints.
 */

const bytesOf = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

async function loadWith(asset: string, mutate: (j: Record<string, any>) => void): Promise<Model> {
  const json = assetJson(asset);
  mutate(json);
  return loadGltf(bytesOf(json));
}

function warningAt(model: Model, path: string): string {
  const found = model.warnings.filter((w) => w.path === path);
  expect(found, `one warning at ${path}; got ${JSON.stringify(model.warnings)}`).toHaveLength(1);
  return found[0].message;
}

describe('drawn with a warning, as three.js r187 draws them', () => {
  it('joints with no common root (SKIN_NO_COMMON_ROOT): each joint keeps its own hierarchy', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      j.nodes.push({ translation: [5, 0, 0] });
      j.scenes[0].nodes.push(3);
      j.skins[0].joints = [1, 3];
    });
    expect(warningAt(model, 'skins[0].joints[1]')).toMatch(/nodes\[3\] has no common root with nodes\[1\].*own node hierarchy/);
    expect(Array.from(model.skins[0].jointParents)).toEqual([-1, -1]);
    expect(model.meshNodes[0].skin).toBe(0);
  });

  it('a joint that is an unparented node outside the scene: both reported, still drawn skinned', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      j.nodes.push({});
      j.skins[0].joints = [1, 3];
    });
    expect(warningAt(model, 'skins[0].joints[1]')).toMatch(/no common root/);
    expect(warningAt(model, 'nodes[0].skin')).toMatch(/skins\[0\]\.joints\[1\] \(nodes\[3\]\) is not in scenes\[0\]/);
    expect(model.meshNodes[0].skin).toBe(0);
  });

  it('a node listed twice as a joint: both entries follow it, the second with its twin\'s parent', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      j.skins[0].joints = [1, 2, 2];
      delete j.skins[0].inverseBindMatrices;
    });
    expect(warningAt(model, 'skins[0].joints[2]')).toMatch(/nodes\[2\] is listed twice; both entries follow it/);
    expect(Array.from(model.skins[0].jointSlots)).toEqual([1, 2, 2].map((n) => model.hierarchy.slotOf[n]));
    expect(Array.from(model.skins[0].jointParents)).toEqual([-1, 0, 0]);
  });

  it('a skeleton that is not the joints\' common root (SKIN_SKELETON_INVALID): skeleton ignored', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.skins[0].skeleton = 2));
    expect(warningAt(model, 'skins[0].skeleton')).toMatch(/nodes\[2\] is not the common root.*joints\[0\], nodes\[1\].*ignored/);
    expect(Array.from(model.skins[0].jointParents)).toEqual([-1, 0]);
  });

  it('skin joints outside the scene (NODE_SKIN_NO_SCENE): posed by their own hierarchy', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.scenes[0].nodes = [0]));
    expect(warningAt(model, 'nodes[0].skin')).toMatch(/skins\[0\]\.joints\[0\] \(nodes\[1\]\) is not in scenes\[0\]/);
    expect(model.meshNodes).toEqual([{ node: 0, mesh: 0, skin: 0 }]);
  });

  it('a node listed twice in a scene: drawn once', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.scenes[0].nodes = [0, 1, 0]));
    expect(warningAt(model, 'scenes[0].nodes[2]')).toMatch(/nodes\[0\] is listed twice; drawn once/);
    expect(Array.from(model.sceneRoots)).toEqual([0, 1]);
    expect(model.meshNodes).toHaveLength(1);
  });

  it('a node with both matrix and TRS: the matrix is used', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      j.nodes[2].matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1];
    });
    expect(warningAt(model, 'nodes[2].matrix')).toMatch(/either matrix or translation\/rotation\/scale.*the matrix is used/);
    const slot = model.hierarchy.slotOf[2];
    expect(Array.from(model.hierarchy.restTranslation.subarray(slot * 3, slot * 3 + 3))).toEqual([7, 8, 9]);
  });

  it('a node matrix whose last row is not 0 0 0 1 (NODE_MATRIX_NON_TRS): the last row is ignored', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      delete j.nodes[2].translation;
      delete j.nodes[2].rotation;
      j.nodes[2].matrix = [1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 2];
    });
    expect(warningAt(model, 'nodes[2].matrix')).toMatch(/last row is 0.5 0 0 2, not 0 0 0 1; it is ignored/);
    const slot = model.hierarchy.slotOf[2];
    expect(Array.from(model.hierarchy.restMatrix.subarray(slot * 16, slot * 16 + 16))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1]);
  });

  it('a zero quaternion node rotation: no rotation', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.nodes[2].rotation = [0, 0, 0, 0]));
    expect(warningAt(model, 'nodes[2].rotation')).toMatch(/zero quaternion; no rotation/);
    const slot = model.hierarchy.slotOf[2];
    expect(Array.from(model.hierarchy.restRotation.subarray(slot * 4, slot * 4 + 4))).toEqual([0, 0, 0, 1]);
  });

  it('an unknown alphaMode: drawn OPAQUE', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.materials = [{ alphaMode: 'CUTOUT' }]));
    expect(warningAt(model, 'materials[0].alphaMode')).toMatch(/"CUTOUT" is not OPAQUE, MASK or BLEND; drawn OPAQUE/);
    expect(model.materials[0].alphaMode).toBe('OPAQUE');
  });

  it('an animation channel with an unknown target path: the channel is ignored', async () => {
    const model = await loadWith('SimpleSkin', (j) => (j.animations[0].channels[0].target.path = 'visibility'));
    expect(warningAt(model, 'animations[0].channels[0].target.path')).toMatch(/"visibility" is not translation, rotation, scale or weights; the channel is ignored/);
    expect(model.animations[0].channels).toHaveLength(0);
  });

  it('a weights channel on a node without a mesh, or whose mesh has no morph targets: the channel is ignored', async () => {
    const noMesh = await loadWith('SimpleSkin', (j) => (j.animations[0].channels[0].target = { node: 1, path: 'weights' }));
    expect(warningAt(noMesh, 'animations[0].channels[0].target.node')).toMatch(/nodes\[1\], which has no mesh; the channel is ignored/);
    expect(noMesh.animations[0].channels).toHaveLength(0);
    const noTargets = await loadWith('SimpleSkin', (j) => (j.animations[0].channels[0].target = { node: 0, path: 'weights' }));
    expect(warningAt(noTargets, 'animations[0].channels[0].target.node')).toMatch(/nodes\[0\], whose mesh has no morph targets; the channel is ignored/);
  });

  it('mesh weights of the wrong length (MESH_INVALID_WEIGHTS_COUNT): missing ones are 0, extra ones ignored', async () => {
    const short = await loadWith('SimpleMorph', (j) => (j.meshes[0].weights = [0.5]));
    expect(warningAt(short, 'meshes[0].weights')).toMatch(/has 1 weights but the primitives have 2 morph targets; the missing weights are 0/);
    expect(Array.from(short.meshes[0].weights)).toEqual([0.5, 0]);
    const long = await loadWith('SimpleMorph', (j) => (j.meshes[0].weights = [0.25, 0.5, 0.75]));
    expect(warningAt(long, 'meshes[0].weights')).toMatch(/the extra weights are ignored/);
    expect(Array.from(long.meshes[0].weights)).toEqual([0.25, 0.5]);
  });

  it('node weights of the wrong length (NODE_WEIGHTS_INVALID): the mesh\'s weights fill the rest', async () => {
    const short = await loadWith('SimpleMorph', (j) => {
      j.meshes[0].weights = [0.25, 0.75];
      j.nodes[0].weights = [1];
    });
    expect(warningAt(short, 'nodes[0].weights')).toMatch(/has 1 weights but meshes\[0\] has 2 morph targets; the mesh's weights fill the rest/);
    expect(Array.from(short.nodes[0].weights)).toEqual([1, 0.75]);
    const long = await loadWith('SimpleMorph', (j) => (j.nodes[0].weights = [0.5, 0.5, 0.5]));
    expect(warningAt(long, 'nodes[0].weights')).toMatch(/the extra weights are ignored/);
    expect(Array.from(long.nodes[0].weights)).toEqual([0.5, 0.5]);
  });

  it('a normalized FLOAT accessor (not allowed by glTF): the floats are read as they are', async () => {
    const plain = await loadGltf(bytesOf(assetJson('SimpleSkin')));
    const model = await loadWith('SimpleSkin', (j) => {
      j.accessors[1].normalized = true; // POSITION
      j.accessors[3].normalized = true; // WEIGHTS_0
    });
    expect(warningAt(model, 'accessors[1].normalized')).toMatch(/is true on a FLOAT accessor .*ignored, the floats are read as they are/);
    expect(warningAt(model, 'accessors[3].normalized')).toMatch(/FLOAT accessor/);
    const prim = model.meshes[0].primitives[0], plainPrim = plain.meshes[0].primitives[0];
    expect(Array.from(prim.positions)).toEqual(Array.from(plainPrim.positions));
    expect(Array.from(prim.weights!)).toEqual(Array.from(plainPrim.weights!));
    expect(bakeModel(model, { time: 1 }).primitives[0].positions).toEqual(bakeModel(plain, { time: 1 }).primitives[0].positions);
  });

  it('a normalized UNSIGNED_INT accessor is still refused (no vertex format has it; its scale would be a guess)', async () => {
    const error = await loadWith('SimpleSkin', (j) => {
      j.accessors[0].componentType = 5125;
      j.accessors[0].normalized = true;
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('accessors[0].normalized');
  });

  it('a mesh with no primitives (schema minItems 1): it draws nothing, its node stays a plain node', async () => {
    const model = await loadWith('SimpleSkin', (j) => {
      j.meshes.push({ primitives: [], weights: [1] });
      j.nodes.push({ mesh: 1, skin: 0, translation: [1, 2, 3] });
      j.scenes[0].nodes.push(3);
      j.animations[0].channels.push({ sampler: 0, target: { node: 3, path: 'weights' } });
    });
    expect(warningAt(model, 'meshes[1].primitives')).toMatch(/is empty; the mesh draws nothing/);
    expect(warningAt(model, 'animations[0].channels[1].target.node')).toMatch(/whose mesh has no morph targets; the channel is ignored/);
    expect(model.meshes[1].primitives).toEqual([]);
    expect(model.meshes[1].weights).toHaveLength(0);
    expect(model.meshNodes).toEqual([{ node: 0, mesh: 0, skin: 0 }]);
    const slot = model.hierarchy.slotOf[3];
    expect(Array.from(model.hierarchy.restTranslation.subarray(slot * 3, slot * 3 + 3))).toEqual([1, 2, 3]);
    expect(bakeModel(model, { time: 0.5 }).primitives).toHaveLength(1);
  });

  it('only meshes without primitives: a model with nothing to draw', async () => {
    const model = await loadWith('SimpleMorph', (j) => {
      j.meshes[0].primitives = [];
      j.animations = [];
    });
    expect(warningAt(model, 'meshes[0].primitives')).toMatch(/draws nothing/);
    expect(model.meshNodes).toEqual([]);
  });

  describe('primitives of one mesh with different morph target counts (MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT)', () => {
    // SimpleMorph: accessor 1 the triangle, 2 and 3 its two targets' deltas; weights (½, ½),
    // one weights channel of 2 values per key. The added primitive has only target 3.
    const withShortPrimitive = (first: boolean) => loadWith('SimpleMorph', (j) => {
      const short = { attributes: { POSITION: 1 }, indices: 0, targets: [{ POSITION: 3 }] };
      if (first) j.meshes[0].primitives.unshift(short);
      else j.meshes[0].primitives.push(short);
    });

    it('target k of each primitive follows weight k; the mesh has as many weights as its largest primitive', async () => {
      const model = await withShortPrimitive(false);
      expect(warningAt(model, 'meshes[0].primitives[1].targets')).toMatch(/different morph target counts \(2, 1\); target k of each follows weight k of 2/);
      expect(Array.from(model.meshes[0].weights)).toEqual([0.5, 0.5]);
      expect(model.animations[0].channels).toHaveLength(1);
      const [full, short] = model.meshes[0].primitives;
      const base = Array.from(full.positions);
      const d2 = Array.from(full.targets[0].positions!), d3 = Array.from(full.targets[1].positions!);
      for (const time of [1, 1.5, 2.5]) {
        const posed = poseForBake(model, { time });
        const [w0, w1] = posed.pose.weights;
        expect(w0 + w1, `t=${time} has a non-zero weight`).toBeGreaterThan(0);
        const fullOut = Array.from(morphForBake(model, posed, 0, full).positions);
        const shortOut = Array.from(morphForBake(model, posed, 0, short).positions);
        base.forEach((b, i) => {
          expect(fullOut[i]).toBeCloseTo(b + w0 * d2[i] + w1 * d3[i], 6);
          // The short primitive's only target (SimpleMorph's second) follows weight 0.
          expect(shortOut[i]).toBeCloseTo(b + w0 * d3[i], 6);
        });
      }
    });

    it('the short primitive first: the warning names it, the weights still come from the largest', async () => {
      const model = await withShortPrimitive(true);
      expect(warningAt(model, 'meshes[0].primitives[0].targets')).toMatch(/\(1, 2\)/);
      expect(model.meshes[0].weights).toHaveLength(2);
      expect(model.nodes[0].weights).toHaveLength(2);
    });
  });
});
