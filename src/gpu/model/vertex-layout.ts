/**
 * The vertex buffer layouts of a primitive (see upload.ts for the slots) and the keys that go
 * into its pipelines' keys, from what picks them alone: which attributes it has and how each
 * is stored. A read primitive gives that (`vertexShapeOf`), and so does the file's JSON before
 * any array is read (draw/pipeline-forecast.ts): one function for both, so a pipeline asked
 * for from the JSON has the key the upload's draws ask for.
 */
import { COMPONENT_BYTE_SIZE, ComponentType } from '../../gltf/constants.ts';
import type { Primitive } from '../../gltf/model.ts';
import { VertexLocation } from '../layouts/bindings.ts';
import { GpuLimitError } from '../device/limits.ts';
import type { AccessorFormat } from '../../gltf/accessors.ts';
import { geometryLayout, type GeometryAttribute, type GeometryLayout } from './quantized-vertex.ts';

/** Byte offsets of the constant "missing attribute" values inside the defaults buffer. */
export const DefaultAttributeOffset = {
  /** vec3f (0, 0, 1): unused for shading (FLAT_NORMALS draws use derivatives) but keeps the frame defined. */
  NORMAL: 0,
  /** vec4f (1, 0, 0, 1). */
  TANGENT: 16,
  /** vec2f (0, 0), for TEXCOORD_0 and TEXCOORD_1. */
  TEXCOORD: 32,
  /** vec4f (1, 1, 1, 1): COLOR_0 multiplies the base colour. */
  COLOR: 48,
} as const;

export interface FloatAttribute extends GeometryAttribute {
  readonly defaultOffset: number;
}

/** The interleaved float attributes, in slot-0 order. */
export const FLOAT_ATTRIBUTES: readonly FloatAttribute[] = [
  { location: VertexLocation.POSITION, name: 'POSITION', components: 3, defaultOffset: -1, data: (p) => p.positions },
  // Tangents are ignored without normals (glTF §3.7.2.1), so NORMAL decides for both.
  { location: VertexLocation.NORMAL, name: 'NORMAL', components: 3, defaultOffset: DefaultAttributeOffset.NORMAL, data: (p) => p.normals },
  { location: VertexLocation.TANGENT, name: 'TANGENT', components: 4, defaultOffset: DefaultAttributeOffset.TANGENT, data: (p) => (p.normals ? p.tangents : undefined) },
  { location: VertexLocation.TEXCOORD_0, name: 'TEXCOORD_0', components: 2, defaultOffset: DefaultAttributeOffset.TEXCOORD, data: (p) => p.texcoords0 },
  { location: VertexLocation.TEXCOORD_1, name: 'TEXCOORD_1', components: 2, defaultOffset: DefaultAttributeOffset.TEXCOORD, data: (p) => p.texcoords1 },
  { location: VertexLocation.COLOR_0, name: 'COLOR_0', components: 4, defaultOffset: DefaultAttributeOffset.COLOR, data: (p) => p.colors0 },
];
const FLOAT_FORMAT: Readonly<Record<2 | 3 | 4, GPUVertexFormat>> = { 2: 'float32x2', 3: 'float32x3', 4: 'float32x4' };

/** Attributes the lean shaded pipelines neither fetch nor pass on (MeshPipelineDesc.leanVertexLayouts). */
const LEAN_OMITS: readonly number[] = [VertexLocation.TANGENT, VertexLocation.TEXCOORD_1, VertexLocation.COLOR_0];

/** One JOINTS_n / WEIGHTS_n pair's storage. */
export interface SkinSetFormat {
  readonly joints: AccessorFormat;
  readonly weights: AccessorFormat;
}

/** What picks a primitive's vertex layouts. */
export interface VertexShape {
  /**
   * The slot-0 attributes it has (FLOAT_ATTRIBUTES' names; TANGENT counts only with NORMAL),
   * each with its storage when that is an 8/16-bit integer (undefined: floats).
   */
  readonly stored: Readonly<Record<string, AccessorFormat | undefined>>;
  /** Its JOINTS_n / WEIGHTS_n sets (empty: not skinned). */
  readonly skinSets: readonly SkinSetFormat[];
}

/** A primitive's vertex buffer layouts and their keys (GpuPrimitive carries them). */
export interface VertexLayouts {
  /** Buffer layouts for a rigid draw (`surfaceSlotCount` entries) and for a skinned one (all). */
  readonly rigidLayouts: readonly GPUVertexBufferLayout[];
  readonly skinnedLayouts: readonly GPUVertexBufferLayout[];
  readonly rigidLayoutKey: string;
  readonly skinnedLayoutKey: string;
  /**
   * `rigidLayouts` / `skinnedLayouts` without the default TANGENT, TEXCOORD_1 and COLOR_0
   * (same slots and buffers), for the lean shaded pipelines (MeshPipelineDesc.leanVertexLayouts);
   * undefined when the primitive has any of the three.
   */
  readonly leanRigidLayouts: readonly GPUVertexBufferLayout[] | undefined;
  readonly leanSkinnedLayouts: readonly GPUVertexBufferLayout[] | undefined;
  /** Slots a rigid draw binds (geometry and defaults); skinned draws bind all. */
  readonly surfaceSlotCount: number;
}

/** The layouts, and what the upload fills its buffers by. */
export interface VertexLayoutPlan extends VertexLayouts {
  /** Slot 0's attributes, in order, and their layout. */
  readonly present: readonly FloatAttribute[];
  readonly geometry: GeometryLayout;
  /** Attributes read from the shared constant buffer (slot 1 when any). */
  readonly missing: readonly FloatAttribute[];
  /** Every skinning attribute in one buffer (too few slots for one per array; its layout is the last). */
  readonly packSkin: boolean;
}

/** The shape of a read primitive. */
export function vertexShapeOf(p: Primitive): VertexShape {
  const stored: Record<string, AccessorFormat | undefined> = {};
  for (const a of FLOAT_ATTRIBUTES) if (a.data(p) !== undefined) stored[a.name] = p.quantized?.[a.name as keyof typeof p.quantized];
  const sets = p.influences > 0 ? p.jointSets.length : 0;
  const skinSets: SkinSetFormat[] = [];
  for (let set = 0; set < sets; set++) skinSets.push({ joints: p.jointSets[set], weights: p.weightSets[set] });
  return { stored, skinSets };
}

/** WebGPU vertex format of a JOINTS_n accessor (spec: UNSIGNED_BYTE or UNSIGNED_SHORT). */
export function jointsFormat(data: AccessorFormat): GPUVertexFormat {
  switch (data.componentType) {
    case ComponentType.UNSIGNED_BYTE: return 'uint8x4';
    case ComponentType.UNSIGNED_SHORT: return 'uint16x4';
    default: throw new Error(`JOINTS accessor componentType ${data.componentType} has no WebGPU vertex format`);
  }
}

/** WebGPU vertex format of a WEIGHTS_n accessor (FLOAT, or normalized UNSIGNED_BYTE/SHORT). */
export function weightsFormat(data: AccessorFormat): GPUVertexFormat {
  if (data.componentType === ComponentType.FLOAT) return 'float32x4';
  if (data.normalized && data.componentType === ComponentType.UNSIGNED_BYTE) return 'unorm8x4';
  if (data.normalized && data.componentType === ComponentType.UNSIGNED_SHORT) return 'unorm16x4';
  throw new Error(`WEIGHTS accessor componentType ${data.componentType}${data.normalized ? ' (normalized)' : ''} has no WebGPU vertex format`);
}

/** Bytes of one VEC4 element of a skinning accessor. */
export function skinElementBytes(data: AccessorFormat): number {
  return (COMPONENT_BYTE_SIZE[data.componentType] ?? 4) * 4;
}

/** The layouts of a primitive of `shape` on a device with `maxVertexBuffers` slots; throws a GpuLimitError (naming `label`) when they do not fit. */
export function planVertexLayouts(shape: VertexShape, maxVertexBuffers: number, label: string): VertexLayoutPlan {
  const has = (a: FloatAttribute) => a.name in shape.stored && (a.name !== 'TANGENT' || 'NORMAL' in shape.stored);
  const present = FLOAT_ATTRIBUTES.filter(has);
  const missing = FLOAT_ATTRIBUTES.filter((a) => !has(a));
  const geometry = geometryLayout(shape.stored, present);
  const layouts: GPUVertexBufferLayout[] = [{ arrayStride: geometry.stride, stepMode: 'vertex', attributes: geometry.attributes }];
  const keyParts: string[] = [geometry.key];
  if (missing.length > 0) {
    // Slot 1: every missing attribute reads the same constant for every vertex.
    layouts.push({
      arrayStride: 0,
      stepMode: 'vertex',
      attributes: missing.map((a) => ({ shaderLocation: a.location, format: FLOAT_FORMAT[a.components], offset: a.defaultOffset })),
    });
    keyParts.push(`d:${missing.map((a) => a.name).join(',')}`);
  }
  const surfaceSlotCount = layouts.length;
  const lean = LEAN_OMITS.every((location) => missing.some((a) => a.location === location));
  const rigidLayoutKey = keyParts.join(' ');

  const sets = shape.skinSets.length;
  if (surfaceSlotCount > maxVertexBuffers || (sets > 0 && surfaceSlotCount + 1 > maxVertexBuffers)) {
    throw new GpuLimitError(`${label}: needs ${surfaceSlotCount + (sets > 0 ? 1 : 0)} vertex buffers, the device allows ${maxVertexBuffers} (maxVertexBuffers)`);
  }
  const packSkin = surfaceSlotCount + 2 * sets > maxVertexBuffers;
  if (packSkin) {
    const packed = packedSkinLayout(shape.skinSets);
    layouts.push(packed.layout);
    keyParts.push(packed.key);
  }
  // Skinning attributes straight from the accessors.
  for (let set = 0; set < (packSkin ? 0 : sets); set++) {
    const { joints, weights } = shape.skinSets[set];
    const jf = jointsFormat(joints);
    const wf = weightsFormat(weights);
    layouts.push(
      { arrayStride: skinElementBytes(joints), stepMode: 'vertex', attributes: [{ shaderLocation: skinLocation(set, 'joints'), format: jf, offset: 0 }] },
      { arrayStride: skinElementBytes(weights), stepMode: 'vertex', attributes: [{ shaderLocation: skinLocation(set, 'weights'), format: wf, offset: 0 }] },
    );
    keyParts.push(`j${set}:${jf} w${set}:${wf}`);
  }
  return {
    present, geometry, missing, packSkin, surfaceSlotCount,
    rigidLayouts: layouts.slice(0, surfaceSlotCount),
    skinnedLayouts: layouts,
    rigidLayoutKey,
    skinnedLayoutKey: keyParts.join(' '),
    leanRigidLayouts: lean ? withoutLocations(layouts.slice(0, surfaceSlotCount), LEAN_OMITS) : undefined,
    leanSkinnedLayouts: lean ? withoutLocations(layouts, LEAN_OMITS) : undefined,
  };
}

/** The shader location of set `set`'s joints or weights. */
export function skinLocation(set: number, array: 'joints' | 'weights'): number {
  if (array === 'joints') return set === 0 ? VertexLocation.JOINTS_0 : VertexLocation.JOINTS_1;
  return set === 0 ? VertexLocation.WEIGHTS_0 : VertexLocation.WEIGHTS_1;
}

/**
 * Every skinning attribute in one buffer, interleaved per vertex (JOINTS_0, WEIGHTS_0,
 * JOINTS_1, WEIGHTS_1) in the accessors' own formats: for devices with too few vertex buffer
 * slots for one buffer per array. Every element is 4, 8 or 16 bytes, so every offset and the
 * stride stay multiples of 4 as WebGPU requires.
 */
function packedSkinLayout(sets: readonly SkinSetFormat[]): { layout: GPUVertexBufferLayout; key: string } {
  const attributes: GPUVertexAttribute[] = [];
  let stride = 0;
  sets.forEach(({ joints, weights }, set) => {
    attributes.push({ shaderLocation: skinLocation(set, 'joints'), format: jointsFormat(joints), offset: stride });
    stride += skinElementBytes(joints);
    attributes.push({ shaderLocation: skinLocation(set, 'weights'), format: weightsFormat(weights), offset: stride });
    stride += skinElementBytes(weights);
  });
  return { layout: { arrayStride: stride, stepMode: 'vertex', attributes }, key: `s${stride}:${attributes.map((a) => a.format).join(',')}` };
}

/** `layouts` with the attributes at `locations` removed; slots (and so the bound buffers) stay. */
function withoutLocations(layouts: readonly GPUVertexBufferLayout[], locations: readonly number[]): GPUVertexBufferLayout[] {
  return layouts.map((l) => ({ ...l, attributes: [...l.attributes].filter((a) => !locations.includes(a.shaderLocation)) }));
}
