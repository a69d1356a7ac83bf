/** KHR_animation_pointer fixtures, built in code with the GltfBuilder. */
import { GltfBuilder, type AccessorType, type AnimationTrack, type InterpolationName } from '../../src/gltf/builder.ts';
import { encodePng } from './png.ts';

export interface PointerTrack {
  readonly pointer: string;
  readonly input: Float32Array;
  readonly output: Float32Array;
  /** The output accessor's type. */
  readonly type: AccessorType;
  readonly interpolation?: InterpolationName;
}

/** Adds an animation of pointer channels (one sampler each) and lists the extension as used. */
export function addPointerAnimation(b: GltfBuilder, name: string, tracks: readonly PointerTrack[]): number {
  const samplers = [], channels = [];
  for (const t of tracks) {
    const input = b.addAccessor(t.input, 'SCALAR', { minMax: true });
    const output = b.addAccessor(t.output, t.type);
    const sampler = samplers.push({ input, output, interpolation: t.interpolation ?? 'LINEAR' }) - 1;
    channels.push({ sampler, target: { path: 'pointer' as never, extensions: { KHR_animation_pointer: { pointer: t.pointer } } } });
  }
  if (!b.json.extensionsUsed!.includes('KHR_animation_pointer')) b.json.extensionsUsed!.push('KHR_animation_pointer');
  return b.addAnimation({ name, samplers, channels });
}

/** The same track as a core channel (`node`/`path`) and as a pointer channel (`/nodes/N/path`). */
export function asPointerTrack(t: AnimationTrack): PointerTrack {
  const type: AccessorType = t.path === 'rotation' ? 'VEC4' : t.path === 'weights' ? 'SCALAR' : 'VEC3';
  return { pointer: `/nodes/${t.node}/${t.path}`, input: t.input, output: t.output, type, interpolation: t.interpolation };
}

/** Node indices of `buildPointerScene`. */
export const SceneNode = { ROOT: 0, ARM: 1, HAND: 2, MORPHED: 3 } as const;

/**
 * A chain root → arm → hand, and a node drawing a triangle with two POSITION morph targets
 * (mesh 0); material 0 has a base colour texture with a KHR_texture_transform of scale 2, an
 * emissive factor and MASK alpha; material 1 is plain. `animate` adds the animations.
 */
export function buildPointerScene(animate: (b: GltfBuilder) => void): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const positions = Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0);
  const targets = [0, 1].map((t) => {
    const d = new Float32Array(9);
    d[t * 3 + 2] = 1;
    return { POSITION: b.addAccessor(d, 'VEC3', { minMax: true }) };
  });
  const image = b.addImage(encodePng(1, 1, Uint8Array.of(255, 255, 255, 255)), 'image/png');
  const texture = b.addTexture({ source: image });
  b.json.extensionsUsed!.push('KHR_texture_transform');
  const material = b.addMaterial({
    pbrMetallicRoughness: { baseColorFactor: [0.2, 0.4, 0.6, 1], baseColorTexture: { index: texture, extensions: { KHR_texture_transform: { scale: [2, 2] } } } },
    emissiveFactor: [0.1, 0.2, 0.3], alphaMode: 'MASK', alphaCutoff: 0.25,
  });
  b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1] } });
  const mesh = b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(positions, 'VEC3', { minMax: true }), NORMAL: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), 'VEC3') }, targets, material }], weights: [0, 0] });
  // Children listed ahead of their nodes, so the indices are SceneNode's.
  b.addNode({ name: 'root', children: [SceneNode.ARM, SceneNode.MORPHED] });
  b.addNode({ name: 'arm', translation: [0, 1, 0], children: [SceneNode.HAND] });
  b.addNode({ name: 'hand', translation: [0, 1, 0] });
  b.addNode({ name: 'morphed', mesh });
  b.addScene({ nodes: [SceneNode.ROOT] });
  animate(b);
  return b.toGlb();
}
