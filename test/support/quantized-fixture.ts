import { GltfBuilder } from '../../src/gltf/builder.ts';

/**
 * A rigid, non-indexed quad (two triangles, so six vertices of which two repeat: the upload
 * welds them) using the attribute types glTF-Transform never writes but KHR_mesh_quantization
 * allows: POSITION as unnormalized SHORT (dequantized by the node's scale 0.01), NORMAL as
 * normalized BYTE, TANGENT as normalized SHORT, TEXCOORD_0 as unnormalized UNSIGNED_BYTE and a
 * morph target whose POSITION deltas are unnormalized BYTE.
 */
export const QUANTIZED_QUAD = {
  positions: Int16Array.of(0, 0, 0, 100, 0, 0, 100, 100, 0, 0, 0, 0, 100, 100, 0, 0, 100, 0),
  normals: Int8Array.of(0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 0, 127),
  tangents: Int16Array.of(...Array.from({ length: 6 }, () => [32767, 0, 0, -32767]).flat()),
  texcoords: Uint8Array.of(0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0),
  deltas: Int8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 10, 0, 0, 0),
  nodeScale: 0.01,
} as const;

/** The quad as stored (`float`: its float twin, the same values dequantized, without the extension). */
export function buildQuantizedQuad(float = false): Uint8Array {
  const q = QUANTIZED_QUAD;
  const b = new GltfBuilder();
  if (!float) {
    b.json.extensionsUsed!.push('KHR_mesh_quantization');
    b.json.extensionsRequired!.push('KHR_mesh_quantization');
  }
  const asFloat = (a: ArrayLike<number>, scale = 1) => Float32Array.from(a, (c) => Math.max(c * scale, -1));
  const mesh = b.addMesh({
    primitives: [{
      attributes: float ? {
        POSITION: b.addAccessor(asFloat(q.positions), 'VEC3', { minMax: true }),
        NORMAL: b.addAccessor(asFloat(q.normals, 1 / 127), 'VEC3'),
        TANGENT: b.addAccessor(asFloat(q.tangents, 1 / 32767), 'VEC4'),
        TEXCOORD_0: b.addAccessor(asFloat(q.texcoords), 'VEC2'),
      } : {
        POSITION: b.addAccessor(q.positions, 'VEC3', { minMax: true, byteStride: 8 }),
        NORMAL: b.addAccessor(q.normals, 'VEC3', { normalized: true, byteStride: 4 }),
        TANGENT: b.addAccessor(q.tangents, 'VEC4', { normalized: true }),
        TEXCOORD_0: b.addAccessor(q.texcoords, 'VEC2', { byteStride: 4 }),
      },
      targets: [{ POSITION: b.addAccessor(float ? asFloat(q.deltas) : q.deltas, 'VEC3', float ? {} : { byteStride: 4 }) }],
    }],
    weights: [0.5],
  });
  const node = b.addNode({ mesh, scale: [q.nodeScale, q.nodeScale, q.nodeScale] });
  b.addScene({ nodes: [node] });
  return b.toGlb();
}
