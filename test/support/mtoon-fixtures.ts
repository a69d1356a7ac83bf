/**
 * MToon test files built in code: UV spheres (analytic normals, optionally skinned to one
 * joint so every skinning method draws them) each with a VRMC_materials_mtoon material, small
 * PNG textures, and the mutations of the MToon fuzz pass.
 */
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { BufferTarget } from '../../src/gltf/constants.ts';
import { GltfBuilder, type GltfMaterialJson } from '../../src/gltf/builder.ts';
import type { Material, Model } from '../../src/gltf/model.ts';
import { MTOON_OUTLINE_WIDTH_MODES } from '../../src/gltf/mtoon-model.ts';
import { encodePng } from './png.ts';
import type { Rng } from './fuzz.ts';

export const MTOON = 'VRMC_materials_mtoon';

export interface SphereGeometry {
  positions: Float32Array;
  normals: Float32Array;
  uvs: Float32Array;
  indices: Uint16Array;
}

/** A unit UV sphere: `segments` around Y, `rings` pole to pole; u around, v from the top (0) to the bottom (1). */
export function sphereGeometry(segments = 48, rings = 32): SphereGeometry {
  const positions: number[] = [], normals: number[] = [], uvs: number[] = [], indices: number[] = [];
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI;
    for (let s = 0; s <= segments; s++) {
      const phi = (s / segments) * Math.PI * 2;
      const n = [Math.sin(theta) * Math.sin(phi), Math.cos(theta), Math.sin(theta) * Math.cos(phi)];
      positions.push(...n);
      normals.push(...n);
      uvs.push(s / segments, r / rings);
    }
  }
  const row = segments + 1;
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * row + s, b = a + row;
      // Counter-clockwise seen from outside.
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  }
  return { positions: new Float32Array(positions), normals: new Float32Array(normals), uvs: new Float32Array(uvs), indices: new Uint16Array(indices) };
}

export interface SphereSpec {
  readonly center: readonly [number, number, number];
  readonly radius: number;
  /** Index into the file's materials. */
  readonly material: number;
}

export interface MToonFileOptions {
  readonly spheres: readonly SphereSpec[];
  readonly materials: readonly GltfMaterialJson[];
  /** RGBA8 images (width, height, pixels) the materials' textures index, one texture each. */
  readonly images?: readonly { width: number; height: number; rgba: Uint8Array }[];
  /** Skin every sphere to one joint at the origin (identity bind): drawn by the skinned pipelines. */
  readonly skinned?: boolean;
  /** A VRMC_vrm root extension, so the file is a VRM 1.0 file (the element draws MToon for VRM files). */
  readonly vrm?: boolean;
}

/** A glTF with one sphere node per spec. */
export function buildMToonFile(o: MToonFileOptions): Uint8Array {
  const b = new GltfBuilder('MToon test spheres');
  for (const image of o.images ?? []) {
    const source = b.addImage(encodePng(image.width, image.height, image.rgba), 'image/png');
    b.addTexture({ source });
  }
  for (const m of o.materials) b.addMaterial(m);
  b.json.extensionsUsed.push(MTOON);
  const g = sphereGeometry();
  const vertex = { target: BufferTarget.ARRAY_BUFFER };
  const count = g.positions.length / 3;
  const nodes: number[] = [];
  const joint = o.skinned ? b.addNode({ name: 'joint' }) : -1;
  for (const [i, s] of o.spheres.entries()) {
    const positions = g.positions.map((v, k) => v * s.radius + s.center[k % 3]);
    const attributes: Record<string, number> = {
      POSITION: b.addAccessor(positions, 'VEC3', { ...vertex, minMax: true }),
      NORMAL: b.addAccessor(g.normals, 'VEC3', vertex),
      TEXCOORD_0: b.addAccessor(g.uvs, 'VEC2', vertex),
    };
    if (o.skinned) {
      attributes.JOINTS_0 = b.addAccessor(new Uint8Array(count * 4), 'VEC4', vertex);
      attributes.WEIGHTS_0 = b.addAccessor(new Float32Array(count * 4).map((_, k) => (k % 4 === 0 ? 1 : 0)), 'VEC4', vertex);
    }
    const mesh = b.addMesh({ primitives: [{ attributes, indices: b.addAccessor(g.indices, 'SCALAR', { target: BufferTarget.ELEMENT_ARRAY_BUFFER }), material: s.material }] });
    nodes.push(b.addNode({ name: `sphere ${i}`, mesh, ...(o.skinned ? { skin: 0 } : {}) }));
  }
  if (o.skinned) {
    const ibm = b.addAccessor(Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1), 'MAT4');
    b.addSkin({ joints: [joint], inverseBindMatrices: ibm });
  }
  b.addScene({ nodes: o.skinned ? [joint, ...nodes] : nodes });
  if (o.vrm) {
    b.json.extensionsUsed.push('VRMC_vrm');
    (b.json as unknown as { extensions: Record<string, unknown> }).extensions = {
      VRMC_vrm: { specVersion: '1.0', meta: { name: 'MToon spheres', version: '1', authors: ['skinned-mesh-webgpu tests'], licenseUrl: 'https://vrm.dev/licenses/1.0/' }, humanoid: { humanBones: {} } },
    };
  }
  return b.toGlb();
}

/** A material drawn with MToon: `base` is the glTF part, `mtoon` the extension (specVersion added). */
export function mtoonMaterial(mtoon: Record<string, unknown>, base: Partial<GltfMaterialJson> = {}): GltfMaterialJson {
  return { pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1], metallicFactor: 0, roughnessFactor: 1 }, ...base, extensions: { [MTOON]: { specVersion: '1.0', ...mtoon } } };
}

/** A width × height image of one colour. */
export function solidImage(width: number, height: number, rgba: readonly number[]): { width: number; height: number; rgba: Uint8Array } {
  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0; i < pixels.length; i++) pixels[i] = rgba[i % 4];
  return { width, height, rgba: pixels };
}

/** A material using every MToon parameter, with textures 0 (a checker) and 1 (a mask). */
export function fullMToonFile(): Uint8Array {
  const checker = new Uint8Array(8 * 8 * 4);
  for (let i = 0; i < 64; i++) checker.set(((i % 8) + (i >> 3)) % 2 ? [230, 200, 180, 255] : [60, 80, 140, 255], i * 4);
  return buildMToonFile({
    images: [{ width: 8, height: 8, rgba: checker }, solidImage(4, 4, [128, 200, 255, 255])],
    spheres: [{ center: [0, 0, 0], radius: 0.5, material: 0 }, { center: [1.2, 0, 0], radius: 0.5, material: 1 }],
    materials: [
      mtoonMaterial({
        transparentWithZWrite: false, renderQueueOffsetNumber: -1, shadeColorFactor: [0.3, 0.2, 0.4], shadeMultiplyTexture: { index: 0 },
        shadingShiftFactor: -0.1, shadingShiftTexture: { index: 1, scale: 0.3 }, shadingToonyFactor: 0.8, giEqualizationFactor: 0.7,
        matcapFactor: [0.5, 0.5, 0.5], matcapTexture: { index: 0 }, parametricRimColorFactor: [0.6, 0.7, 0.9], rimMultiplyTexture: { index: 1 },
        rimLightingMixFactor: 0.5, parametricRimFresnelPowerFactor: 3, parametricRimLiftFactor: 0.1, outlineWidthMode: 'worldCoordinates',
        outlineWidthFactor: 0.02, outlineWidthMultiplyTexture: { index: 1 }, outlineColorFactor: [0.1, 0.05, 0.05], outlineLightingMixFactor: 0.5,
        uvAnimationMaskTexture: { index: 1 }, uvAnimationScrollXSpeedFactor: 0.2, uvAnimationScrollYSpeedFactor: 0.1, uvAnimationRotationSpeedFactor: 0.3,
      }, { pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 0.8], baseColorTexture: { index: 0 } }, alphaMode: 'BLEND', normalTexture: { index: 1 }, emissiveFactor: [0.1, 0, 0] }),
      mtoonMaterial({ outlineWidthMode: 'screenCoordinates', outlineWidthFactor: 0.01, shadeColorFactor: [0.2, 0.2, 0.3] }, { pbrMetallicRoughness: { baseColorFactor: [0.9, 0.8, 0.7, 1] } }),
    ],
  });
}

/** The files the MToon fuzz pass mutates (the specification's UV animation sample is added by the tests that read shared assets). */
export function mtoonFuzzSources(): { name: string; bytes: Uint8Array }[] {
  return [
    { name: 'vrm0-avatar', bytes: buildBuiltinGlb('vrm0-avatar') },
    { name: 'every parameter', bytes: fullMToonFile() },
  ];
}

const HOSTILE: unknown[] = [
  -1, 0, 1, 2, 0.5, -0.5, 9, 10, -10, 1e308, -1e308, 3.5e38, 1e-320, 2 ** 31, 1.5, 'NaN', '', null, true, false, [], [0], [1, 2], [0, 0, 0], [2, -1, 0.5],
  [0, 0, 0, 0], [1e308, 1, 1], ['a', 'b', 'c'], {}, { index: 0 }, { index: 99 }, { index: -1 }, { index: 0, texCoord: 5 }, { index: 1, scale: 1e39 },
  'none', 'worldCoordinates', 'screenCoordinates', 'VRM/MToon', 'VRM/UnlitTransparentZWrite', '1.0', '1.0-beta', 3000, 2450,
];

/** JSON paths of every value inside the file's MToon JSON (each material's extension, the 0.x material properties). */
function mtoonPaths(json: Record<string, unknown>): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  ((json.materials ?? []) as Record<string, unknown>[]).forEach((m, i) => {
    const ext = (m.extensions as Record<string, unknown> | undefined)?.[MTOON];
    if (ext !== undefined) walk(ext, ['materials', i, 'extensions', MTOON]);
  });
  const vrm0 = (json.extensions as Record<string, Record<string, unknown>> | undefined)?.VRM;
  if (vrm0?.materialProperties !== undefined) walk(vrm0.materialProperties, ['extensions', 'VRM', 'materialProperties']);
  return out;
}

/** Replaces or deletes one to four values of the MToon JSON (and may change a material's alpha mode); returns what it did. */
export function mutateMToonJson(json: Record<string, unknown>, rng: Rng): string[] {
  const paths = mtoonPaths(json);
  const notes: string[] = [];
  // The core alpha mode decides the render queue's range: varied with valid values only (the core reader refuses others).
  const materials = (json.materials ?? []) as Record<string, unknown>[];
  if (materials.length > 0 && rng.chance(0.3)) {
    const i = rng.int(materials.length);
    materials[i].alphaMode = rng.pick(['OPAQUE', 'MASK', 'BLEND']);
    notes.push(`materials.${i}.alphaMode = ${String(materials[i].alphaMode)}`);
  }
  for (let m = 1 + rng.int(4); m > 0; m--) {
    const path = paths[rng.int(paths.length)];
    let parent: unknown = json;
    for (const k of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[k];
    if (!parent || typeof parent !== 'object') continue;
    const key = path[path.length - 1] as string | number;
    if (rng.chance(0.2)) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<string, unknown>)[key];
      notes.push(`delete ${path.join('.')}`);
    } else {
      const value = HOSTILE[rng.int(HOSTILE.length)];
      (parent as Record<string | number, unknown>)[key] = value;
      notes.push(`${path.join('.')} = ${JSON.stringify(value)?.slice(0, 40)}`);
    }
  }
  return notes;
}

/** What is wrong with a loaded material's MToon parameters (empty when nothing is). */
export function mtoonProblems(model: Model, m: Material): string[] {
  const t = m.mtoon;
  if (!t) return [];
  const out: string[] = [];
  const unit = (v: number, what: string) => { if (!(v >= 0 && v <= 1)) out.push(`${what} = ${v}`); };
  const finite = (v: number, what: string) => { if (!Number.isFinite(Math.fround(v))) out.push(`${what} = ${v}`); };
  for (const key of ['shadeColorFactor', 'matcapFactor', 'parametricRimColorFactor', 'outlineColorFactor'] as const) t[key].forEach((v, c) => unit(v, `${key}[${c}]`));
  m.baseColorFactor.forEach((v, c) => unit(v, `baseColorFactor[${c}]`));
  for (const key of ['shadingToonyFactor', 'giEqualizationFactor', 'rimLightingMixFactor', 'outlineLightingMixFactor'] as const) unit(t[key], key);
  for (const key of ['parametricRimFresnelPowerFactor', 'outlineWidthFactor'] as const) if (!(t[key] >= 0 && Number.isFinite(t[key]))) out.push(`${key} = ${t[key]}`);
  for (const key of ['shadingShiftFactor', 'parametricRimLiftFactor', 'uvAnimationScrollXSpeedFactor', 'uvAnimationScrollYSpeedFactor', 'uvAnimationRotationSpeedFactor'] as const) finite(t[key], key);
  const q = t.renderQueueOffsetNumber;
  const [lo, hi] = m.alphaMode !== 'BLEND' ? [0, 0] : t.transparentWithZWrite ? [0, 9] : [-9, 0];
  if (!Number.isInteger(q) || q < lo || q > hi) out.push(`renderQueueOffsetNumber = ${q}`);
  if (!MTOON_OUTLINE_WIDTH_MODES.includes(t.outlineWidthMode)) out.push(`outlineWidthMode = ${t.outlineWidthMode}`);
  for (const key of ['shadeMultiplyTexture', 'shadingShiftTexture', 'matcapTexture', 'rimMultiplyTexture', 'outlineWidthMultiplyTexture', 'uvAnimationMaskTexture'] as const) {
    const info = t[key];
    if (info && !(info.index >= 0 && info.index < model.textures.length)) out.push(`${key}.index = ${info.index}`);
    if (info) finite(info.scale, `${key}.scale`);
  }
  return out;
}
