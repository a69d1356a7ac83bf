/**
 * Generated spheres for the material extension tests: a UV sphere of radius 1 at the origin
 * (NORMAL, TANGENT along +longitude, TEXCOORD_0 = (longitude / 2π, latitude / π) with u = 0.5 on the
 * side facing +Z) with the material given, optionally in front of an opaque unlit backdrop quad
 * (what transmission shows through the sphere), and optionally beside other spheres.
 */
import { GltfBuilder, type GltfMaterialJson } from '../../src/gltf/builder.ts';
import { addPointerAnimation, type PointerTrack } from './animation-pointer.ts';
import { encodePng } from './png.ts';

export interface SphereOptions {
  /**
   * Linear RGB of an unlit quad at z = −`backdropDistance` behind the sphere (two: its left and
   * right halves, meeting at x = 0); none when absent.
   */
  readonly backdrop?: readonly [number, number, number] | readonly [readonly [number, number, number], readonly [number, number, number]];
  readonly backdropDistance?: number;
  /** Where the backdrop's halves meet (x), and how far it reaches either side of that: 0 and 4 when absent. */
  readonly backdropCentreX?: number;
  readonly backdropHalfWidth?: number;
  /** Extensions the materials use (extensionsUsed). */
  readonly extensionsUsed?: readonly string[];
  /** PNG textures the materials' JSON refer to by index, in order. */
  readonly textures?: readonly Uint8Array[];
  /** Further spheres (materials), side by side along +X, 2.5 apart; the first is at the origin. */
  readonly more?: readonly GltfMaterialJson[];
  readonly segments?: number;
  /** KHR_animation_pointer tracks of one clip (the file's only animation). */
  readonly pointerTracks?: readonly PointerTrack[];
}

/** The backdrop reaches this far above and below y = 0. */
const BACKDROP_HALF_HEIGHT = 4;

interface SphereBuffers { positions: Float32Array; normals: Float32Array; tangents: Float32Array; uvs: Float32Array; indices: Uint32Array }

function sphere(segments: number): SphereBuffers {
  const rings = segments / 2;
  const positions: number[] = [], normals: number[] = [], tangents: number[] = [], uvs: number[] = [], indices: number[] = [];
  for (let r = 0; r <= rings; r++) {
    const theta = (Math.PI * r) / rings;
    for (let s = 0; s <= segments; s++) {
      // φ = 0 faces +Z, increasing towards +X.
      const phi = (2 * Math.PI * s) / segments - Math.PI;
      const n = [Math.sin(theta) * Math.sin(phi), Math.cos(theta), Math.sin(theta) * Math.cos(phi)];
      positions.push(...n);
      normals.push(...n);
      tangents.push(Math.cos(phi), 0, -Math.sin(phi), 1);
      uvs.push(s / segments, r / rings);
    }
  }
  const row = segments + 1;
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * row + s, b = a + 1, c = a + row, d = c + 1;
      // Counter-clockwise seen from outside.
      indices.push(a, c, b, b, c, d);
    }
  }
  return { positions: Float32Array.from(positions), normals: Float32Array.from(normals), tangents: Float32Array.from(tangents), uvs: Float32Array.from(uvs), indices: Uint32Array.from(indices) };
}

export function sphereGlb(material: GltfMaterialJson, options: SphereOptions = {}): Uint8Array {
  const b = new GltfBuilder('material extension spheres');
  b.json.extensionsUsed!.push(...(options.extensionsUsed ?? []), ...(options.backdrop ? ['KHR_materials_unlit'] : []));
  for (const png of options.textures ?? []) {
    const source = b.addImage(png, 'image/png');
    const sampler = b.addSampler({ magFilter: 9729, minFilter: 9987, wrapS: 10497, wrapT: 10497 });
    b.addTexture({ source, sampler });
  }
  const s = sphere(options.segments ?? 64);
  const attributes = {
    POSITION: b.addAccessor(s.positions, 'VEC3', { minMax: true }),
    NORMAL: b.addAccessor(s.normals, 'VEC3'),
    TANGENT: b.addAccessor(s.tangents, 'VEC4'),
    TEXCOORD_0: b.addAccessor(s.uvs, 'VEC2'),
  };
  const indices = b.addAccessor(s.indices, 'SCALAR');
  const nodes: number[] = [];
  [material, ...(options.more ?? [])].forEach((m, i) => {
    const mesh = b.addMesh({ primitives: [{ attributes, indices, material: b.addMaterial(m) }] });
    nodes.push(b.addNode({ mesh, translation: [2.5 * i, 0, 0] }));
  });
  if (options.backdrop) {
    const d = options.backdropDistance ?? 3;
    const h = options.backdropHalfWidth ?? 4, centre = options.backdropCentreX ?? 0;
    const halves = typeof options.backdrop[0] === 'number'
      ? [[centre - h, centre + h, options.backdrop as readonly number[]]] as const
      : [[centre - h, centre, options.backdrop[0] as readonly number[]], [centre, centre + h, options.backdrop[1] as readonly number[]]] as const;
    for (const [x0, x1, color] of halves) {
      const quad = b.addMesh({
        primitives: [{
          attributes: {
            POSITION: b.addAccessor(Float32Array.of(x0, -BACKDROP_HALF_HEIGHT, -d, x1, -BACKDROP_HALF_HEIGHT, -d, x1, BACKDROP_HALF_HEIGHT, -d, x0, BACKDROP_HALF_HEIGHT, -d), 'VEC3', { minMax: true }),
            NORMAL: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1), 'VEC3'),
          },
          indices: b.addAccessor(Uint16Array.of(0, 1, 2, 0, 2, 3), 'SCALAR'),
          material: b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [...color, 1] }, extensions: { KHR_materials_unlit: {} } }),
        }],
      });
      nodes.push(b.addNode({ mesh: quad }));
    }
  }
  b.addScene({ nodes });
  if (options.pointerTracks) addPointerAnimation(b, 'pointer', options.pointerTracks);
  return b.toGlb();
}

/** A PNG whose left half (u < 0.5) is `left` and right half `right` (RGBA bytes). */
export function splitPng(left: readonly number[], right: readonly number[], size = 16): Uint8Array {
  const data = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) data.set(x < size / 2 ? left : right, (y * size + x) * 4);
  return encodePng(size, size, data);
}
