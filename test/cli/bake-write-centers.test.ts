import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../src/gltf/load.ts';
import { assetPath } from '../support/assets.ts';
import { ourLines, runBuiltBake } from '../support/bake-cli.ts';

describe('bake --write-centers OUT.glb', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bake-centers-'));

  it('writes a GLB copy of a shared asset whose skinned primitive carries _CENTER_OF_ROTATION; nothing on stdout', async () => {
    const out = join(dir, 'cesium.glb');
    const run = await runBuiltBake([assetPath('CesiumMan'), '--write-centers', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(ourLines(run.stderr)).toEqual([]);
    const model = await loadGltf(readFileSync(out), { name: 'cesium' });
    expect(model.meshes[0].primitives[0].centersOfRotation).toHaveLength(3273 * 3);
  }, 60_000);

  it('works on a built-in model, relative to where the command was typed', async () => {
    const run = await runBuiltBake(['--builtin', 'twist-cylinder', '--write-centers', 'twist.glb'], dir);
    expect(run.code).toBe(0);
    const model = await loadGltf(readFileSync(join(dir, 'twist.glb')), { name: 'twist' });
    expect(model.meshes[0].primitives[0].centersOfRotation).toBeDefined();
  }, 60_000);

  it.each([
    [['--write-centers', 'x.gltf'], /--write-centers "x.gltf" must end in .glb/],
    [['--write-centers', 'x.glb', '--out', 'y.json'], /--write-centers writes a copy of the file and poses nothing; it takes no --out/],
    [['--write-centers', 'x.glb', '--skinning', 'linear'], /it takes no --skinning/],
    [['--write-centers', 'x.glb', '--time', '1'], /it takes no --time/],
  ])('%j: exit 1 with one line saying why', async (args, message) => {
    const run = await runBuiltBake(['--builtin', 'limb', ...args], dir);
    expect(run.code).toBe(1);
    expect(ourLines(run.stderr)).toEqual([expect.stringMatching(message)]);
  }, 60_000);
});
