import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../src/gltf/load.ts';
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
});
