/**
 * The VRM readers (gltf/extensions/vrm*.ts) on good and broken input. A broken VRM part never
 * refuses the file: it is skipped (or a value clamped, or defaulted) with a warning naming its
 * JSON path, and the model still loads with the rest of its VRM data.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { buildConstraintFixture, buildSpringFixture } from '../../support/vrm-fixtures.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A copy of `glb` with its JSON edited. */
function edit(glb: Uint8Array, change: (json: Json) => void): Uint8Array {
  const { json, bin } = parseGlb(glb);
  change(json as Json);
  return encodeGlb(json, bin);
}

function warningAt(model: Model, path: string): string {
  const w = model.warnings.find((x) => x.path === path);
  expect(w, `no warning at ${path}; got ${JSON.stringify(model.warnings)}`).toBeDefined();
  return w!.message;
}

describe('VRM readers: good files', () => {
  it('read the built-in avatars into one runtime model for both versions', async () => {
    const [v1, v0] = await Promise.all([loadGltf(buildBuiltinGlb('vrm-avatar')), loadGltf(buildBuiltinGlb('vrm0-avatar'))]);
    expect(v1.warnings).toEqual([]);
    expect(v0.warnings).toEqual([]);
    expect(v1.vrm!.specVersion).toBe(1);
    expect(v0.vrm!.specVersion).toBe(0);
    // 0.x presets renamed to 1.0's; 0–100 bind weights divided by 100.
    const names1 = v1.vrm!.expressions.filter((e) => e.morphTargetBinds.length > 0 || e.materialColorBinds.length > 0).map((e) => e.name).sort();
    expect(v0.vrm!.expressions.map((e) => e.name).sort()).toEqual(names1);
    const happy0 = v0.vrm!.expressions.find((e) => e.name === 'happy')!;
    const happy1 = v1.vrm!.expressions.find((e) => e.name === 'happy')!;
    expect(happy0.morphTargetBinds.map((b) => b.weight)).toEqual(happy1.morphTargetBinds.map((b) => b.weight));
    // Look-at: 0.x's front is −Z, its offset z negated back.
    expect(v0.vrm!.lookAt!.faceFront).toEqual([0, 0, -1]);
    expect(v0.vrm!.lookAt!.offsetFromHeadBone).toEqual(v1.vrm!.lookAt!.offsetFromHeadBone);
    // 0.x chains end with a 7 cm virtual tail: its joints include each chain's end node.
    expect(v0.vrm!.springBones!.jointCount).toBe(v1.vrm!.springBones!.jointCount + 7);
    expect(v0.vrm!.materialProperties!.every((p) => p?.shader === 'VRM/MToon')).toBe(true);
    expect(v0.vrm!.materialProperties![0]!.vectorProperties._Color).toHaveLength(4);
  });

  it('reads the VRM sample files with no warning and lists their expressions', async () => {
    for (const [file, expressions] of [
      ['VRMC_vrm_expressions_isBinary_Overrides.vrm', ['happy', 'blink']],
      ['VRMC_vrm_expressions_isBinary_Overridden.vrm', ['happy', 'blink']],
      ['VRMC_materials_mtoon_UV_Animation_Test.vrm', []],
    ] as const) {
      const model = await loadGltf(readFileSync(`../shared/assets/vrm/${file}`));
      expect(model.warnings).toEqual([]);
      expect(model.vrm!.expressions.map((e) => e.name)).toEqual(expressions);
    }
  });
});

describe('VRM readers: broken input warns with the JSON path and loads the rest', () => {
  const springs = () => buildSpringFixture({ version: 1 });
  const path = 'extensions.VRMC_springBone';

  it('clamps a negative radius and replaces a non-number one', async () => {
    const model = await loadGltf(edit(springs(), (j) => {
      j.extensions.VRMC_springBone.colliders[0].shape.sphere.radius = -1;
      j.extensions.VRMC_springBone.colliders[1].shape.capsule.radius = 'NaN';
      j.extensions.VRMC_springBone.springs[0].joints[0].hitRadius = -0.5;
      j.extensions.VRMC_springBone.springs[0].joints[1].dragForce = 3;
    }));
    expect(warningAt(model, `${path}.colliders[0].shape.sphere.radius`)).toMatch(/-1 is outside \[0, Infinity\]; using 0/);
    expect(warningAt(model, `${path}.colliders[1].shape.capsule.radius`)).toMatch(/finite number.*using 0/);
    expect(warningAt(model, `${path}.springs[0].joints[0].hitRadius`)).toMatch(/using 0/);
    expect(warningAt(model, `${path}.springs[0].joints[1].dragForce`)).toMatch(/using 1/);
    const s = model.vrm!.springBones!;
    expect(s.colliderRadius[0]).toBe(0);
    expect(s.hitRadius[0]).toBe(0);
    expect(s.dragForce[1]).toBe(1);
  });

  it('ends a spring at a joint that is not a descendant of the one before (a spring through non-joints)', async () => {
    const model = await loadGltf(edit(springs(), (j) => {
      j.extensions.VRMC_springBone.springs[0].joints[2].node = 7; // the leg, not below hair1
    }));
    expect(warningAt(model, `${path}.springs[0].joints[2].node`)).toMatch(/not a descendant.*ends at joints\[1\]/);
    expect(model.vrm!.springBones!.springs[0].jointCount).toBe(1);
  });

  it('skips colliders, groups and joints that name what does not exist', async () => {
    const model = await loadGltf(edit(springs(), (j) => {
      const ext = j.extensions.VRMC_springBone;
      ext.colliders[0].node = 99;
      ext.colliderGroups[0].colliders.push(42);
      ext.springs[1].colliderGroups = [7];
      ext.springs[1].joints[0].node = -3;
      ext.colliders[1].shape = {};
    }));
    expect(warningAt(model, `${path}.colliders[0].node`)).toMatch(/node 99 does not exist.*skipped/);
    expect(warningAt(model, `${path}.colliderGroups[0].colliders[3]`)).toMatch(/out of range.*skipped/);
    expect(warningAt(model, `${path}.colliderGroups[0].colliders[0]`)).toMatch(/was skipped/);
    expect(warningAt(model, `${path}.springs[1].colliderGroups[0]`)).toMatch(/out of range/);
    expect(warningAt(model, `${path}.springs[1].joints[0].node`)).toMatch(/expected a node index/);
    expect(warningAt(model, `${path}.colliders[1].shape`)).toMatch(/neither a sphere nor a capsule/);
    expect(model.vrm!.springBones!.springs).toHaveLength(1);
  });

  it('warns for a VRM 0.x negative collider radius and an unknown center', async () => {
    const model = await loadGltf(edit(buildSpringFixture({ version: 0, colliders: ['sphere'] }), (j) => {
      j.extensions.VRM.secondaryAnimation.colliderGroups[0].colliders[0].radius = -2;
      j.extensions.VRM.secondaryAnimation.boneGroups[0].center = 500;
    }));
    const p = 'extensions.VRM.secondaryAnimation';
    expect(warningAt(model, `${p}.colliderGroups[0].colliders[0].radius`)).toMatch(/using 0/);
    expect(warningAt(model, `${p}.boneGroups[0].center`)).toMatch(/node 500 does not exist/);
  });

  it('skips out-of-range expression binds and bad expressions', async () => {
    const p = 'extensions.VRMC_vrm.expressions';
    const model = await loadGltf(edit(buildBuiltinGlb('vrm-avatar'), (j) => {
      const e = j.extensions.VRMC_vrm.expressions;
      e.preset.aa.morphTargetBinds[0].index = 99;
      e.preset.ih.morphTargetBinds[0].node = 1; // a joint: no mesh
      e.preset.angry.materialColorBinds[0].material = 50;
      e.preset.angry.materialColorBinds[1].type = 'sparkle';
      e.preset.oh.morphTargetBinds[0].weight = 2;
      e.preset.grin = {};
      e.custom.happy = {};
      e.preset.sad = 'sad';
    }));
    expect(warningAt(model, `${p}.preset.aa.morphTargetBinds[0].index`)).toMatch(/index 99 is out of range \(meshes\[0\]'s morph targets has 9\); skipped/);
    expect(warningAt(model, `${p}.preset.ih.morphTargetBinds[0].index`)).toMatch(/no mesh/);
    expect(warningAt(model, `${p}.preset.angry.materialColorBinds[0].material`)).toMatch(/out of range/);
    expect(warningAt(model, `${p}.preset.angry.materialColorBinds[1].type`)).toMatch(/sparkle/);
    expect(warningAt(model, `${p}.preset.oh.morphTargetBinds[0].weight`)).toMatch(/using 1/);
    expect(warningAt(model, `${p}.preset.grin`)).toMatch(/not a VRM 1.0 preset/);
    expect(warningAt(model, `${p}.custom.happy`)).toMatch(/preset name/);
    expect(warningAt(model, `${p}.preset.sad`)).toMatch(/not an object/);
    const aa = model.vrm!.expressions.find((e) => e.name === 'aa')!;
    expect(aa.morphTargetBinds).toEqual([]);
    expect(model.vrm!.expressions.find((e) => e.name === 'happy')!.morphTargetBinds.length).toBeGreaterThan(0);
  });

  it('skips broken VRM 0.x blend shapes and material properties (missing textures)', async () => {
    const p = 'extensions.VRM';
    const model = await loadGltf(edit(buildBuiltinGlb('vrm0-avatar'), (j) => {
      const groups = j.extensions.VRM.blendShapeMaster.blendShapeGroups;
      groups[0].binds[0].mesh = 12;
      groups[1].materialValues = [{ materialName: 'Nobody', propertyName: '_Color', targetValue: [1, 1, 1, 1] }];
      groups[2].materialValues = [{ materialName: 'Skin', propertyName: '_Glossiness', targetValue: [1, 1, 1, 1] }];
      groups.push({ name: 'joy again', presetName: 'joy' });
      j.extensions.VRM.materialProperties[0].textureProperties = { _MainTex: 99 };
      j.extensions.VRM.materialProperties[1].floatProperties._Cutoff = 'half';
    }));
    expect(warningAt(model, `${p}.blendShapeMaster.blendShapeGroups[0].binds[0].mesh`)).toMatch(/out of range/);
    expect(warningAt(model, `${p}.blendShapeMaster.blendShapeGroups[1].materialValues[0].materialName`)).toMatch(/no material is named "Nobody"/);
    expect(warningAt(model, `${p}.blendShapeMaster.blendShapeGroups[2].materialValues[0].propertyName`)).toMatch(/_Glossiness is not a supported/);
    expect(warningAt(model, `${p}.blendShapeMaster.blendShapeGroups[14]`)).toMatch(/already defined/);
    expect(warningAt(model, `${p}.materialProperties[0].textureProperties._MainTex`)).toMatch(/out of range \(textures has 0\); skipped/);
    expect(warningAt(model, `${p}.materialProperties[1].floatProperties._Cutoff`)).toMatch(/finite number/);
    expect(model.vrm!.materialProperties![0]!.textureProperties).toEqual({});
  });

  it('drops constraints that depend on each other in a cycle, and one sourcing itself', async () => {
    const model = await loadGltf(buildConstraintFixture([
      { node: 3, rotation: { source: 4 } },
      { node: 4, rotation: { source: 3 } },
      { node: 5, roll: { source: 5, rollAxis: 'X' } },
      { node: 6, aim: { source: 2, aimAxis: 'Sideways' } },
    ]));
    expect(warningAt(model, 'nodes[3].extensions.VRMC_node_constraint')).toMatch(/cycle/);
    expect(warningAt(model, 'nodes[4].extensions.VRMC_node_constraint')).toMatch(/cycle/);
    expect(warningAt(model, 'nodes[5].extensions.VRMC_node_constraint.constraint.roll.source')).toMatch(/itself/);
    expect(warningAt(model, 'nodes[6].extensions.VRMC_node_constraint.constraint.aim.aimAxis')).toMatch(/Sideways.*PositiveX/);
    expect(model.vrm!.constraints.map((c) => c.node)).toEqual([6]);
  });

  it('ignores an extension that is not an object', async () => {
    const model = await loadGltf(edit(springs(), (j) => { j.extensions.VRMC_springBone = 5; }));
    expect(warningAt(model, path)).toMatch(/not an object/);
    expect(model.vrm).toBeUndefined();
  });

  it('warns once when spring joints depend on each other through their colliders', async () => {
    const model = await loadGltf(edit(springs(), (j) => {
      const ext = j.extensions.VRMC_springBone;
      // A collider on each chain's second joint, each chain colliding with the other's.
      ext.colliders.push({ node: 4, shape: { sphere: { radius: 0.01 } } }, { node: 9, shape: { sphere: { radius: 0.01 } } });
      ext.colliderGroups.push({ colliders: [3] }, { colliders: [4] });
      ext.springs[0].colliderGroups = [2];
      ext.springs[1].colliderGroups = [1];
    }));
    expect(warningAt(model, `${path}.springs[0]`)).toMatch(/cycle/);
    expect(model.vrm!.springBones!.order).toHaveLength(model.vrm!.springBones!.jointCount);
  });
});
