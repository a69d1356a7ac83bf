/**
 * Small files that ask the loader for a lot of work: the cases of test/gltf/limits.test.ts
 * and test/gltf/extensions/khr-animation-pointer.test.ts that are about cost, built here so
 * that `npm run bench -- --hostile-loads` (bench/hostile-loads.ts) times the same bytes the
 * tests count. Each builder takes the size of what it multiplies, so the bench can load a
 * smaller copy as the peer of the big one.
 */
import { addPointerAnimation, buildPointerScene, type PointerTrack } from './animation-pointer.ts';

export const encodeJson = (json: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(json));

/** A zero-filled buffer of `bytes` bytes as a data: URI. */
export const zeroBuffer = (bytes: number) => ({ byteLength: bytes, uri: `data:application/octet-stream;base64,${Buffer.alloc(bytes).toString('base64')}` });

/** A minimal valid file with one triangle, extended by `extra` (merged at the top level). */
export function tinyGltf(extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    asset: { version: '2.0' },
    buffers: [zeroBuffer(36)],
    bufferViews: [{ buffer: 0, byteLength: 36 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3' }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
    ...extra,
  };
}

/** Vertices of the accessor `sharedAccessorFile` shares. */
export const SHARED_VERTICES = 4096;
/** Bytes of one read of its POSITION accessor (f32 VEC3): what each user would cost if it were read per use. */
export const SHARED_POSITION_BYTES = SHARED_VERTICES * 12;

/**
 * One 64 KiB bufferView read through a few accessors by `users` primitives (each with a morph
 * target on the same POSITION) and `users` animations (each sampling the same key accessors).
 * The weights are zero everywhere, so every vertex is repaired, once. Loads.
 */
export function sharedAccessorFile(users: number): Uint8Array {
  const vertices = SHARED_VERTICES;
  // Zeros, but for one identity quaternion (normalized shorts) in the last 8 bytes.
  const bin = Buffer.alloc(vertices * 16);
  bin.writeInt16LE(32767, bin.length - 2);
  const json = tinyGltf({
    buffers: [{ byteLength: bin.length, uri: `data:application/octet-stream;base64,${bin.toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: vertices * 16 }],
  });
  json.accessors = [
    { bufferView: 0, componentType: 5126, count: vertices, type: 'VEC3' },
    { bufferView: 0, componentType: 5121, normalized: true, count: vertices, type: 'VEC4' },
    { bufferView: 0, componentType: 5121, count: vertices, type: 'VEC4' },
    { bufferView: 0, componentType: 5126, count: 1, type: 'SCALAR' },
    { bufferView: 0, byteOffset: vertices * 16 - 8, componentType: 5122, normalized: true, count: 1, type: 'VEC4' },
    { bufferView: 0, componentType: 5121, count: 3, type: 'SCALAR' },
  ];
  json.meshes[0].primitives = Array.from({ length: users }, () => ({ attributes: { POSITION: 0, JOINTS_0: 2, WEIGHTS_0: 1 }, indices: 5, targets: [{ POSITION: 0 }] }));
  json.nodes = [{ mesh: 0, skin: 0 }, {}];
  json.scenes = [{ nodes: [0, 1] }];
  json.skins = [{ joints: [1] }];
  json.animations = Array.from({ length: users }, () => ({ channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }], samplers: [{ input: 3, output: 4 }] }));
  return encodeJson(json);
}

/**
 * A chain of `n` nodes, every one a joint of one skin that lists them deepest-first (so parent
 * links must be found, not assumed), and a skinned triangle. Loads.
 */
export function jointChainFile(n: number): Uint8Array {
  const nodes: Record<string, unknown>[] = Array.from({ length: n }, (_, i) => (i + 1 < n ? { children: [i + 1] } : {}));
  nodes.push({ mesh: 0, skin: 0 });
  const json = tinyGltf({ nodes, scenes: [{ nodes: [0, n] }], buffers: [zeroBuffer(48)], bufferViews: [{ buffer: 0, byteLength: 48 }] });
  json.skins = [{ joints: Array.from({ length: n }, (_, i) => n - 1 - i), skeleton: 0 }];
  json.accessors.push({ bufferView: 0, componentType: 5121, count: 3, type: 'VEC4' }, { bufferView: 0, componentType: 5126, count: 3, type: 'VEC4' });
  json.meshes[0].primitives[0].attributes = { POSITION: 0, JOINTS_0: 1, WEIGHTS_0: 2 };
  return encodeJson(json);
}

/** The one channel of `meshWeightFanOutFile`'s animations: the morphed mesh's weights, by pointer. */
const MESH_WEIGHT_POINTER: PointerTrack = { pointer: '/meshes/0/weights', input: Float32Array.of(0, 0.5, 1.25, 2), output: Float32Array.of(0, 0, 1, 0, 0.5, 0.5, 0, 1), type: 'SCALAR' };

/**
 * buildPointerScene plus `copies` more nodes drawing its morphed mesh and `copies` more
 * animations, each with the one channel `/meshes/0/weights`: every animation fans out into a
 * channel per node drawing the mesh, copies² channels in all. Refused at the load budget
 * once that is large.
 */
export function meshWeightFanOutFile(copies: number): Uint8Array {
  return buildPointerScene((b) => {
    addPointerAnimation(b, 'p', [MESH_WEIGHT_POINTER]);
    const nodes = b.json.nodes!;
    const first = nodes.length;
    for (let i = 0; i < copies; i++) nodes.push({ mesh: 0 });
    b.json.scenes![0].nodes!.push(...Array.from({ length: copies }, (_, i) => first + i));
    const anim = b.json.animations![0];
    for (let i = 0; i < copies; i++) b.json.animations!.push({ samplers: anim.samplers, channels: anim.channels });
  });
}
