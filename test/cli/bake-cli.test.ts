import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { bakeUsage, commandName, parseBakeArgs } from '../../src/cli/bake.ts';
import { ourLines, runBake, runBuiltBake as bake } from '../support/bake-cli.ts';
import { assetPath } from '../support/assets.ts';
import { compressFile } from '../support/compressed.ts';
import { expectEach } from '../support/expect-each.ts';

// The tests below run the built command (runBuiltBake): bin.ts is the one script behind both.
describe('bake command line: `npm run bake` (the sources) and the built command are the same command', () => {
  it.each([
    [['--builtin', 'character', '--time', '0.25']],
    [['does-not-exist.glb']],
  ])('%j: the same exit code, stdout and stderr lines', async (args) => {
    const [sources, built] = await Promise.all([runBake(args), bake(args)]);
    expect(sources.code).toBe(built.code);
    expect(sources.stdout).toBe(built.stdout);
    expect(ourLines(sources.stderr)).toEqual(ourLines(built.stderr));
    expect(sources.stdout + sources.stderr).not.toBe('');
  });
});

describe('bake command line: usage names the command as it was run', () => {
  it('--help: `skinned-mesh-bake` from the built bin, `bake` from `npm run bake`; nothing else differs, exit 0', async () => {
    const [sources, built] = await Promise.all([runBake(['--help']), bake(['--help'])]);
    expect(built).toEqual({ code: 0, stdout: bakeUsage('skinned-mesh-bake') + '\n', stderr: '' });
    expect(sources.code).toBe(0);
    expect(sources.stdout).toBe(bakeUsage('bake') + '\n');
    expect(built.stdout.replaceAll('skinned-mesh-bake', 'bake')).toBe(sources.stdout);
    expect(built.stdout).toMatch(/^usage: skinned-mesh-bake \(FILE \| --builtin NAME\) .*\n {7}skinned-mesh-bake \(FILE \| --builtin NAME\) --write-centers OUT\.glb\n$/);
  });
  it('no FILE: the error line keeps its `bake: ` prefix, the usage in it names the bin; exit 1', async () => {
    const r = await bake([]);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual([`bake: no FILE given; ${bakeUsage('skinned-mesh-bake').split('\n')[0]}`]);
  });
  it('commandName: the bin or the built file by its name, the TypeScript source (npm run bake) as bake', () => {
    expect(commandName('/app/node_modules/.bin/skinned-mesh-bake')).toBe('skinned-mesh-bake');
    expect(commandName('/app/node_modules/skinned-mesh-webgpu/dist/cli/skinned-mesh-bake.js')).toBe('skinned-mesh-bake');
    expect(commandName('/repo/src/cli/bin.ts')).toBe('bake');
    expect(commandName(undefined)).toBe('bake');
    expect(() => parseBakeArgs(['--help'], 'skinned-mesh-bake')).toThrow(bakeUsage('skinned-mesh-bake'));
    expect(() => parseBakeArgs([])).toThrow(`no FILE given; ${bakeUsage('bake')}`);
  });
});

describe('bake command line: errors', () => {
  it('a missing file: exit 1, one line, no stack', async () => {
    const r = await bake(['does-not-exist.glb']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual([expect.stringMatching(/^bake: .*does-not-exist\.glb: no such file$/)]);
  });
  it('a truncated GLB names the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    writeFileSync(join(dir, 'cut.glb'), readFileSync(assetPath('Fox')).subarray(0, 5000));
    const r = await bake(['cut.glb'], dir);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual([expect.stringMatching(/^bake: glb\.length: header says \d+ bytes but the file has 5000 \(truncated\?\)$/)]);
  });
  it('--verbose adds the stack trace', async () => {
    const r = await bake(['does-not-exist.glb', '--verbose']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr).length).toBeGreaterThan(1);
  });
  it('an unknown animation lists the clips', async () => {
    const r = await bake([assetPath('Fox'), '--animation', 'Dance']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)[0]).toMatch(/0 "Survey", 1 "Walk", 2 "Run"/);
  });
  it('usage mistakes', () => {
    expect(() => parseBakeArgs([])).toThrow(/no FILE given/);
    expect(() => parseBakeArgs(['a.glb', '--time', 'soon'])).toThrow(/--time "soon" is not a number/);
    expect(() => parseBakeArgs(['a.glb', '--time'])).toThrow(/--time needs a value/);
    expect(() => parseBakeArgs(['a.glb', '--out', 'x.txt'])).toThrow(/must end in .json, .glb or .obj/);
    expect(() => parseBakeArgs(['a.glb', '--frobnicate'])).toThrow(/unknown option --frobnicate/);
    expect(() => parseBakeArgs(['a.glb', 'b.glb'])).toThrow(/only one FILE/);
    expect(() => parseBakeArgs(['a.glb', '--builtin', 'character'])).toThrow(/either FILE or --builtin/);
    expect(parseBakeArgs(['a.glb', '--time', '-0.5', '--animation', '2'])).toMatchObject({ file: 'a.glb', time: -0.5, animation: '2' });
  });
  it('an unknown built-in lists the built-ins', async () => {
    const r = await bake(['--builtin', 'dragon']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)[0]).toMatch(/no built-in model "dragon"; choose one of: .*character/);
  });
});

describe('bake command line: outputs', () => {
  it('--out x.json (relative to where it is run) holds the same numbers as bakeModel', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    const r = await bake([assetPath('Fox'), '--animation', 'Run', '--time', '0.4', '--out', 'fox.json'], dir);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'fox.json'), 'utf8'));
    expect(json).toMatchObject({ asset: 'Fox.glb', animation: { index: 2, name: 'Run' }, time: 0.4 });
    const expected = bakeModel(await loadGltfFile(assetPath('Fox')), { animation: 'Run', time: 0.4 });
    const got = json.primitives[0].POSITION as number[];
    expect(got.length).toBe(expected.primitives[0].positions.length);
    const want = expected.primitives[0].positions;
    expectEach(got.length, "POSITION is bakeModel's within 1e-6", (i) => (Math.abs(got[i] - want[i]) < 1e-6 ? undefined : `${got[i]} vs ${want[i]}`));
  });

  it('a Draco-compressed file bakes with no extra flags (the decoder loads by itself)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    writeFileSync(join(dir, 'fox-draco.glb'), await compressFile(assetPath('Fox'), 'draco'));
    const r = await bake(['fox-draco.glb', '--animation', 'Run', '--time', '0.4', '--out', 'fox.json'], dir);
    // No error; stderr holds only the model's own warnings (the Fox has no NORMAL), as for the original.
    const model = await loadGltfFile(join(dir, 'fox-draco.glb'));
    expect(ourLines(r.stderr)).toEqual(model.warnings.map((w) => `bake: warning: ${w.path}: ${w.message}`));
    expect(model.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/no NORMAL/)]);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'fox.json'), 'utf8'));
    const expected = bakeModel(model, { animation: 'Run', time: 0.4 });
    const got = json.primitives[0].POSITION as number[];
    // 434 welded vertices, not the original's 1728: these are the decoded ones.
    expect(got.length).toBe(expected.primitives[0].positions.length);
    expect(got.length).toBe(434 * 3);
    const want = expected.primitives[0].positions;
    expectEach(got.length, "POSITION is bakeModel's within 1e-6", (i) => (Math.abs(got[i] - want[i]) < 1e-6 ? undefined : `${got[i]} vs ${want[i]}`));
  });

  it('--out x.glb writes a static posed scene that loads back to the same world-space vertices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    const r = await bake([assetPath('CesiumMan'), '--time', '1.1', '--out', 'posed.glb'], dir);
    expect(r.code).toBe(0);
    const posed = await loadGltf(readFileSync(join(dir, 'posed.glb')));
    expect(posed.skins).toHaveLength(0);
    expect(posed.animations).toHaveLength(0);
    expect(posed.images.length).toBe(1); // the embedded JPEG is carried over
    expect(posed.materials[0].baseColorTexture).toBeDefined();
    const expected = bakeModel(await loadGltfFile(assetPath('CesiumMan')), { time: 1.1 }).primitives[0].positions;
    const got = posed.meshes[0].primitives[0].positions;
    expect(got.length).toBe(expected.length);
    expectEach(got.length, "positions are bakeModel's within 1e-5", (i) => (Math.abs(got[i] - expected[i]) < 1e-5 ? undefined : `${got[i]} vs ${expected[i]}`));
  });

  it('--out x.obj writes every vertex and triangle of the posed scene', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    const r = await bake([assetPath('SimpleSkin'), '--time', '1', '--out', 'skin.obj'], dir);
    expect(r.code).toBe(0);
    const lines = readFileSync(join(dir, 'skin.obj'), 'utf8').split('\n');
    const vertices = lines.filter((l) => l.startsWith('v ')).map((l) => l.split(' ').slice(1).map(Number));
    expect(vertices).toHaveLength(10);
    expect(vertices[8][0]).toBeCloseTo(-1, 2);
    expect(vertices[8][1]).toBeCloseTo(0.5, 2);
    expect(lines.filter((l) => l.startsWith('f '))).toHaveLength(8);
  });

  it('without --out prints a short summary of the built-in model', async () => {
    const r = await bake(['--builtin', 'character']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^builtin:character: animation 0 ".+" at t=0s; 1 skin\(s\)/);
    expect(r.stdout).toMatch(/vertices, world bounds/);
  });
});

describe('bake command line: --blend', () => {
  it('usage mistakes: --weight or --blend-time without --blend, --blend without --weight, weights outside [0, 1]', () => {
    expect(() => parseBakeArgs(['a.glb', '--weight', '0.5'])).toThrow(/--weight needs --blend INDEX\|NAME/);
    expect(() => parseBakeArgs(['a.glb', '--blend-time', '1'])).toThrow(/--blend-time needs --blend/);
    expect(() => parseBakeArgs(['a.glb', '--blend', 'Run'])).toThrow(/--blend needs --weight W/);
    for (const w of ['1.5', '-0.1', 'NaN', 'Infinity', 'half', '']) {
      expect(() => parseBakeArgs(['a.glb', '--blend', 'Run', '--weight', w])).toThrow(/--weight ".*" must be a number in \[0, 1\]/);
    }
    expect(() => parseBakeArgs(['a.glb', '--blend', 'Run', '--weight', '0.5', '--blend-time', 'later'])).toThrow(/--blend-time "later" is not a number/);
    expect(() => parseBakeArgs(['a.glb', '--blend'])).toThrow(/--blend needs a value/);
    expect(parseBakeArgs(['a.glb', '--blend', '2', '--weight', '0.25', '--blend-time', '0.7'])).toMatchObject({ blend: '2', weight: 0.25, blendTime: 0.7 });
  });

  it('an unknown blend clip lists the clips', async () => {
    const r = await bake([assetPath('Fox'), '--blend', 'Dance', '--weight', '0.5']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual([expect.stringMatching(/^bake: animation "Dance" not found; the model has 3: 0 "Survey", 1 "Walk", 2 "Run"$/)]);
  });

  it('--weight 0 writes exactly the unblended bake, --weight 1 exactly the blend clip\'s, 0.5 the blend of both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-'));
    const fox = assetPath('Fox');
    const runs = await Promise.all([
      bake([fox, '--animation', 'Walk', '--time', '0.3', '--out', 'walk.json'], dir),
      bake([fox, '--animation', 'Walk', '--time', '0.3', '--blend', 'Run', '--weight', '0', '--blend-time', '0.6', '--out', 'w0.json'], dir),
      bake([fox, '--animation', 'Run', '--time', '0.6', '--out', 'run.json'], dir),
      bake([fox, '--animation', 'Walk', '--time', '0.3', '--blend', 'Run', '--weight', '1', '--blend-time', '0.6', '--out', 'w1.json'], dir),
      bake([fox, '--animation', 'Walk', '--time', '0.3', '--blend', '2', '--weight', '0.5', '--out', 'half.json'], dir),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    expect(read('w0.json')).toBe(read('walk.json'));
    const w1 = JSON.parse(read('w1.json')), run = JSON.parse(read('run.json'));
    expect(w1).toMatchObject({ animation: { index: 1, name: 'Walk' }, time: 0.3 }); // format unchanged: the main clip's header
    expect(w1.primitives[0].POSITION).toEqual(run.primitives[0].POSITION);
    const half = JSON.parse(read('half.json')).primitives[0].POSITION as number[];
    const expected = bakeModel(await loadGltfFile(fox), { animation: 'Walk', time: 0.3, blend: { animation: 2, weight: 0.5 } }).primitives[0].positions;
    expect(half.length).toBe(expected.length);
    expectEach(half.length, "POSITION is the blend's within 1e-6 relative", (i) => (Math.abs(half[i] - expected[i]) < 1e-6 * (1 + Math.abs(expected[i])) ? undefined : `${half[i]} vs ${expected[i]}`));
  });
});
