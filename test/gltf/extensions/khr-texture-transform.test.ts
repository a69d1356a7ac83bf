import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { applyUvTransform, IDENTITY_UV_TRANSFORM, textureTransformJson, uvTransformMatrix } from '../../../src/gltf/extensions/khr-texture-transform.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'KHR_texture_transform';

function closeTo(actual: readonly number[], expected: readonly number[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((v, i) => expect(v, `[${i}] of ${actual}`).toBeCloseTo(expected[i], 12));
}

describe('KHR_texture_transform', () => {
  it('uvTransformMatrix is T·R·S, rotation counter-clockwise in UV space (as the Khronos sample viewer)', () => {
    closeTo(uvTransformMatrix([0, 0], 0, [1, 1]), IDENTITY_UV_TRANSFORM);
    // Offset only.
    closeTo(applyUvTransform(uvTransformMatrix([0.25, -0.5], 0, [1, 1]), 0.5, 0.5, []), [0.75, 0]);
    // Scale only.
    closeTo(applyUvTransform(uvTransformMatrix([0, 0], 0, [2, 3]), 0.5, 0.5, []), [1, 1.5]);
    // A quarter turn takes u onto −v and v onto u: u' = cos·u + sin·v, v' = −sin·u + cos·v.
    closeTo(applyUvTransform(uvTransformMatrix([0, 0], Math.PI / 2, [1, 1]), 1, 0, []), [0, -1]);
    closeTo(applyUvTransform(uvTransformMatrix([0, 0], Math.PI / 2, [1, 1]), 0, 1, []), [1, 0]);
    // Scale first, then rotation, then offset.
    const [u, v] = [0.3, 0.7], r = 0.4, s = [2, 0.5], o = [0.1, 0.2];
    const su = u * s[0], sv = v * s[1];
    const expected = [Math.cos(r) * su + Math.sin(r) * sv + o[0], -Math.sin(r) * su + Math.cos(r) * sv + o[1]];
    closeTo(applyUvTransform(uvTransformMatrix(o, r, s), u, v, []), expected);
    // In place.
    const io = [u, v];
    expect(applyUvTransform(uvTransformMatrix(o, r, s), io[0], io[1], io)).toBe(io);
    closeTo(io, expected);
  });

  it('is read on every texture slot, with its texCoord override; slots without it keep no transform', async () => {
    const transform = { offset: [0.5, 0.25], rotation: 0.3, scale: [2, 4], texCoord: 1 };
    const info = { index: 0, extensions: { [EXT]: transform } };
    const model = await loadMaterialFile({
      images: ['image/png'], textures: [{ source: 0 }], extensionsUsed: [EXT],
      materials: [
        {
          pbrMetallicRoughness: { baseColorTexture: info, metallicRoughnessTexture: info },
          normalTexture: { ...info, scale: 0.5 }, occlusionTexture: { ...info, strength: 0.5 }, emissiveTexture: info,
        },
        { pbrMetallicRoughness: { baseColorTexture: { index: 0, texCoord: 1 } } },
      ],
    });
    const m = model.materials[0];
    const expected = { offset: [0.5, 0.25], rotation: 0.3, scale: [2, 4] };
    for (const slot of [m.baseColorTexture, m.metallicRoughnessTexture, m.normalTexture, m.occlusionTexture, m.emissiveTexture]) {
      expect(slot?.transform).toEqual(expected);
      expect(slot?.texCoord).toBe(1);
    }
    expect(m.normalTexture?.scale).toBe(0.5);
    expect(model.materials[1].baseColorTexture).toEqual({ index: 0, texCoord: 1, scale: 1 });
    expect(model.warnings).toEqual([]);
  });

  it('defaults: an empty extension object is the identity and keeps the textureInfo texCoord', async () => {
    const model = await loadMaterialFile({
      images: ['image/png'], textures: [{ source: 0 }], extensionsUsed: [EXT], extensionsRequired: [EXT],
      materials: [{ emissiveTexture: { index: 0, texCoord: 1, extensions: { [EXT]: {} } } }],
    });
    expect(model.materials[0].emissiveTexture).toEqual({ index: 0, texCoord: 1, scale: 1, transform: { offset: [0, 0], rotation: 0, scale: [1, 1] } });
  });

  it.each([
    [{ offset: [0] }, 'offset'],
    [{ offset: [0, 'a'] }, 'offset'],
    [{ rotation: 'x' }, 'rotation'],
    [{ rotation: 1e39 }, 'rotation'],
    [{ scale: [1, 1e39] }, 'scale'],
    [{ texCoord: -1 }, 'texCoord'],
    [{ texCoord: 2 }, 'texCoord'],
    [{ texCoord: 0.5 }, 'texCoord'],
  ])('refuses %j, naming the JSON path', async (ext, key) => {
    const file = {
      images: ['image/png'], textures: [{ source: 0 }], extensionsUsed: [EXT],
      materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0, extensions: { [EXT]: ext } } } }],
    };
    const error = await loadMaterialFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toMatch(new RegExp(`^materials\\[0\\]\\.pbrMetallicRoughness\\.baseColorTexture\\.extensions\\.${EXT}(\\.${key}|$)`));
  });

  it('textureTransformJson writes the parameters back, defaults left out', () => {
    expect(textureTransformJson({ offset: [0, 0], rotation: 0, scale: [1, 1] })).toEqual({});
    expect(textureTransformJson({ offset: [0.5, 0], rotation: 1, scale: [1, 2] })).toEqual({ offset: [0.5, 0], rotation: 1, scale: [1, 2] });
  });

  it('a required KHR_texture_transform is accepted', async () => {
    const model = await loadMaterialFile({ materials: [{}], extensionsUsed: [EXT], extensionsRequired: [EXT] });
    expect(model.materials).toHaveLength(1);
  });
});
