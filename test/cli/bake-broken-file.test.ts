import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ourLines, runBuiltBake } from '../support/bake-cli.ts';
import { glbOf } from '../support/fuzz.ts';
import { assetJson, assetPath } from '../support/assets.ts';


/** The bake command (test/support/bake-cli.ts runBuiltBake) on FILE from the file's folder: exit code and our stderr lines. */
async function bakeFile(name: string, bytes: Uint8Array): Promise<{ code: number; lines: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'bake-broken-'));
  writeFileSync(join(dir, name), bytes);
  const r = await runBuiltBake([name], dir);
  return { code: r.code, lines: ourLines(r.stderr) };
}

const gltf = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

describe('bake on a broken file: exit 1 and one line naming the JSON path and the problem', () => {
  it('a structural error (joint index past the skin)', async () => {
    const json = assetJson('SimpleSkin');
    json.skins[0].joints = [1];
    const r = await bakeFile('broken.gltf', gltf(json));
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(['bake: meshes[0].primitives[0].attributes.JOINTS_0: joint index 1 is out of range for skins[0] (used by nodes[0]) with 1 joints']);
  });

  it('a file three.js draws (joints without a common root) bakes, its warning on stderr', async () => {
    const json = assetJson('SimpleSkin');
    json.nodes.push({});
    json.scenes[0].nodes.push(3);
    json.skins[0].joints = [1, 3];
    const r = await bakeFile('roots.gltf', gltf(json));
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([
      'bake: warning: meshes[0].primitives: 1 of 1 primitive(s) have no NORMAL; flat normals are derived per face when drawn',
      expect.stringMatching(/^bake: warning: skins\[0\]\.joints\[1\]: nodes\[3\] has no common root with nodes\[1\]/),
    ]);
  });

  it('NaN in the binary data of a GLB (inverse bind matrices)', async () => {
    const bytes = new Uint8Array(readFileSync(assetPath('RiggedSimple')));
    const dv = new DataView(bytes.buffer);
    const jsonLength = dv.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
    const bin = bytes.slice(28 + jsonLength, 28 + jsonLength + dv.getUint32(20 + jsonLength, true));
    const ibm = json.accessors[json.skins[0].inverseBindMatrices];
    const at = (json.bufferViews[ibm.bufferView].byteOffset ?? 0) + (ibm.byteOffset ?? 0);
    new DataView(bin.buffer).setFloat32(at + 5 * 4, NaN, true);
    const r = await bakeFile('nan.glb', glbOf(new TextEncoder().encode(JSON.stringify(json)), bin));
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([`bake: skins[0].inverseBindMatrices: matrix 0 has a non-finite element (NaN)`]);
  });

  it('a hostile count (no giant allocation, no stack trace)', async () => {
    const json = assetJson('SimpleSkin');
    delete json.accessors[1].bufferView;
    json.accessors[1].count = 5_000_000;
    const r = await bakeFile('huge.gltf', gltf(json));
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([expect.stringMatching(/^bake: accessors\[1\]\.count: loading needs more than [\d.]+ MiB of memory/)]);
  });

  it('bytes that are not glTF at all: the line names the file and says what the bytes are', async () => {
    const cases: [string, Uint8Array, string][] = [
      ['noise.glb', new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0]), 'glb: file is 8 bytes, shorter than the 12-byte GLB header (a truncated GLB?)'],
      ['page.glb', new TextEncoder().encode('<html><body>Not Found</body></html>'),
        'not a glTF file: neither a GLB (no "glTF" magic) nor glTF JSON (no "{" first); it begins "<html><body>Not Found</b"… (markup: an HTML page, such as a server\'s error page?)'],
      ['texture.gltf', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
        'not a glTF file: neither a GLB (no "glTF" magic) nor glTF JSON (no "{" first); it begins with the bytes 89 50 4E 47 0D 0A 1A 0A (a PNG image)'],
    ];
    for (const [name, bytes, problem] of cases) {
      const dir = mkdtempSync(join(tmpdir(), 'bake-broken-'));
      writeFileSync(join(dir, name), bytes);
      const r = await runBuiltBake([name], dir);
      expect(r.code, name).toBe(1);
      // The file as the command resolved it (as "no such file" names it), then the loader's words.
      expect(ourLines(r.stderr), name).toEqual([`bake: ${join(dir, name)}: ${problem}`]);
    }
  });

  it('--write-centers and --animations-from name the file that is not glTF too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-broken-'));
    writeFileSync(join(dir, 'empty.glb'), new Uint8Array(0));
    const centers = await runBuiltBake(['empty.glb', '--write-centers', 'out.glb'], dir);
    expect(centers.code).toBe(1);
    expect(ourLines(centers.stderr)).toEqual([`bake: ${join(dir, 'empty.glb')}: the file is empty (0 bytes), neither a GLB nor glTF JSON`]);
    const from = await runBuiltBake([assetPath('RiggedSimple'), '--animations-from', 'empty.glb', '--animation', '0'], dir);
    expect(from.code).toBe(1);
    expect(ourLines(from.stderr)).toEqual([`bake: ${join(dir, 'empty.glb')}: the file is empty (0 bytes), neither a GLB nor glTF JSON`]);
  });
});
