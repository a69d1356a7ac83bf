import { describe, expect, it } from 'vitest';
import { hasInstancedNodes } from '../../../src/gltf/extensions/instancing-presence.ts';

/**
 * load.ts imports EXT_mesh_gpu_instancing's reader only for a file with a node it must see
 * (test/gltf/extensions/ext-mesh-gpu-instancing.test.ts checks what it reads, through loadGltf).
 */
describe('hasInstancedNodes', () => {
  it('is true for a node with the extension (listed in extensionsUsed or not) or with extensions that are not an object', () => {
    expect(hasInstancedNodes([{}, { mesh: 0, extensions: { EXT_mesh_gpu_instancing: { attributes: {} } } }])).toBe(true);
    expect(hasInstancedNodes([{ extensions: { EXT_mesh_gpu_instancing: null } }])).toBe(true);
    for (const odd of [[], 'x', 3, null]) expect(hasInstancedNodes([{ extensions: odd }]), JSON.stringify(odd)).toBe(true);
  });

  it('is false for plain nodes, other extensions and odd nodes', () => {
    expect(hasInstancedNodes([])).toBe(false);
    expect(hasInstancedNodes([{}, null, 3, 'node', { extensions: {} }, { extensions: { KHR_lights_punctual: {} } }, { EXT_mesh_gpu_instancing: {} }])).toBe(false);
  });
});
