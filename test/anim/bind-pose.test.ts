import { describe, expect, it } from 'vitest';
import { mat4d, vec3d } from 'wgpu-matrix';
import { editBindPose } from '../../src/anim/bind-pose.ts';
import { findSlot, isInSubtree } from '../../src/anim/mask.ts';
import { createPose } from '../../src/anim/pose.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetPath } from '../support/assets.ts';
import { loadCharacter } from './fixtures.ts';

/** Vertices of primitive `p` bound to a single joint (weight 1), as [vertex, joint slot]. */
function rigidVertices(model: Model, p: number): Array<[number, number]> {
  const prim = model.meshes[model.meshNodes[0].mesh].primitives[p];
  const skin = model.skins[model.meshNodes[0].skin];
  const out: Array<[number, number]> = [];
  for (let v = 0; v < prim.vertexCount; v++) {
    for (let i = 0; i < prim.influences; i++) {
      if (prim.weights![v * prim.influences + i] === 1) out.push([v, skin.jointSlots[prim.joints![v * prim.influences + i]]]);
    }
  }
  return out;
}

/** Slots whose joints a vertex of primitive `p` depends on. */
function influences(model: Model, p: number, v: number): number[] {
  const prim = model.meshes[model.meshNodes[0].mesh].primitives[p];
  const skin = model.skins[model.meshNodes[0].skin];
  const slots: number[] = [];
  for (let i = 0; i < prim.influences; i++) if (prim.weights![v * prim.influences + i] > 0) slots.push(skin.jointSlots[prim.joints![v * prim.influences + i]]);
  return slots;
}

const restOf = (model: Model) => bakeModel({ ...model, animations: [] });
const vertex = (positions: Float64Array, v: number) => vec3d.fromValues(positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]);
const matrixOf = (nodeMatrices: Float64Array, slot: number) => mat4d.clone(nodeMatrices.subarray(slot * 16, slot * 16 + 16));
const distance = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The character with its head scaled ×1.3 and moved 3 cm up its bone, and its left forearm lengthened ×1.2. */
async function customised() {
  const model = await loadCharacter();
  const head = findSlot(model, 'Head'), forearm = findSlot(model, 'LowerArm.L');
  const edited = createPose(model);
  for (let c = 0; c < 3; c++) edited.scale[head * 3 + c] *= 1.3;
  edited.translation[head * 3 + 1] += 0.03;
  edited.scale[forearm * 3 + 1] *= 1.2;
  return { model, edited, head, forearm, custom: editBindPose(model, edited) };
}

describe('editBindPose: invalid inputs', () => {
  it('rejects a pose of another model and edits of nodes given by a matrix', async () => {
    const model = await loadCharacter();
    const fox = await loadGltfFile(assetPath('Fox'));
    expect(() => editBindPose(model, createPose(fox))).toThrow(/edited rest pose has 26 slots, the model has 22/);
    const man = await loadGltfFile(assetPath('CesiumMan'));
    const pose = createPose(man);
    expect(editBindPose(man, pose).skins[0].inverseBindMatrices).toEqual(man.skins[0].inverseBindMatrices); // no edit, no change
    pose.scale[0] = 2; // slot 0 is the file's Z_UP matrix node
    expect(() => editBindPose(man, pose)).toThrow(/node \d+ \(Z_UP\) is given by a matrix/);
  });
});

describe('editBindPose: numbers', () => {
  it('copies: the model and its rest transforms are untouched; joints not edited keep their exact IBMs', async () => {
    const { model, custom, head, forearm } = await customised();
    const before = Float64Array.from(model.skins[0].inverseBindMatrices);
    expect(custom).not.toBe(model);
    expect(custom.hierarchy).toBe(model.hierarchy); // the edit lives in the IBMs only (see bind-pose.ts)
    expect(custom.skins[0].inverseBindMatrices).not.toBe(model.skins[0].inverseBindMatrices);
    expect(model.skins[0].inverseBindMatrices).toEqual(before);
    const skin = model.skins[0];
    for (let j = 0; j < skin.joints.length; j++) {
      const slot = skin.jointSlots[j];
      const edited = slot === head || isInSubtree(model.hierarchy, slot, forearm);
      const same = Array.from(custom.skins[0].inverseBindMatrices.subarray(j * 16, j * 16 + 16)).every((x, i) => x === before[j * 16 + i]);
      expect(same, model.nodes[skin.joints[j]].name).toBe(!edited);
    }
    expect(custom.skins[0].inverseBindAffine).toBe(true);
  });

  it('the rest pose shows the edit: each vertex moves as its joint\'s rest frame moved; others are bit-for-bit unchanged', async () => {
    const { model, edited, custom, head, forearm } = await customised();
    const before = restOf(model), after = restOf(custom);
    const editedWorld = bakeModel({ ...model, animations: [], hierarchy: { ...model.hierarchy, restTranslation: edited.translation, restScale: edited.scale } }).nodeMatrices;
    let headVertices = 0, handVertices = 0, untouched = 0;
    for (let p = 0; p < before.primitives.length; p++) {
      const rigid = new Map(rigidVertices(model, p));
      for (let v = 0; v < before.primitives[p].vertexCount; v++) {
        const slots = influences(model, p, v);
        const moved = slots.some((s) => s === head || isInSubtree(model.hierarchy, s, forearm));
        if (!moved) {
          untouched++;
          expect(Array.from(after.primitives[p].positions.subarray(v * 3, v * 3 + 3))).toEqual(Array.from(before.primitives[p].positions.subarray(v * 3, v * 3 + 3)));
          continue;
        }
        const slot = rigid.get(v);
        if (slot === undefined) continue;
        // W'_j · W_j⁻¹ · (old rest vertex)
        const edit = mat4d.multiply(matrixOf(editedWorld, slot), mat4d.inverse(matrixOf(before.nodeMatrices, slot)));
        const expected = vec3d.transformMat4(vertex(before.primitives[p].positions, v), edit);
        expect(distance(vertex(after.primitives[p].positions, v), expected)).toBeLessThan(1e-9);
        if (slot === head) headVertices++;
        else handVertices++;
      }
    }
    expect(headVertices).toBeGreaterThan(50);
    expect(handVertices).toBeGreaterThan(10); // the hand is a descendant of the lengthened forearm
    expect(untouched).toBeGreaterThan(500);
  });

  it('the edit survives every clip: in its joint\'s animated frame, an edited vertex never moves', async () => {
    const { model, custom, head } = await customised();
    const rest = restOf(custom);
    const rigid = rigidVertices(model, 2).filter(([, s]) => s === head).map(([v]) => v); // skin primitive: face
    expect(rigid.length).toBeGreaterThan(20);
    const local = (result: typeof rest, v: number) => vec3d.transformMat4(vertex(result.primitives[2].positions, v), mat4d.inverse(matrixOf(result.nodeMatrices, head)));
    const restLocal = rigid.map((v) => local(rest, v));
    const original = restOf(model);
    for (let clip = 0; clip < model.animations.length; clip++) {
      for (const time of [0.1, 0.45, 1.3, 2.2]) {
        const animated = bakeModel(custom, { animation: clip, time });
        const plain = bakeModel(model, { animation: clip, time });
        rigid.forEach((v, i) => {
          expect(distance(local(animated, v), restLocal[i])).toBeLessThan(1e-9);
          // …and the edit's offset is the rest offset carried by the head's animated rotation.
          const offset = vec3d.subtract(vertex(animated.primitives[2].positions, v), vertex(plain.primitives[2].positions, v));
          const restOffset = vec3d.subtract(vertex(rest.primitives[2].positions, v), vertex(original.primitives[2].positions, v));
          const carried = vec3d.transformMat4Upper3x3(restOffset, mat4d.multiply(matrixOf(animated.nodeMatrices, head), mat4d.inverse(matrixOf(rest.nodeMatrices, head))));
          expect(distance(offset, carried)).toBeLessThan(1e-9);
        });
      }
    }
  });

  it('editing the rest transforms as well would apply the edit twice (why editBindPose leaves them alone)', async () => {
    const model = await loadCharacter();
    const head = findSlot(model, 'Head');
    const edited = createPose(model);
    edited.translation[head * 3 + 2] += 0.05; // 5 cm forward, head's local z = model z at rest
    const custom = editBindPose(model, edited);
    const both = { ...custom, hierarchy: { ...model.hierarchy, restTranslation: edited.translation } };
    const before = restOf(model), once = restOf(custom), twice = restOf(both);
    const v = rigidVertices(model, 2).find(([, s]) => s === head)![0];
    const dz = (r: typeof before) => r.primitives[2].positions[v * 3 + 2] - before.primitives[2].positions[v * 3 + 2];
    expect(dz(once)).toBeCloseTo(0.05, 9);
    expect(dz(twice)).toBeCloseTo(0.1, 9);
  });
});
