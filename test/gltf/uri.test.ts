import { describe, expect, it } from 'vitest';
import { GltfError } from '../../src/gltf/errors.ts';
import { resolveGltfUri } from '../../src/gltf/uri.ts';

const BASE = 'https://models.example/chars/fox/Fox.gltf';

function refused(uri: string, problem: RegExp, base: string = BASE): void {
  let error: unknown;
  try {
    resolveGltfUri(base, uri);
  } catch (e) {
    error = e;
  }
  expect(error, `${uri} should be refused`).toBeInstanceOf(GltfError);
  expect((error as GltfError).problem).toMatch(problem);
}

describe('resolveGltfUri refuses what a page must not fetch', () => {
  it('javascript:, whatever its spelling', () => {
    refused('javascript:alert(1)', /javascript: URIs are not fetched/);
    refused('JaVaScRiPt:alert(1)', /javascript: URIs are not fetched/);
    refused(' javascript:alert(1)', /javascript: URIs are not fetched/);
    refused('java\tscript:alert(1)', /javascript: URIs are not fetched/);
  });
  it('other non-fetchable schemes', () => {
    refused('about:blank', /about: URIs are not fetched/);
    refused('vbscript:x', /vbscript: URIs are not fetched/);
    refused('ftp://models.example/fox.bin', /ftp: URIs are not fetched/);
    refused('chrome://settings', /chrome: URIs are not fetched/);
  });
  it('file: from a web page, and file: outside a local model\'s folder', () => {
    refused('file:///etc/passwd', /local file outside/);
    refused('../../etc/passwd', /local file outside/, 'file:///home/me/models/fox.gltf');
    refused('%2e%2e/secret.bin', /local file outside/, 'file:///home/me/models/fox.gltf');
    refused('/etc/passwd', /local file outside/, 'file:///home/me/models/fox.gltf');
  });
  it('other origins, including protocol-relative and backslash forms', () => {
    refused('https://evil.example/x.bin', /another origin/);
    refused('//evil.example/x.bin', /another origin/);
    refused('\\\\evil.example\\x.bin', /another origin/);
    refused('https://models.example:8443/x.bin', /another origin/);
  });
  it('http under an https model, and credentials', () => {
    refused('http://models.example/x.bin', /plain http under an https model/);
    refused('https://user:pw@models.example/x.bin', /credentials/);
  });
  it('blob: URLs of another origin', () => refused('blob:https://evil.example/0b0e', /blob: URL of another origin/));
  it('a relative URI against a base that cannot have one', () => {
    refused('fox.bin', /does not resolve|not a URI/, 'blob:https://models.example/0b0e');
    refused('fox.bin', /not an absolute URL/, 'chars/fox/Fox.gltf');
  });
});

describe('resolveGltfUri resolves what glTF allows', () => {
  it('relative paths against the model, percent-encoding kept', () => {
    expect(resolveGltfUri(BASE, 'Fox.bin').href).toBe('https://models.example/chars/fox/Fox.bin');
    expect(resolveGltfUri(BASE, 'textures/Fox%20Skin.png').href).toBe('https://models.example/chars/fox/textures/Fox%20Skin.png');
    expect(resolveGltfUri(BASE, '../shared/skin.png').href).toBe('https://models.example/chars/shared/skin.png');
    // %2F is not a separator: the file is named "..%2Fx.bin" in the model's folder.
    expect(resolveGltfUri(BASE, '..%2Fx.bin').href).toBe('https://models.example/chars/fox/..%2Fx.bin');
    // Backslashes are separators in http(s) URLs, and ".." cannot climb above the origin.
    expect(resolveGltfUri(BASE, '..\\..\\..\\..\\x.bin').href).toBe('https://models.example/x.bin');
  });
  it('absolute URLs on the same origin, and other origins when allowed', () => {
    expect(resolveGltfUri(BASE, 'https://models.example/lib/a.bin').href).toBe('https://models.example/lib/a.bin');
    expect(resolveGltfUri(BASE, 'https://cdn.example/a.bin', { crossOrigin: true }).href).toBe('https://cdn.example/a.bin');
    expect(resolveGltfUri('http://localhost:5173/m.gltf', 'm.bin').href).toBe('http://localhost:5173/m.bin');
  });
  it('data: URIs and same-origin blob: URLs', () => {
    expect(resolveGltfUri(BASE, 'data:application/octet-stream;base64,AAAA').protocol).toBe('data:');
    expect(resolveGltfUri(BASE, 'blob:https://models.example/0b0e').href).toBe('blob:https://models.example/0b0e');
  });
  it('file: URIs inside a local model\'s folder', () => {
    expect(resolveGltfUri('file:///home/me/models/fox.gltf', 'tex/a.png').href).toBe('file:///home/me/models/tex/a.png');
  });
  it('takes a URL object as the base', () => {
    expect(resolveGltfUri(new URL(BASE), 'Fox.bin').pathname).toBe('/chars/fox/Fox.bin');
  });
});
