/**
 * Expressions against three-vrm 3.5's VRMExpressionManager: the built-in VRM 1.0 and 0.x
 * avatars (morph-target binds, colour binds, blink/mouth overrides) and the VRM sample files
 * built to check isBinary and overrides (texture-transform binds). For random weight sets,
 * every morph weight, material colour and UV offset/scale must equal three-vrm's to 1e-6.
 *
 * The avatars give every bound material to one primitive only: three-vrm 3.5 adds a VRM 1.0
 * colour bind once per primitive drawn with its material, so a material shared by two
 * primitives moves twice as far (past its target). We apply each bind once.
 */
import { readFileSync } from 'node:fs';
import type { Material, Mesh, MeshStandardMaterial, Object3D } from 'three';
import { describe, expect, it } from 'vitest';
import { MaterialAnimOffset, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../../src/gltf/extensions/khr-animation-pointer.ts';
import { MaterialAnimation } from '../../../src/anim/material-tracks.ts';
import { createPose } from '../../../src/anim/pose.ts';
import { ExpressionJob } from '../../../src/anim/vrm/expressions.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { Rng } from '../../support/fuzz.ts';
import { loadThreeVrm, threeNode } from '../../support/three-vrm.ts';

const TOLERANCE = 1e-6;
const VRM_DIR = '../shared/assets/vrm';

interface Setup {
  readonly model: Model;
  readonly job: ExpressionJob;
  readonly materials: MaterialAnimation;
  readonly three: Awaited<ReturnType<typeof loadThreeVrm>>;
}

async function setup(bytes: Uint8Array): Promise<Setup> {
  const model = await loadGltf(bytes);
  const pose = createPose(model);
  const materials = new MaterialAnimation(model);
  const job = new ExpressionJob(model, pose, materials);
  return { model, job, materials, three: await loadThreeVrm(bytes) };
}

function threeMaterials(root: Object3D, assoc: Map<unknown, { materials?: number }>, index: number): Material[] {
  const out = new Set<Material>();
  root.traverse((o) => {
    const m = (o as Mesh).material;
    for (const mat of Array.isArray(m) ? m : m ? [m] : []) if (assoc.get(mat)?.materials === index) out.add(mat);
  });
  return [...out];
}

/** Sets the same weights on both sides, updates both, and returns the largest difference found. */
function compare(s: Setup, weights: Record<string, number>): number {
  const { model, job, materials, three } = s;
  job.resetWeights();
  three.vrm.expressionManager!.resetValues();
  for (const [name, w] of Object.entries(weights)) {
    job.setWeight(name, w);
    three.vrm.expressionManager!.setValue(name, w);
  }
  job.run();
  three.vrm.expressionManager!.update();
  let worst = 0;
  const diff = (a: number, b: number) => { worst = Math.max(worst, Math.abs(a - b)); };
  // Morph weights of every node with targets.
  model.nodes.forEach((node, n) => {
    if (node.weights.length === 0) return;
    const offset = job.pose.weightOffsets[model.hierarchy.slotOf[n]];
    const object = threeNode(three.gltf, n);
    const meshes: Mesh[] = [];
    object.traverse((o) => { if ((o as Mesh).morphTargetInfluences && (o === object || o.parent === object)) meshes.push(o as Mesh); });
    expect(meshes.length).toBeGreaterThan(0);
    for (const mesh of meshes) mesh.morphTargetInfluences!.forEach((w, t) => diff(job.pose.weights[offset + t], w));
  });
  // Material values of every bound material.
  const assoc = three.gltf.parser.associations as Map<unknown, { materials?: number }>;
  for (const m of materials.materials) {
    const o = materials.blockStart(m);
    const v = materials.values;
    for (const mat of threeMaterials(three.vrm.scene, assoc, m) as MeshStandardMaterial[]) {
      diff(v[o + MaterialAnimOffset.BASE_COLOR_FACTOR], mat.color.r);
      diff(v[o + MaterialAnimOffset.BASE_COLOR_FACTOR + 1], mat.color.g);
      diff(v[o + MaterialAnimOffset.BASE_COLOR_FACTOR + 2], mat.color.b);
      diff(v[o + MaterialAnimOffset.BASE_COLOR_FACTOR + 3], mat.opacity);
      if (mat.emissive) {
        diff(v[o + MaterialAnimOffset.EMISSIVE_FACTOR], mat.emissive.r);
        diff(v[o + MaterialAnimOffset.EMISSIVE_FACTOR + 1], mat.emissive.g);
        diff(v[o + MaterialAnimOffset.EMISSIVE_FACTOR + 2], mat.emissive.b);
      }
      if (mat.map) {
        const uv = o + MaterialAnimOffset.UV_TRANSFORM; // base colour slot
        diff(v[uv + UvTransformOffset.OFFSET], mat.map.offset.x);
        diff(v[uv + UvTransformOffset.OFFSET + 1], mat.map.offset.y);
        diff(v[uv + UvTransformOffset.SCALE], mat.map.repeat.x);
        diff(v[uv + UvTransformOffset.SCALE + 1], mat.map.repeat.y);
        expect(UV_TRANSFORM_FLOATS).toBe(5);
      }
    }
  }
  return worst;
}

const FILES: { name: string; bytes: () => Uint8Array }[] = [
  { name: 'built-in VRM 1.0 avatar', bytes: () => buildBuiltinGlb('vrm-avatar') },
  { name: 'built-in VRM 0.x avatar', bytes: () => buildBuiltinGlb('vrm0-avatar') },
  { name: 'VRMC_vrm_expressions_isBinary_Overrides.vrm', bytes: () => readFileSync(`${VRM_DIR}/VRMC_vrm_expressions_isBinary_Overrides.vrm`) },
  { name: 'VRMC_vrm_expressions_isBinary_Overridden.vrm', bytes: () => readFileSync(`${VRM_DIR}/VRMC_vrm_expressions_isBinary_Overridden.vrm`) },
];

describe('ExpressionJob agrees with three-vrm', () => {
  for (const f of FILES) {
    it(f.name, async () => {
      const s = await setup(f.bytes());
      const names = s.job.names;
      expect(names.sort()).toEqual(s.three.vrm.expressionManager!.expressions.map((e) => e.expressionName).sort());
      const rng = new Rng(7);
      let worst = 0;
      // Single expressions at full, half and threshold weights, then random mixes.
      for (const name of names) for (const w of [1, 0.5, 0.51, 0.2]) worst = Math.max(worst, compare(s, { [name]: w }));
      for (let k = 0; k < 60; k++) {
        const mix: Record<string, number> = {};
        for (const name of names) if (rng.chance(0.4)) mix[name] = rng.chance(0.2) ? 1 : rng.next();
        worst = Math.max(worst, compare(s, mix));
      }
      expect(worst).toBeLessThanOrEqual(TOLERANCE);
    });
  }

  it('moves what it binds (a test that could not fail would prove nothing)', async () => {
    const s = await setup(buildBuiltinGlb('vrm-avatar'));
    const face = s.model.nodes.findIndex((n) => n.weights.length > 0);
    const offset = s.job.pose.weightOffsets[s.model.hierarchy.slotOf[face]];
    s.job.setWeight('aa', 1);
    s.job.run();
    expect(s.job.pose.weights[offset]).toBe(1);
    // happy blends the blink out: blink alone closes the lids, with happy at 1 it adds nothing.
    s.job.resetWeights();
    s.job.setWeight('blink', 1);
    s.job.run();
    const blinkL = 7;
    expect(s.job.pose.weights[offset + blinkL]).toBe(1);
    s.job.setWeight('happy', 1);
    s.job.run();
    expect(s.job.pose.weights[offset + blinkL]).toBeCloseTo(0.35, 6);
    // angry reddens the skin.
    s.job.resetWeights();
    s.job.setWeight('angry', 1);
    s.job.run();
    const skin = s.model.materials.findIndex((m) => m.name === 'Skin');
    expect(s.materials.values[s.materials.blockStart(skin) + 1]).toBeCloseTo(0.45, 6);
  });
});

describe('ExpressionJob skips a run that would change nothing', () => {
  it('writes what a fresh job writes, frame after frame, whatever changed in between', async () => {
    // The job under test runs every frame and skips while its inputs are unchanged; the reference
    // is a new job each frame (nothing to compare with: it always runs in full) on its own pose
    // and materials, given the same weights and the same clip writes.
    const model = await loadGltf(buildBuiltinGlb('vrm-avatar'));
    const pose = createPose(model), materials = new MaterialAnimation(model);
    const job = new ExpressionJob(model, pose, materials);
    const refPose = createPose(model), refMaterials = new MaterialAnimation(model);
    const face = model.nodes.findIndex((n) => n.weights.length > 0);
    const offset = pose.weightOffsets[model.hierarchy.slotOf[face]];
    const rng = new Rng(11);
    const names = job.names;
    let skipped = 0, checked = 0;
    for (let frame = 0; frame < 400; frame++) {
      const ref = new ExpressionJob(model, refPose, refMaterials);
      // Weights: most frames keep them (the skip), some change one.
      if (rng.chance(0.3)) {
        const name = names[Math.floor(rng.next() * names.length)], w = rng.chance(0.3) ? 0 : rng.next();
        job.setWeight(name, w);
      }
      for (const name of names) ref.setWeight(name, job.weights[job.find(name)]);
      // A clip writing a face morph weight (bound or not), sometimes the value the job wrote last.
      if (rng.chance(0.3)) {
        const t = offset + Math.floor(rng.next() * 10), v = rng.chance(0.5) ? pose.weights[t] : rng.next();
        pose.weights[t] = v;
        refPose.weights[t] = v;
      }
      // A clip sampling the materials (its own values; the overlay applied again).
      if (rng.chance(0.2)) {
        materials.evaluate();
        refMaterials.evaluate();
      }
      const before = pose.weights.slice();
      job.run();
      ref.run();
      if (pose.weights.every((w, i) => w === before[i])) skipped++;
      expect(Array.from(pose.weights)).toEqual(Array.from(refPose.weights));
      expect(Array.from(materials.values)).toEqual(Array.from(refMaterials.values));
      checked++;
    }
    expect(checked).toBe(400);
    expect(skipped).toBeGreaterThan(100);
  });
});
