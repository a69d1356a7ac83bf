import type { AccessorData, AccessorFormat } from '../../gltf/accessors.ts';
import { ComponentType } from '../../gltf/constants.ts';
import type { Primitive } from '../../gltf/model.ts';

/**
 * The interleaved geometry vertex buffer (slot 0, see model/upload.ts) with KHR_mesh_quantization
 * attributes kept in their integer storage where WebGPU has a vertex format that turns them
 * into the same floats the CPU model holds:
 *
 * - normalized (U)BYTE / (U)SHORT → unorm8/snorm8/unorm16/snorm16 ×2 or ×4: the vertex fetch
 *   applies the glTF normalization (c/255, max(c/127, −1), c/65535, max(c/32767, −1)), and
 *   the dequantization scale and offset are already in the node transform or the inverse bind
 *   matrices, where the file's writer put them, so the shaders are unchanged. A VEC3 takes
 *   the ×4 format (WebGPU has no ×3 of 8/16-bit types); the shader reads its vec3f and the
 *   fourth component, which we leave 0, is dropped.
 * - unnormalized integers (POSITION or TEXCOORD as plain short, say) have no WebGPU format
 *   that yields floats: `uint16x4` and friends feed `vec4u`/`vec4i` shader inputs only, and
 *   reading them as floats would need another shader variant per attribute and type for a
 *   rare case. They are uploaded as float32 (the CPU model's values, exact for 8/16-bit).
 *
 * Every attribute takes a multiple of 4 bytes (a unorm8x2 pair is padded to 4), so every
 * offset and the stride are 4-byte aligned, as WebGPU requires for any mix of formats.
 * Files without integer attributes get exactly the float32 layout and key they always had.
 */

/** An attribute the geometry buffer may hold (model/upload.ts lists them in slot-0 order). */
export interface GeometryAttribute {
  readonly location: number;
  /** The glTF attribute name (also the QuantizedAttributes key). */
  readonly name: string;
  /** Components the shader reads. */
  readonly components: 2 | 3 | 4;
  /** The CPU model's floats, undefined when the primitive lacks the attribute. */
  readonly data: (p: Primitive) => Float32Array | undefined;
}

/** The slot-0 buffer of one primitive: bytes, layout attributes, stride and pipeline key. */
export interface GeometryBuffer {
  readonly bytes: Uint8Array;
  readonly stride: number;
  readonly attributes: GPUVertexAttribute[];
  /** Names in order, with `=format` after each one not stored as float32 (so float-only keys are unchanged). */
  readonly key: string;
}

const FLOAT_FORMAT: Readonly<Record<2 | 3 | 4, GPUVertexFormat>> = { 2: 'float32x2', 3: 'float32x3', 4: 'float32x4' };
const FLOAT_BYTES = 4;

/** The WebGPU format keeping `data` as stored for a `components`-wide shader input, or undefined (float32 then). */
export function quantizedVertexFormat(data: AccessorFormat, components: 2 | 3 | 4): GPUVertexFormat | undefined {
  if (!data.normalized || data.components !== components) return undefined;
  const width = components === 2 ? 'x2' : 'x4';
  switch (data.componentType) {
    case ComponentType.BYTE: return `snorm8${width}`;
    case ComponentType.UNSIGNED_BYTE: return `unorm8${width}`;
    case ComponentType.SHORT: return `snorm16${width}`;
    case ComponentType.UNSIGNED_SHORT: return `unorm16${width}`;
    default: return undefined;
  }
}

/** Bytes one vertex of `format` takes in the buffer (padded to 4). */
function slotBytes(format: GPUVertexFormat, components: number): number {
  if (format.startsWith('float32')) return components * FLOAT_BYTES;
  const componentBytes = format.includes('16') ? 2 : 1;
  const stored = format.endsWith('x2') ? 2 : 4;
  return (stored * componentBytes + 3) & ~3;
}

/** Where the present attributes sit in the slot-0 buffer: layout attributes, stride and pipeline key. */
export type GeometryLayout = Omit<GeometryBuffer, 'bytes'>;

/**
 * The slot-0 layout of `present` (in that order), each stored as `stored` says by glTF name
 * (absent: floats): from a read primitive (its `quantized`) or from the file's JSON
 * (vertex-layout.ts), which then give one key.
 */
export function geometryLayout(stored: Readonly<Record<string, AccessorFormat | undefined>>, present: readonly Omit<GeometryAttribute, 'data'>[]): GeometryLayout {
  let stride = 0;
  const attributes: GPUVertexAttribute[] = present.map((a) => {
    const source = stored[a.name];
    const format = (source && quantizedVertexFormat(source, a.components)) ?? FLOAT_FORMAT[a.components];
    const attr = { shaderLocation: a.location, format, offset: stride };
    stride += slotBytes(format, a.components);
    return attr;
  });
  const names = present.map((a, k) => (attributes[k].format.startsWith('float32') ? a.name : `${a.name}=${attributes[k].format}`));
  return { stride, attributes, key: `g${stride}:${names.join(',')}` };
}

/** Interleaves the present attributes of `p` (in `present` order) into one vertex buffer. */
export function buildGeometryBuffer(p: Primitive, present: readonly GeometryAttribute[]): GeometryBuffer {
  const quantized: Readonly<Record<string, AccessorData | undefined>> = { ...p.quantized };
  const layout = geometryLayout(quantized, present);
  const { stride, attributes } = layout;
  const n = p.vertexCount;
  const buffer = new ArrayBuffer(n * stride);
  for (let k = 0; k < present.length; k++) {
    const a = present[k];
    const { offset, format } = attributes[k];
    if (!format.startsWith('float32')) {
      // Same typed array kind as the accessor's; offset and stride are multiples of its element size.
      const src = quantized[a.name]!.array;
      const out = new (src.constructor as new (b: ArrayBuffer) => typeof src)(buffer);
      const size = src.BYTES_PER_ELEMENT;
      const strideElements = stride / size, at = offset / size;
      for (let v = 0; v < n; v++) for (let c = 0; c < a.components; c++) out[v * strideElements + at + c] = src[v * a.components + c];
    } else {
      const out = new Float32Array(buffer);
      const src = a.data(p)!;
      const strideFloats = stride / FLOAT_BYTES, at = offset / FLOAT_BYTES;
      for (let v = 0; v < n; v++) for (let c = 0; c < a.components; c++) out[v * strideFloats + at + c] = src[v * a.components + c];
    }
  }
  return { bytes: new Uint8Array(buffer), ...layout };
}
