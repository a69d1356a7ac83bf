/**
 * Small scenes built in code for the render tests: a UV sphere, a normal-mapped quad
 * pair, overlapping blended quads, a flat emissive quad. Every one is a GLB from the
 * project's GltfBuilder, loaded by the real loader.
 */
import { GltfBuilder, type GltfMaterialJson, type GltfNodeJson } from '../../src/gltf/builder.ts';
import { encodePng } from '../support/png.ts';

interface QuadOptions {
  /** Centre and half size in the XY plane, facing +z (counter-clockwise seen from +z). */
  center?: readonly [number, number, number];
  halfSize?: number;
  /** TANGENT w for all four vertices; no TANGENT when undefined. */
  tangentW?: 1 | -1;
  material: number;
  /** Reverse the winding (the quad then faces −z). */
  flip?: boolean;
}

function addQuad(b: GltfBuilder, o: QuadOptions): number {
  const [cx, cy, cz] = o.center ?? [0, 0, 0];
  const h = o.halfSize ?? 1;
  const positions = Float32Array.of(cx - h, cy - h, cz, cx + h, cy - h, cz, cx + h, cy + h, cz, cx - h, cy + h, cz);
  const nz = o.flip ? -1 : 1;
  const attributes: Record<string, number> = {
    POSITION: b.addAccessor(positions, 'VEC3', { minMax: true }),
    NORMAL: b.addAccessor(Float32Array.of(0, 0, nz, 0, 0, nz, 0, 0, nz, 0, 0, nz), 'VEC3'),
    // glTF UVs: v grows downwards in the image, so the top edge has v = 0.
    TEXCOORD_0: b.addAccessor(Float32Array.of(0, 1, 1, 1, 1, 0, 0, 0), 'VEC2'),
  };
  if (o.tangentW !== undefined) {
    const w = o.tangentW;
    attributes.TANGENT = b.addAccessor(Float32Array.of(1, 0, 0, w, 1, 0, 0, w, 1, 0, 0, w, 1, 0, 0, w), 'VEC4');
  }
  const indices = o.flip ? Uint16Array.of(0, 2, 1, 0, 3, 2) : Uint16Array.of(0, 1, 2, 0, 2, 3);
  return b.addMesh({ primitives: [{ attributes, indices: b.addAccessor(indices, 'SCALAR'), material: o.material }] });
}

/** A PNG of one colour, `size`×`size`. */
export function solidPng(rgba: readonly number[], size = 4): Uint8Array {
  const data = new Uint8Array(size * size * 4);
  for (let i = 0; i < size * size; i++) data.set(rgba, i * 4);
  return encodePng(size, size, data);
}

function addPngTexture(b: GltfBuilder, png: Uint8Array): number {
  const source = b.addImage(png, 'image/png');
  const sampler = b.addSampler({ magFilter: 9729, minFilter: 9987, wrapS: 10497, wrapT: 10497 });
  return b.addTexture({ source, sampler });
}

function finish(b: GltfBuilder, nodes: GltfNodeJson[]): Uint8Array {
  const indices = nodes.map((n) => b.addNode(n));
  b.addScene({ nodes: indices });
  return b.toGlb();
}

/** A unit UV sphere at the origin with smooth normals; by default light grey (0.8), fully rough dielectric. */
export function buildSphere(segments = 48, rings = 24, materialJson?: GltfMaterialJson): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const positions: number[] = [];
  const indices: number[] = [];
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI;
    for (let s = 0; s <= segments; s++) {
      const phi = (s / segments) * 2 * Math.PI;
      positions.push(Math.sin(theta) * Math.sin(phi), Math.cos(theta), Math.sin(theta) * Math.cos(phi));
    }
  }
  const row = segments + 1;
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * row + s, c = a + row;
      indices.push(a, c, a + 1, a + 1, c, c + 1);
    }
  }
  const p = Float32Array.from(positions);
  const material = b.addMaterial(materialJson ?? { pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 1 } });
  const mesh = b.addMesh({
    primitives: [{
      attributes: { POSITION: b.addAccessor(p, 'VEC3', { minMax: true }), NORMAL: b.addAccessor(p, 'VEC3') },
      indices: b.addAccessor(Uint16Array.from(indices), 'SCALAR'),
      material,
    }],
  });
  return finish(b, [{ mesh }]);
}

/**
 * Two quads side by side (left: TANGENT w = +1, right: w = −1, or no TANGENT at all)
 * sharing a normal map whose every texel leans the normal towards tangent-space +y
 * (the bitangent, cross(n, t) · w): up the screen for w = +1, down for w = −1.
 */
export const LEANING_NORMAL = [0, 0.6, 0.8] as const;
export function buildNormalMappedQuads(tangents: boolean): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const texel = LEANING_NORMAL.map((c) => Math.round(((c + 1) / 2) * 255));
  const normalTexture = addPngTexture(b, solidPng([...texel, 255]));
  const material = b.addMaterial({
    pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 1 },
    normalTexture: { index: normalTexture },
  });
  const left = addQuad(b, { center: [-1.1, 0, 0], material, tangentW: tangents ? 1 : undefined });
  const right = addQuad(b, { center: [1.1, 0, 0], material, tangentW: tangents ? -1 : undefined });
  return finish(b, [{ mesh: left }, { mesh: right }]);
}

/**
 * Two overlapping half-transparent quads: red at z = 0.5 and blue at z = −0.5, listed
 * far-first or near-first in the file; drawn correctly only when sorted per view.
 */
export function buildBlendedPair(): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const blended = (rgb: number[]): GltfMaterialJson => ({
    pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 0.5], metallicFactor: 0, roughnessFactor: 1 },
    emissiveFactor: rgb,
    alphaMode: 'BLEND',
    doubleSided: true,
  });
  const red = addQuad(b, { center: [0, 0, 0.5], material: b.addMaterial(blended([1, 0, 0])), halfSize: 0.8 });
  const blue = addQuad(b, { center: [0, 0, -0.5], material: b.addMaterial(blended([0, 0, 1])), halfSize: 0.8 });
  return finish(b, [{ mesh: red }, { mesh: blue }]);
}

export interface EmissiveQuadOptions {
  /** Linear emissive factor. */
  emissive?: readonly [number, number, number];
  /** An sRGB emissive texture of this byte colour. */
  emissiveTexel?: readonly [number, number, number];
  alphaMode?: 'OPAQUE' | 'MASK' | 'BLEND';
  /** Base colour alpha (MASK tests). */
  alpha?: number;
  doubleSided?: boolean;
  /** Draw the quad facing −z (away from a camera on +z). */
  flip?: boolean;
  /** Node scale (negative components mirror). */
  scale?: readonly [number, number, number];
}

/** A unit quad that only emits: black, fully rough, so its pixels show the output transform alone. */
export function buildEmissiveQuad(o: EmissiveQuadOptions = {}): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const material: GltfMaterialJson = {
    pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, o.alpha ?? 1], metallicFactor: 0, roughnessFactor: 1 },
    emissiveFactor: [...(o.emissive ?? [1, 1, 1])],
    alphaMode: o.alphaMode ?? 'OPAQUE',
    doubleSided: o.doubleSided ?? false,
  };
  if (o.emissiveTexel) material.emissiveTexture = { index: addPngTexture(b, solidPng([...o.emissiveTexel, 255])) };
  const mesh = addQuad(b, { material: b.addMaterial(material), flip: o.flip });
  return finish(b, [{ mesh, ...(o.scale ? { scale: [...o.scale] } : {}) }]);
}

/** Weight of joint 1 per row of the two-joint strip, in 255ths: every row sums to exactly 255. */
const STRIP_WEIGHTS_U8 = [0, 0, 32, 96, 128, 160, 224, 255, 255];

export interface StripOptions {
  /** Weight encoding; 'float' stores the same u8 fractions as floats. */
  weights: 'u8' | 'u16' | 'float';
  joints: 'u8' | 'u16';
}

/**
 * A vertical strip (9 rows × 2 vertices, y 0…2) skinned to two joints (at y 0 and 1)
 * with weights that are exact in every encoding (u8 steps; u16 = u8 · 257), so the loader
 * keeps the file's arrays and the GPU must decode unorm8/unorm16 to the same floats.
 * One clip turns joint 1 about z by 0…90° over 1 s.
 */
export function buildTwoJointStrip(o: StripOptions): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const positions: number[] = [], normals: number[] = [], joints: number[] = [], weights: number[] = [];
  for (let row = 0; row < 9; row++) {
    for (const x of [-0.2, 0.2]) {
      positions.push(x, row * 0.25, 0);
      normals.push(0, 0, 1);
      joints.push(0, 1, 0, 0);
      const w1 = STRIP_WEIGHTS_U8[row];
      weights.push(255 - w1, w1, 0, 0);
    }
  }
  const weightArray = o.weights === 'u8' ? Uint8Array.from(weights)
    : o.weights === 'u16' ? Uint16Array.from(weights.map((w) => w * 257))
    : Float32Array.from(weights.map((w) => w / 255));
  const indices: number[] = [];
  for (let row = 0; row < 8; row++) indices.push(row * 2, row * 2 + 1, row * 2 + 3, row * 2, row * 2 + 3, row * 2 + 2);
  const mesh = b.addMesh({
    primitives: [{
      attributes: {
        POSITION: b.addAccessor(Float32Array.from(positions), 'VEC3', { minMax: true }),
        NORMAL: b.addAccessor(Float32Array.from(normals), 'VEC3'),
        JOINTS_0: b.addAccessor(o.joints === 'u8' ? Uint8Array.from(joints) : Uint16Array.from(joints), 'VEC4'),
        WEIGHTS_0: b.addAccessor(weightArray, 'VEC4', { normalized: o.weights !== 'float' }),
      },
      indices: b.addAccessor(Uint16Array.from(indices), 'SCALAR'),
      material: b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0.9, 0.5, 0.2, 1], metallicFactor: 0, roughnessFactor: 0.5 } }),
    }],
  });
  const j1 = b.addNode({ name: 'J1', translation: [0, 1, 0] });
  const j0 = b.addNode({ name: 'J0', children: [j1] });
  const ibm = Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1);
  const skin = b.addSkin({ joints: [j0, j1], inverseBindMatrices: b.addAccessor(ibm, 'MAT4') });
  const meshNode = b.addNode({ name: 'strip', mesh, skin });
  b.addScene({ nodes: [j0, meshNode] });
  const s = Math.SQRT1_2;
  b.addAnimationTracks('Bend', [{ node: j1, path: 'rotation', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 0, 1, 0, 0, s, s) }]);
  return b.toGlb();
}

/**
 * `count` small separate triangles in a row along x (triangle t spans x t…t+0.7, y 0…0.9,
 * facing +z; no edge at a 2:1 slope, which would run through two of the 4× MSAA sample
 * positions of every pixel and make the coverage comparison a coin toss), one POSITION morph target per triangle that lifts it by 1 in y, and node
 * weights `weights` (unlit grey, single-sided). For choosing the largest weights when more
 * than MAX_ACTIVE_MORPH_TARGETS are non-zero.
 */
export function buildMorphRow(weights: readonly number[]): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const count = weights.length;
  const positions = new Float32Array(count * 9);
  for (let t = 0; t < count; t++) positions.set([t, 0, 0, t + 0.7, 0.1, 0, t + 0.3, 0.9, 0], t * 9);
  const targets = [];
  for (let t = 0; t < count; t++) {
    const delta = new Float32Array(count * 9);
    for (let v = 0; v < 3; v++) delta[t * 9 + v * 3 + 1] = 1;
    targets.push({ POSITION: b.addAccessor(delta, 'VEC3', { minMax: true }) });
  }
  const material = b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0.6, 0.6, 0.6, 1], metallicFactor: 0 } });
  const mesh = b.addMesh({ primitives: [{ attributes: { POSITION: b.addAccessor(positions, 'VEC3', { minMax: true }) }, targets, material }], weights: [...weights] });
  return finish(b, [{ mesh, weights: [...weights] }]);
}

/** Makes a texture of a PNG (or other bytes with `mimeType`); `nearest` samples texels unfiltered, level 0 only. */
export type AddTexture = (png: Uint8Array, o?: { nearest?: boolean; clamp?: boolean; mimeType?: string; extensions?: Record<string, unknown> }) => number;

/**
 * The 2×2 quad of buildEmissiveQuad (UV 0…1 across it, v down) with the material `make`
 * returns, textures added through `texture`. `tangents` gives it TANGENT (+x, w 1).
 */
export function buildMaterialQuad(make: (texture: AddTexture, b: GltfBuilder) => GltfMaterialJson, tangents = false): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const texture: AddTexture = (png, o = {}) => {
    const source = b.addImage(png, o.mimeType ?? 'image/png');
    const wrap = o.clamp ? 33071 : 10497;
    const sampler = b.addSampler(o.nearest
      ? { magFilter: 9728, minFilter: 9728, wrapS: wrap, wrapT: wrap }
      : { magFilter: 9729, minFilter: 9987, wrapS: wrap, wrapT: wrap });
    return b.addTexture({ source, sampler, ...(o.extensions ? { extensions: o.extensions } : {}) });
  };
  const mesh = addQuad(b, { material: b.addMaterial(make(texture, b)), tangentW: tangents ? 1 : undefined });
  return finish(b, [{ mesh }]);
}
