/** `bake --animations-from LIBRARY [--joint-map MAP.json]`: --animation names LIBRARY's clips, retargeted onto the model; the output format is unchanged. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { parseBakeArgs } from '../../src/cli/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { ourLines, runBuiltBake as bake } from '../support/bake-cli.ts';
import { assetPath } from '../support/assets.ts';
import { CESIUM_TO_FIGURE, editGlb, relativeError } from '../anim/retarget/fixtures.ts';

/** A Fox whose b_ joints are renamed and whose clips are gone. */
const renamedFox = (): Uint8Array => editGlb(new Uint8Array(readFileSync(assetPath('Fox'))), (json) => {
  for (const node of json.nodes) if (typeof node.name === 'string' && node.name.startsWith('b_')) node.name = `FoxRig:${node.name.replace(/_/g, '.').toUpperCase()}`;
  delete json.animations;
});

describe('bake --animations-from', () => {
  it('usage: --joint-map needs --animations-from', () => {
    expect(() => parseBakeArgs(['a.glb', '--joint-map', 'm.json'])).toThrow(/--joint-map needs --animations-from/);
    expect(parseBakeArgs(['a.glb', '--animations-from', 'walk.glb', '--animation', 'Walk'])).toMatchObject({ animationsFrom: 'walk.glb', animation: 'Walk' });
  });

  it("bakes the Fox's Run on a renamed Fox copy with no clips as the Fox bakes its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-retarget-'));
    writeFileSync(join(dir, 'copy.glb'), renamedFox());
    const r = await bake(['copy.glb', '--animations-from', assetPath('Fox'), '--animation', 'Run', '--time', '0.4', '--out', 'copy.json'], dir);
    // The Fox's own loader warnings (no NORMAL, unused accessors) stay; retargeting adds none.
    expect(ourLines(r.stderr).filter((l) => l.includes('animations-from'))).toEqual([]);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'copy.json'), 'utf8'));
    expect(json).toMatchObject({ asset: 'copy.glb', animation: { index: 2, name: 'Run' }, time: 0.4 });
    const fox = await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))), { name: 'Fox.glb' });
    const own = bakeModel(fox, { animation: 'Run', time: 0.4 });
    expect(relativeError(json.primitives[0].POSITION, own.primitives[0].positions)).toBeLessThan(1e-5);
  });

  it("bakes CesiumMan's walk on RiggedFigure through --joint-map; without it, an unmapped-joints warning; a bad map is one error line", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-retarget-'));
    writeFileSync(join(dir, 'map.json'), JSON.stringify(CESIUM_TO_FIGURE));
    writeFileSync(join(dir, 'bad.json'), '["torso_joint_1"]');
    const mapped = await bake([assetPath('RiggedFigure'), '--animations-from', assetPath('CesiumMan'), '--joint-map', 'map.json', '--time', '1'], dir);
    expect(ourLines(mapped.stderr)).toEqual([]);
    expect(mapped.stdout).toMatch(/^RiggedFigure\.glb: animation 0 at t=1s; 1 skin\(s\), 1 clip\(s\), 1 skinned primitive\(s\)/);
    const unmapped = await bake([assetPath('RiggedFigure'), '--animations-from', assetPath('CesiumMan'), '--time', '1'], dir);
    expect(unmapped.code).toBe(0);
    // Only the legs and torso_joint_3 match by name: the rest are named, and so are the clip's channels it cannot use.
    expect(ourLines(unmapped.stderr)).toEqual([
      expect.stringMatching(/^bake: warning: animations-from CesiumMan\.glb: clip clips\[0\]: channels on 8 node\(s\) outside the mapped skeleton are ignored: Skeleton_neck_joint_1, /),
      expect.stringMatching(/^bake: warning: animations-from CesiumMan\.glb: 10 joint\(s\) have no source joint and keep their rest pose: torso_joint_1, /),
    ]);
    const bad = await bake([assetPath('RiggedFigure'), '--animations-from', assetPath('CesiumMan'), '--joint-map', 'bad.json'], dir);
    expect(bad.code).toBe(1);
    expect(ourLines(bad.stderr)).toEqual([expect.stringMatching(/^bake: .*bad\.json: must be a JSON object of target joint name → source joint name$/)]);
  });

  it('a library with no joint in common is one clear error line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-retarget-'));
    const r = await bake([assetPath('Fox'), '--animations-from', assetPath('CesiumMan')], dir);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual([expect.stringMatching(/^bake: no joint in common: target joints \(_rootJoint, b_Root_00, .*\) match no source joint \(Skeleton_torso_joint_1, .*\); give a joint map$/)]);
  });
});
