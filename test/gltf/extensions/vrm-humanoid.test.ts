/**
 * A VRM avatar's humanoid map, read by the loader into `Model.humanoid` (VRM 1.0
 * `VRMC_vrm.humanoid.humanBones`, VRM 0.x `VRM.humanoid.humanBones`): the shared VRM files,
 * VRM 0.x's thumb renaming, bones we do not map, broken entries (skipped with a warning naming
 * their JSON path), and a
 * VRM avatar with no clips used as a retargeting target with nothing but its Model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { HUMANOID_BONES } from '../../../src/gltf/humanoid.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { baseJoints, buildRig, clipKeys } from '../../anim/retarget/fixtures.ts';
import { ASSETS_DIR } from '../../support/assets.ts';

const VRM_FILES = ['VRMC_materials_mtoon_UV_Animation_Test.vrm', 'VRMC_vrm_expressions_isBinary_Overridden.vrm', 'VRMC_vrm_expressions_isBinary_Overrides.vrm'];

/** The base rig with a VRM extension: node i + 1 is joint i (node 0 the Armature). */
function rigWith(extensions: Record<string, unknown>, withClip = false): Uint8Array {
  const joints = baseJoints();
  return buildRig(joints, { ...(withClip ? { keys: clipKeys(joints) } : {}), extensions });
}

describe('Model.humanoid (VRMC_vrm, VRM 0.x)', () => {
  for (const file of VRM_FILES) {
    it(`${file}: every humanoid bone the file names, at the node it names`, async () => {
      const bytes = new Uint8Array(readFileSync(join(ASSETS_DIR, 'vrm', file)));
      const model = await loadGltf(bytes, { name: file });
      const bones = (parseGlb(bytes).json as { extensions: { VRMC_vrm: { humanoid: { humanBones: Record<string, { node: number }> } } } })
        .extensions.VRMC_vrm.humanoid.humanBones;
      const expected = Object.fromEntries(Object.entries(bones).filter(([bone]) => (HUMANOID_BONES as readonly string[]).includes(bone)).map(([bone, { node }]) => [bone, node]));
      expect(Object.keys(expected).length).toBeGreaterThan(10);
      expect(model.humanoid).toEqual(expected);
      expect(model.humanoid?.hips).toBeGreaterThanOrEqual(0);
    });
  }

  it('is absent for a file without a VRM extension', async () => {
    expect((await loadGltf(rigWith({}))).humanoid).toBeUndefined();
  });

  it("reads VRM 0.x's list, renaming its thumbs to VRM 1.0's, and skips bones it does not map", async () => {
    const humanBones = [
      { bone: 'hips', node: 1 }, { bone: 'leftThumbProximal', node: 2 }, { bone: 'leftThumbIntermediate', node: 3 }, { bone: 'tail', node: 4 },
    ];
    const model = await loadGltf(rigWith({ VRM: { humanoid: { humanBones } } }));
    expect(model.humanoid).toEqual({ hips: 1, leftThumbMetacarpal: 2, leftThumbProximal: 3 });
  });

  it('prefers VRM 1.0 when a file has both', async () => {
    const model = await loadGltf(rigWith({
      VRMC_vrm: { specVersion: '1.0', humanoid: { humanBones: { hips: { node: 2 } } } },
      VRM: { humanoid: { humanBones: [{ bone: 'hips', node: 1 }] } },
    }));
    expect(model.humanoid).toEqual({ hips: 2 });
  });

  it('skips a broken entry or map with a warning naming the JSON path, and still loads', async () => {
    const cases: Array<[Record<string, unknown>, RegExp, Record<string, number> | undefined]> = [
      [{ VRMC_vrm: { humanoid: { humanBones: { hips: { node: 99 }, spine: { node: 2 } } } } }, /^extensions\.VRMC_vrm\.humanoid\.humanBones\.hips\.node$/, { spine: 2 }],
      [{ VRMC_vrm: { humanoid: { humanBones: { hips: { node: -1 } } } } }, /^extensions\.VRMC_vrm\.humanoid\.humanBones\.hips\.node$/, {}],
      [{ VRMC_vrm: { humanoid: { humanBones: { hips: 3 } } } }, /^extensions\.VRMC_vrm\.humanoid\.humanBones\.hips$/, {}],
      [{ VRMC_vrm: { humanoid: {} } }, /^extensions\.VRMC_vrm\.humanoid\.humanBones$/, undefined],
      [{ VRMC_vrm: {} }, /^extensions\.VRMC_vrm\.humanoid$/, undefined],
      [{ VRM: { humanoid: { humanBones: [{ bone: 5, node: 1 }, { bone: 'hips', node: 1 }] } } }, /^extensions\.VRM\.humanoid\.humanBones\[0\]$/, { hips: 1 }],
      [{ VRM: { humanoid: { humanBones: ['hips'] } } }, /^extensions\.VRM\.humanoid\.humanBones\[0\]$/, {}],
      [{ VRM: { humanoid: { humanBones: [{ bone: 'hips', node: 1.5 }] } } }, /^extensions\.VRM\.humanoid\.humanBones\[0\]\.node$/, {}],
    ];
    for (const [extensions, path, humanoid] of cases) {
      const model = await loadGltf(rigWith(extensions));
      expect(model.warnings.some((w) => path.test(w.path) && /skipped/.test(w.message)), JSON.stringify(model.warnings)).toBe(true);
      expect(model.humanoid, JSON.stringify(extensions)).toEqual(humanoid);
    }
  });

  it('maps a VRM target that has no clips by its humanoid map alone (the Model, nothing else)', async () => {
    const joints = baseJoints();
    const mixamo = await loadGltf(buildRig(joints, { keys: clipKeys(joints) }), { name: 'mixamo' });
    // Joint names that match nothing: only the humanoid map can pair them.
    const odd = joints.map((j, i) => ({ ...j, name: `bone${String(i).padStart(3, '0')}` }));
    const hips = joints.findIndex((j) => j.name === 'Hips') + 1, leftArm = joints.findIndex((j) => j.name === 'LeftArm') + 1;
    const avatar = await loadGltf(buildRig(odd, { extensions: { VRMC_vrm: { humanoid: { humanBones: { hips: { node: hips }, leftUpperArm: { node: leftArm } } } } } }), { name: 'avatar.vrm' });
    expect(avatar.animations).toHaveLength(0);
    const { mapping } = retargetClips(mixamo.animations, mixamo, avatar);
    expect(mapping.pairs.map((p) => `${p.target}←${p.source} ${p.by}`).sort()).toEqual([`bone${String(hips - 1).padStart(3, '0')}←Hips humanoid`, `bone${String(leftArm - 1).padStart(3, '0')}←LeftArm humanoid`]);
  });
});
