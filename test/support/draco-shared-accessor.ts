/**
 * The shape of a gltfpack / glTF-Transform 3.0 Draco output that three.js draws: the primitive
 * names ONE accessor for TEXCOORD_0…TEXCOORD_3 (a bufferView-less placeholder carrying count
 * and type), while its KHR_draco_mesh_compression attribute map names four Draco attributes
 * with four different unique ids. The Draco stream, not the accessor, defines the data.
 *
 * Made at test time from the built-in limb (skinned, two clips) with four distinct UV sets and
 * a base colour texture read through TEXCOORD_1, so drawing the wrong set shows:
 * - `draco`: glTF-Transform's `draco()` of it, its JSON then rewritten so the
 *   four TEXCOORD_n name TEXCOORD_0's accessor and the other three accessors are gone;
 * - `twin`: the same Draco output before the rewrite, decoded by glTF-Transform's
 *   own Draco decoder (the package's, as three.js uses it) and written uncompressed: the
 *   same vertices, the same order, four accessors of plain floats.
 */
import { buildLimb } from '../../src/builtin/limb.ts';
import { encodeGlb, type GltfJson } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';
import { compressGlb, compressionIO, readBack } from './compressed.ts';
import { encodePng } from './png.ts';

const DRACO = 'KHR_draco_mesh_compression';
export const SHARED_TEXCOORD_SETS = 4;
/** The checker texture's size in texels (each texel one square). */
const CHECKER = 8;

/** Per set k, u and v are the limb's (x, angle) mapped differently, so no two sets agree. */
function texcoordSet(positions: Float32Array, set: number): Float32Array<ArrayBuffer> {
  const out = new Float32Array((positions.length / 3) * 2);
  for (let v = 0; v < positions.length / 3; v++) {
    const x = positions[v * 3], y = positions[v * 3 + 1], z = positions[v * 3 + 2];
    const around = (Math.atan2(z, y) / (2 * Math.PI) + 0.5);
    out[v * 2] = (x / 2.5) * (set + 1) + 0.1 * set;
    out[v * 2 + 1] = around * (set % 2 === 0 ? 1 : -1) + 0.25 * set;
  }
  return out;
}

function checkerPng(): Uint8Array {
  const rgba = new Uint8Array(CHECKER * CHECKER * 4);
  for (let y = 0; y < CHECKER; y++) {
    for (let x = 0; x < CHECKER; x++) {
      const on = (x + y) % 2 === 0;
      rgba.set(on ? [230, 200, 40, 255] : [30, 60, 200, 255], (y * CHECKER + x) * 4);
    }
  }
  return encodePng(CHECKER, CHECKER, rgba);
}

/** The limb with TEXCOORD_0…3 and a nearest-filtered checker on TEXCOORD_1 (uncompressed GLB). */
export async function limbWithFourUvSets(): Promise<Uint8Array> {
  const io = await compressionIO();
  const doc = await io.readBinary(buildLimb().toGlb());
  const root = doc.getRoot();
  const buffer = root.listBuffers()[0];
  const texture = doc.createTexture('checker').setImage(checkerPng()).setMimeType('image/png');
  for (const mesh of root.listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      const positions = prim.getAttribute('POSITION')!.getArray() as Float32Array;
      for (let set = 0; set < SHARED_TEXCOORD_SETS; set++) {
        const accessor = doc.createAccessor(`TEXCOORD_${set}`).setType('VEC2').setArray(texcoordSet(positions, set)).setBuffer(buffer);
        prim.setAttribute(`TEXCOORD_${set}`, accessor);
      }
      const material = prim.getMaterial()!;
      material.setBaseColorTexture(texture);
      material.getBaseColorTextureInfo()!.setTexCoord(1).setMagFilter(9728).setMinFilter(9728);
    }
  }
  return io.writeBinary(doc);
}

/** Rewrites every accessor index the JSON names through `map`. */
function renumberAccessors(json: GltfJson, map: (i: number) => number): void {
  const j = json as any;
  for (const mesh of j.meshes ?? []) {
    for (const prim of mesh.primitives) {
      for (const k of Object.keys(prim.attributes)) prim.attributes[k] = map(prim.attributes[k]);
      if (prim.indices !== undefined) prim.indices = map(prim.indices);
      for (const t of prim.targets ?? []) for (const k of Object.keys(t)) t[k] = map(t[k]);
    }
  }
  for (const skin of j.skins ?? []) if (skin.inverseBindMatrices !== undefined) skin.inverseBindMatrices = map(skin.inverseBindMatrices);
  for (const anim of j.animations ?? []) {
    for (const s of anim.samplers) { s.input = map(s.input); s.output = map(s.output); }
  }
}

export interface SharedAccessorFixture {
  /** One accessor named for TEXCOORD_0…3 (see the file comment). */
  readonly draco: Uint8Array;
  /** The same Draco output decoded by glTF-Transform (the draco3d package's decoder) and written without compression. */
  readonly twin: Uint8Array;
}

export async function sharedAccessorFixture(): Promise<SharedAccessorFixture> {
  const compressed = await compressGlb(await limbWithFourUvSets(), 'draco');
  return { draco: shareTexcoordAccessor(compressed), twin: await decodedTwin(compressed) };
}

function shareTexcoordAccessor(compressed: Uint8Array): Uint8Array {
  const { json, bin } = parseGlb(compressed);
  const j = structuredClone(json) as any;
  const removed = new Set<number>();
  for (const mesh of j.meshes) {
    for (const prim of mesh.primitives) {
      if (!prim.extensions?.[DRACO]) throw new Error('the fixture expects every primitive Draco-compressed');
      const shared = prim.attributes.TEXCOORD_0;
      for (let set = 1; set < SHARED_TEXCOORD_SETS; set++) {
        removed.add(prim.attributes[`TEXCOORD_${set}`]);
        prim.attributes[`TEXCOORD_${set}`] = shared;
      }
    }
  }
  const kept = j.accessors.map((_: unknown, i: number) => i).filter((i: number) => !removed.has(i));
  const newIndex = new Map<number, number>(kept.map((old: number, i: number) => [old, i]));
  j.accessors = kept.map((i: number) => j.accessors[i]);
  renumberAccessors(j, (i) => {
    const n = newIndex.get(i);
    if (n === undefined) throw new Error(`accessors[${i}] was removed but is still named`);
    return n;
  });
  return encodeGlb(j, bin ? new Uint8Array(bin) : undefined);
}

async function decodedTwin(compressed: Uint8Array): Promise<Uint8Array> {
  const doc = await readBack(compressed);
  for (const ext of doc.getRoot().listExtensionsUsed()) if (ext.extensionName === DRACO) ext.dispose();
  return (await compressionIO()).writeBinary(doc);
}
