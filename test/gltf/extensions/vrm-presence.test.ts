/**
 * gltf/extensions/vrm-presence.ts: which files make the loader import the VRM readers. Every
 * file the readers would find something in (or report something about) must say yes, whether or
 * not its `extensionsUsed` lists the extension; a plain glTF says no.
 */
import { describe, expect, it } from 'vitest';
import { hasVrmParts } from '../../../src/gltf/extensions/vrm-presence.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';

const plain = (extra: JsonObject = {}): JsonObject => ({ asset: { version: '2.0' }, extensionsUsed: ['KHR_materials_unlit'], ...extra });

describe('hasVrmParts', () => {
  it('is false for a plain glTF, with or without other extensions', () => {
    expect(hasVrmParts(plain(), [])).toBe(false);
    expect(hasVrmParts(plain({ extensions: { KHR_materials_variants: { variants: [] } } }), [{ extensions: { EXT_mesh_gpu_instancing: {} } }, 3, null])).toBe(false);
    // A node's extensions that are not an object: the constraint reader skips the node too.
    expect(hasVrmParts(plain(), [{ extensions: 'x' }])).toBe(false);
  });

  it('is true for each root VRM extension, listed in extensionsUsed or not', () => {
    for (const name of ['VRMC_vrm', 'VRM', 'VRMC_springBone', 'VRMC_vrm_animation']) {
      expect(hasVrmParts(plain({ extensions: { [name]: {} } }), []), name).toBe(true);
      // Present but broken: the readers warn about it, naming its path.
      expect(hasVrmParts(plain({ extensions: { [name]: 7 } }), []), `${name}: 7`).toBe(true);
    }
  });

  it('is true for a node constraint in a plain glTF', () => {
    expect(hasVrmParts(plain(), [{}, { extensions: { VRMC_node_constraint: { constraint: {} } } }])).toBe(true);
  });

  it('is true when the root extensions are not an object, which the readers report', () => {
    expect(hasVrmParts(plain({ extensions: [] }), [])).toBe(true);
    expect(hasVrmParts(plain({ extensions: 'VRM' }), [])).toBe(true);
  });
});
