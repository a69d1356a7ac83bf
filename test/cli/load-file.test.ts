import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { GltfError } from '../../src/gltf/errors.ts';
import { assetJson } from '../support/assets.ts';

/**
 * The CLI reads external files only from the model's own folder. Layout:
 *   root/secret.bin           (a file the model must not reach)
 *   root/model/inside.bin     (SimpleSkin's first buffer)
 *   root/model/link.bin  →    ../secret.bin
 *   root/model/m.gltf         (written per test, buffers[0].uri under test)
 */
let root: string;
let model: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'load-file-'));
  model = join(root, 'model');
  mkdirSync(join(model, 'sub'), { recursive: true });
  const skin = assetJson('SimpleSkin');
  const first = Buffer.from(skin.buffers[0].uri.split(',')[1], 'base64');
  writeFileSync(join(root, 'secret.bin'), first);
  writeFileSync(join(model, 'inside.bin'), first);
  writeFileSync(join(model, 'sub', 'inside.bin'), first);
  symlinkSync(join(root, 'secret.bin'), join(model, 'link.bin'));
});

/** SimpleSkin with its first buffer replaced by an external `uri`, saved as root/model/m.gltf. */
function modelWith(uri: string): string {
  const json = assetJson('SimpleSkin');
  json.buffers[0].uri = uri;
  const path = join(model, 'm.gltf');
  writeFileSync(path, JSON.stringify(json));
  return path;
}

async function refused(uri: string, problem: RegExp): Promise<void> {
  const error = await loadGltfFile(modelWith(uri)).then(() => undefined, (e: unknown) => e);
  expect(error, `${uri} should be refused`).toBeInstanceOf(GltfError);
  expect((error as GltfError).path).toBe('buffers[0].uri');
  expect((error as GltfError).problem).toMatch(problem);
}

describe('loadGltfFile refuses URIs that leave the model folder', () => {
  it('../ paths', () => refused('../secret.bin', /outside the model's folder/));
  it('deeper ../ paths to system files', () => refused('../../../../../../etc/passwd', /outside the model's folder/));
  it('percent-encoded ../ (..%2F)', () => refused('..%2Fsecret.bin', /outside the model's folder/));
  it('percent-encoded dots and backslashes', () => refused('%2e%2e%5csecret.bin', /outside the model's folder/));
  it('backslash separators', () => refused('..\\secret.bin', /outside the model's folder/));
  it('a path that climbs out after going in', () => refused('sub/../../secret.bin', /outside the model's folder/));
  it('absolute paths', () => refused('/etc/passwd', /not a relative path/));
  it('absolute paths written with backslashes or percent-encoding', async () => {
    await refused('\\etc\\passwd', /not a relative path/);
    await refused('%2Fetc%2Fpasswd', /not a relative path/);
  });
  it('file: and other schemes', async () => {
    await refused('file:///etc/passwd', /not a relative path/);
    await refused('https://example.com/x.bin', /not a relative path/);
    await refused('C:\\Windows\\win.ini', /not a relative path/);
  });
  it('the folder itself', () => refused('.', /outside the model's folder/));
  it('a NUL byte', () => refused('inside.bin%00.png', /NUL/));
  it('a symlink pointing out of the folder', () => refused('link.bin', /link to a file outside/));
  it('a missing file says so', () => refused('missing.bin', /no such file beside the model/));
  it('bad percent-encoding', () => refused('%zz.bin', /bad percent-encoding/));
});

describe('loadGltfFile reads files beside the model', () => {
  it('plain, nested, percent-encoded and ./ relative paths', async () => {
    for (const uri of ['inside.bin', 'sub/inside.bin', 'sub%2Finside.bin', './sub/../inside.bin', 'sub\\inside.bin']) {
      const loaded = await loadGltfFile(modelWith(uri));
      expect(loaded.meshes[0].primitives[0].vertexCount, uri).toBe(10);
    }
  });
});
